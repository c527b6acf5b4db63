package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.ListenerEvent;
import smbdirect.api.SmbDirectListener;
import smbdirect.standalone.StandaloneTransport;

/**
 * The listener events a server sees, produced by scripted peers in virtual time: a good peer is
 * accepted, a peer over the connection cap is refused, a bad Negotiate Request and a peer that never
 * sends one are negotiation failures naming the rule and the timer.
 */
class ListenerEventsOverTheKitTest {

    @Test
    void acceptedThenRefusedBeyondTheCap() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of("maxConnectionsPerListener", 1));
            RecordingListenerEvents events = new RecordingListenerEvents();
            SmbDirectListener l = server.listen(kit.address("server"), c -> new RecordingHandler(), events);
            ScriptedPeer first = kit.peer().connect(l.localAddress());
            kit.settle();
            ScriptedPeer second = kit.peer().connect(l.localAddress());
            kit.settle();

            assertTrue(first.isEstablished());
            assertEquals(ScriptedPeer.State.CLOSED, second.state(), "refused before negotiation");
            assertEquals(List.of(ListenerEvent.Kind.ACCEPTED, ListenerEvent.Kind.REFUSED_CAP), events.kinds());
            assertEquals("maxConnectionsPerListener=1 reached", events.last().reason().detail());
            assertEquals("server", events.last().provider());
            assertEquals(2, l.getListenerDTO().events.length);
        }
    }

    @Test
    void R_3_1_5_6_06_aBadNegotiateRequestIsANegotiationFailureNamingTheRule() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            RecordingListenerEvents events = new RecordingListenerEvents();
            SmbDirectListener l = server.listen(kit.address("server"), c -> new RecordingHandler(), events);
            kit.peer().hook(frame -> {
                if (frame.kind() == Frame.Kind.NEGOTIATE_REQUEST) {
                    frame.u16(6, 0); // CreditsRequested
                }
                return true;
            }).connect(l.localAddress());
            kit.settle();

            ListenerEvent e = events.last();
            assertEquals(ListenerEvent.Kind.NEGOTIATION_FAILED, e.kind());
            assertEquals("R-3.1.5.6-06", e.reason().rule());
            assertTrue(e.reason().detail().contains("CreditsRequested=0"), e.reason().detail());
        }
    }

    @Test
    void R_3_1_7_2_03_aPeerThatNeverNegotiatesIsANegotiationTimeoutAfter5Seconds() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport server = kit.transport("server", Map.of());
            RecordingListenerEvents events = new RecordingListenerEvents();
            SmbDirectListener l = server.listen(kit.address("server"), c -> new RecordingHandler(), events);
            kit.peer().hook(frame -> frame.kind() != Frame.Kind.NEGOTIATE_REQUEST).connect(l.localAddress());
            kit.settle();
            kit.advance(Duration.ofMillis(4999));
            assertEquals(List.of(), events.events());
            kit.advance(Duration.ofMillis(1));

            assertEquals(ListenerEvent.Kind.NEGOTIATION_TIMEOUT, events.last().kind());
            assertEquals(CloseReason.Kind.NEGOTIATION_TIMEOUT, events.last().reason().kind());
        }
    }
}
