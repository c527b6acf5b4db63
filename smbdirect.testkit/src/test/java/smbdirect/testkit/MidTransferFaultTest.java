package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectListener;
import smbdirect.standalone.StandaloneTransport;
import smbdirect.testkit.ScriptedPeer.MidTransferFault;

/**
 * {@link ScriptedPeer#sendWithFault}: a fragmented message broken off in the middle, in one call, and
 * what the transport makes of it (MaxSendSize 1364: 1340 payload bytes per fragment, so 5000 bytes
 * are 4 fragments).
 */
class MidTransferFaultTest {

    private static final byte[] MESSAGE = new byte[5000];

    static {
        for (int i = 0; i < MESSAGE.length; i++) {
            MESSAGE[i] = (byte) (i * 13);
        }
    }

    private final SmbDirectTestKit kit = SmbDirectTestKit.create();
    private final RecordingHandler server = new RecordingHandler();
    private ScriptedPeer client;

    private ScriptedPeer connected() throws Exception {
        StandaloneTransport transport = kit.transport("server", Map.of("keepaliveIntervalSeconds", 30));
        SmbDirectListener l = transport.listen(kit.address("server"), c -> server);
        client = kit.peer().connect(l.localAddress());
        kit.settle();
        assertTrue(client.isEstablished());
        return client;
    }

    @Test
    void disconnectInTheMiddleOfAMessageSaysThePeerDisconnectedOnceAndWhatWasDropped() throws Exception {
        try (kit) {
            connected().sendWithFault(MESSAGE, 2, MidTransferFault.DISCONNECT);
            kit.settle();
            assertEquals(List.of(), server.messages(), "a message not complete is never delivered");
            assertEquals("PEER_DISCONNECT: the peer disconnected; a message the peer had partly sent was dropped: "
                    + "2680 of 5000 bytes received", server.closeReason().toString());
            assertEquals(2, client.sent().stream().filter(f -> f.kind() == Frame.Kind.DATA && f.dataLength() > 0)
                    .count(), "two fragments went out");
        }
    }

    @Test
    void aCrashInTheMiddleOfAMessageIsNoticedByTheKeepaliveAndSaysWhatWasDropped() throws Exception {
        try (kit) {
            connected().sendWithFault(MESSAGE, 1, MidTransferFault.CRASH);
            kit.settle();
            assertNull(server.closeReason(), "nothing to notice yet");
            kit.advance(Duration.ofSeconds(30));
            CloseReason r = server.closeReason();
            assertEquals(CloseReason.Kind.PROVIDER_ERROR, r.kind(), r.toString());
            assertTrue(r.detail().endsWith("a message the peer had partly sent was dropped: 1340 of 5000 bytes received"),
                    r.toString());
        }
    }

    @Test
    void aStallInTheMiddleOfAMessageHoldsItUntilThePeerGoesOn() throws Exception {
        try (kit) {
            connected().sendWithFault(MESSAGE, 3, MidTransferFault.STALL);
            kit.settle();
            assertEquals(List.of(), server.messages());
            client.stall(false);
            kit.settle();
            assertEquals(1, server.messages().size());
            assertArrayEquals(MESSAGE, server.messages().get(0), "the message arrives whole, in order");
        }
    }

    @ParameterizedTest(name = "{0} after {1} fragment(s): {2}")
    @CsvSource(delimiter = '|', value = {
        // R-3.1.5.8-18: the second fragment says it is the last, 3660 bytes early
        "END_EARLY           | 1 | R-3.1.5.8-18 | final fragment (RemainingDataLength 0) with DataLength 1340 while FragmentReassemblyRemaining is 3660",
        // the third fragment claims 981 bytes remain where 980 do
        "OVERSTATE_REMAINING | 2 | A-30         | DataLength 1340 + RemainingDataLength 981 does not match FragmentReassemblyRemaining 2320",
        // R-3.1.5.8-18: an empty message ends the sequence early
        "INTERLEAVE_EMPTY    | 1 | R-3.1.5.8-18 | final fragment (RemainingDataLength 0) with DataLength 0 while FragmentReassemblyRemaining is 3660"})
    void aFragmentSequenceThatContradictsItselfIsAViolationNamingTheRuleAndTheValues(MidTransferFault fault,
            int fragments, String rule, String detail) throws Exception {
        try (kit) {
            connected().sendWithFault(MESSAGE, fragments, fault);
            kit.settle();
            CloseReason r = server.closeReason();
            assertEquals(new CloseReason(CloseReason.Kind.PROTOCOL_VIOLATION, rule, detail), r);
            assertEquals(List.of(), server.messages());
        }
    }

    @Test
    void aFaultAfterMoreFragmentsThanTheMessageHasIsRefusedWithTheNumbers() throws Exception {
        try (kit) {
            connected().sendWithFault(MESSAGE, 4, MidTransferFault.DISCONNECT);
            IllegalStateException e = assertThrows(IllegalStateException.class, kit::settle);
            assertEquals("sendWithFault: the message went out whole in 4 fragment(s) of at most 1340 bytes; the fault"
                    + " was to act after 4", e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> client.sendWithFault(MESSAGE, 0, MidTransferFault.DISCONNECT));
        }
    }
}
