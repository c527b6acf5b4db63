package smbdirect.interop.fileserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;

/** What a mount's connections may show: its unmount's end, after at most two of cifs's interleaved empty messages. */
class MountConnectionsTest {

    private static final CloseReason INTERLEAVED = CloseReason.violation("R-3.1.5.8-18",
            "final fragment (RemainingDataLength 0) with DataLength 0 while FragmentReassemblyRemaining is 98");
    private static final CloseReason UNMOUNTED = CloseReason.of(CloseReason.Kind.PEER_DISCONNECT, "peer disconnected");

    private static int reconnects(CloseReason... reasons) {
        return new MountConnections("v311", Arrays.asList(reasons)).reconnects(" (siw0)");
    }

    @Test
    void oneConnectionEndedByTheUnmountIsNoReconnect() {
        assertEquals(0, reconnects(UNMOUNTED));
    }

    @Test
    void connectionsEndedForAnInterleavedEmptyMessageAreCifsReconnects() {
        assertEquals(1, reconnects(INTERLEAVED, UNMOUNTED));
        assertEquals(2, reconnects(INTERLEAVED, INTERLEAVED, UNMOUNTED));
    }

    @Test
    void anyOtherEndBeforeTheUnmountFails() {
        AssertionError e = assertThrows(AssertionError.class, () -> reconnects(
                CloseReason.of(CloseReason.Kind.PROVIDER_ERROR, "work request flushed"), UNMOUNTED));
        assertTrue(e.getMessage().contains("connection 1 of 2") && e.getMessage().contains("PROVIDER_ERROR"), e.getMessage());
        // the same rule with other values is not cifs's interleaved empty message
        assertThrows(AssertionError.class, () -> reconnects(CloseReason.violation("R-3.1.5.8-18",
                "final fragment (RemainingDataLength 0) with DataLength 100 while FragmentReassemblyRemaining is 98"),
                UNMOUNTED));
        assertThrows(AssertionError.class, () -> reconnects(CloseReason.violation("A-30", "DataLength 0 + "
                + "RemainingDataLength 5 does not match FragmentReassemblyRemaining 98"), UNMOUNTED));
    }

    @Test
    void aViolationEndingTheLastConnectionFails() {
        assertThrows(AssertionError.class, () -> reconnects(INTERLEAVED));
        assertThrows(AssertionError.class, () -> reconnects(UNMOUNTED, INTERLEAVED));
    }

    @Test
    void noConnectionAConnectionStillOpenOrTooManyReconnectsFail() {
        assertThrows(AssertionError.class, () -> reconnects());
        assertThrows(AssertionError.class, () -> reconnects(INTERLEAVED, (CloseReason) null));
        AssertionError e = assertThrows(AssertionError.class,
                () -> reconnects(INTERLEAVED, INTERLEAVED, INTERLEAVED, UNMOUNTED));
        assertTrue(e.getMessage().contains("3 connections ended"), e.getMessage());
    }

    @Test
    void onlyTheEmptyFinalFragmentUnderRule18IsTheInterleave() {
        assertTrue(MountConnections.interleavedEmptyMessage(INTERLEAVED));
        assertFalse(MountConnections.interleavedEmptyMessage(UNMOUNTED));
        assertFalse(MountConnections.interleavedEmptyMessage(null));
        assertEquals(List.of(), new MountConnections("x", List.of()).reasons());
    }
}
