package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.standalone.StandaloneTransport;

/** The scripted peer against the real transport: correct by default in both roles, and each misbehaviour. */
class ScriptedPeerTest {

    @Test
    void passivePeerNegotiatesWithTheTransportAndReassemblesItsFragments() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport client = kit.transport("client", Map.of());
            ScriptedPeer server = kit.peer().maxReceiveSize(1024);
            InetSocketAddress at = server.listen();
            RecordingHandler h = new RecordingHandler();
            CompletableFuture<SmbDirectConnection> f = client.connect(at, Duration.ofSeconds(5), h)
                    .toCompletableFuture();
            kit.settle();
            SmbDirectConnection c = f.getNow(null);
            assertNotNull(c, "negotiated");
            assertEquals(1024 - 24, c.parameters().maxSendSize() - 24, "the transport sends what the peer receives");

            byte[] big = new byte[5000];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 7);
            }
            c.send(ByteBuffer.wrap(big));
            kit.settle();
            assertEquals(1, server.messages().size());
            assertTrue(java.util.Arrays.equals(big, server.messages().get(0)));
            List<PeerFragment> data = server.fragments().stream().filter(p -> p.dataLength() > 0).toList();
            assertEquals(5, data.size(), "5000 bytes in fragments of 1000");
            assertEquals(0, data.get(data.size() - 1).remainingDataLength());
            assertEquals(List.of(), server.violations());

            server.send("reply".getBytes());
            kit.settle();
            assertEquals("reply", new String(h.messages().get(0)));
        }
    }

    @Test
    void aFieldOutOfRangeClosesTheConnectionNamingTheRule() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = transport.listen(kit.address("server"), c -> h);
            ScriptedPeer peer = kit.peer().connect(l.localAddress());
            kit.settle();
            peer.hook(frame -> {
                if (frame.kind() == Frame.Kind.DATA && frame.dataLength() > 0) {
                    frame.dataOffset(20); // not 8-byte aligned
                }
                return true;
            });
            peer.send("hello".getBytes());
            kit.settle();
            CloseReason r = h.closeReason();
            assertNotNull(r);
            assertEquals(CloseReason.Kind.PROTOCOL_VIOLATION, r.kind());
            assertTrue(r.toString().contains("DataOffset"), r.toString());
            assertEquals(1, h.disconnectNotifications());
        }
    }

    @Test
    void aStalledPeerIsClosedWhenTheKeepaliveGoesUnanswered() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server",
                    Map.of("keepaliveIntervalSeconds", 120, "keepaliveResponseTimeoutSeconds", 5));
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = transport.listen(kit.address("server"), c -> h);
            ScriptedPeer peer = kit.peer().connect(l.localAddress());
            kit.settle();
            peer.send("first".getBytes());
            kit.settle();
            peer.stall(true);
            kit.advance(Duration.ofSeconds(124));
            assertEquals(null, h.closeReason(), "keepalive sent at 120 s, 5 s to answer");
            kit.advance(Duration.ofSeconds(1));
            assertEquals(CloseReason.Kind.KEEPALIVE_TIMEOUT, h.closeReason().kind());
            assertTrue(kit.clock().elapsed().toSeconds() >= 125, "virtual time");
        }
    }

    @Test
    void aPeerThatGrantsMoreCreditsThanItPostedReceivesBreaksOnlyItsOwnConnection() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
            RecordingHandler flooded = new RecordingHandler();
            SmbDirectListener l = transport.listen(kit.address("server"), c -> {
                accepted.complete(c);
                return flooded;
            });
            ScriptedPeer peer = kit.peer().receiveCredits(4).connect(l.localAddress());
            kit.settle();
            peer.floodCredits(10);
            kit.settle();
            assertTrue(peer.transportSendCredits() > 4, "the transport holds more credits than receives exist");
            SmbDirectConnection c = accepted.getNow(null);
            for (int i = 0; i < 12; i++) {
                c.send(ByteBuffer.wrap(new byte[] {(byte) i}), (m, f) -> { });
            }
            kit.settle();
            assertNotNull(flooded.closeReason(), "a Send that found no receive ended the connection");
            assertFalse(c.isOpen());

            RecordingHandler good = new RecordingHandler();
            SmbDirectListener l2 = transport.listen(kit.address("server"), x -> good);
            ScriptedPeer other = kit.peer().connect(l2.localAddress());
            kit.settle();
            assertTrue(other.isEstablished(), "other connections go on");
        }
    }

    @Test
    void sendWithInvalidateOfATokenTheTransportRegisteredInvalidatesIt() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            CompletableFuture<SmbDirectConnection> accepted = new CompletableFuture<>();
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = transport.listen(kit.address("server"), c -> {
                accepted.complete(c);
                return h;
            });
            ScriptedPeer peer = kit.peer().connect(l.localAddress());
            kit.settle();
            SmbDirectConnection c = accepted.getNow(null);
            var reg = c.register(ByteBuffer.allocateDirect(4096), smbdirect.api.RemoteAccess.WRITE)
                    .toCompletableFuture();
            kit.settle();
            var buffer = reg.getNow(null);
            assertTrue(buffer.isValid());
            peer.sendWithInvalidate("done".getBytes(), buffer.descriptors().get(0).token());
            kit.settle();
            assertFalse(buffer.isValid(), "R-3.1.4.2: the peer invalidated the token");
            assertEquals("done", new String(h.messages().get(0)));
        }
    }

    @Test
    void R_3_1_5_1_04_A_22_aMessageSentWithoutACreditFindsNoReceiveAndEndsOnlyThatConnection() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            StandaloneTransport transport = kit.transport("server", Map.of());
            RecordingHandler h = new RecordingHandler();
            SmbDirectListener l = transport.listen(kit.address("server"), c -> h);
            ScriptedPeer peer = kit.peer().sendCreditTarget(4).connect(l.localAddress());
            kit.settle();
            assertEquals(4, peer.totalCreditsGrantedToPeer(), "the transport granted what the peer asked for");
            assertEquals(3, peer.peerSendCredits(), "A-14: the peer's first message, granting the transport credits, spent one");

            peer.sendWithoutCredit("overrun".getBytes());
            kit.settle();
            assertEquals(0, peer.peerSendCredits());
            assertEquals(List.of(), h.messages(), "the message beyond the credits never reached the upper layer");
            CloseReason r = h.closeReason();
            assertNotNull(r, "the connection ended");
            assertEquals(CloseReason.Kind.PROVIDER_ERROR, r.kind(), r.toString());
            assertTrue(r.detail().contains("receiver not ready"), r.toString());
            assertEquals(ScriptedPeer.State.CLOSED, peer.state());

            RecordingHandler good = new RecordingHandler();
            ScriptedPeer other = kit.peer().connect(transport.listen(kit.address("server"), x -> good).localAddress());
            kit.settle();
            assertTrue(other.isEstablished(), "other connections go on");
        }
    }

    @Test
    void sendWithoutCreditBeforeNegotiationIsRefused() throws Exception {
        try (SmbDirectTestKit kit = SmbDirectTestKit.create()) {
            ScriptedPeer peer = kit.peer();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> peer.sendWithoutCredit(new byte[1]));
            assertTrue(e.getMessage().contains("established"), e.getMessage());
        }
    }
}
