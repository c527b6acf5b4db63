package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.CloseReason;
import smbdirect.api.SmbDirectConnection;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.rdma.mock.RawPeer;

/** The engine against a byte-level scripted peer on the mock fabric (independent of our own encoder's peer side). */
class RawPeerOverMockTest {

    MockPair pair;
    RawPeer raw;

    @AfterEach
    void noLeaks() {
        raw.close();
        pair.close();
        pair.fabric.assertNoLeaks();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** The raw peer listens; our client connects and negotiates with it. */
    private CompletableFuture<SmbDirectConnection> clientAgainstRawServer() throws Exception {
        pair = new MockPair(EngineOverMockTest.EXAMPLE);
        raw = pair.fabric.rawPeer().receiveSize(1024);
        InetSocketAddress addr = raw.listen(new InetSocketAddress(raw.provider().address(), 445));
        CompletableFuture<SmbDirectConnection> f = pair.client.connect(addr, Duration.ofSeconds(120),
                pair.clientSide).toCompletableFuture();
        pair.run();
        assertEquals(1, raw.received().size(), "the Negotiate Request");
        ByteBuffer req = ByteBuffer.wrap(raw.received().get(0)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(20, req.remaining());
        assertEquals(0x100, NegotiateRequest.minVersion(req, 0));
        raw.send(bytes(Harness.negResponse(10, 10, 0, 1 << 20, 1024, 1024, 131072)));
        pair.run();
        return f;
    }

    @Test
    void R_3_1_5_8_03_misalignedDataOffsetFromARawPeerTerminates() throws Exception {
        CompletableFuture<SmbDirectConnection> f = clientAgainstRawServer();
        Connection c = (Connection) f.join();
        ByteBuffer bad = Harness.le(64);
        DataTransfer.encodeHeaderOnly(bad, 0, 10, 1, 0, 0, 25, 10);
        raw.send(bytes(bad));
        pair.run();
        assertFalse(c.isOpen());
        assertEquals("R-3.1.5.8-03", pair.clientSide.disconnects.get(0).rule());
        assertTrue(raw.disconnectCause() != null, "the raw peer saw the termination");
    }

    @Test
    void A_13_firstMessageFromTheEngineGrantsCredits() throws Exception {
        CompletableFuture<SmbDirectConnection> f = clientAgainstRawServer();
        f.join();
        assertEquals(2, raw.received().size());
        ByteBuffer first = ByteBuffer.wrap(raw.received().get(1)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(10, DataTransfer.creditsGranted(first, 0));
        raw.send(bytes(Harness.dt(10, 0, 0, 0, Harness.bytes(700, 3))));
        pair.run();
        assertArrayEquals(Harness.bytes(700, 3), pair.clientSide.messages.get(0));
    }

    @Test
    void A_22_peerSendingBeyondItsCreditsBreaksTheConnection() throws Exception {
        CompletableFuture<SmbDirectConnection> f = clientAgainstRawServer();
        Connection c = (Connection) f.join();
        // the raw peer holds 10 credits; it sends 11 data messages without waiting
        for (int i = 0; i < 11; i++) {
            raw.send(bytes(Harness.dt(10, 0, 0, 0, Harness.bytes(10, i))));
        }
        pair.run();
        assertFalse(c.isOpen(), "receiver not ready or a send without credit ends the connection");
        CloseReason r = pair.clientSide.disconnects.get(0);
        assertTrue(r.kind() == CloseReason.Kind.PROTOCOL_VIOLATION || r.kind() == CloseReason.Kind.PROVIDER_ERROR,
                r.toString());
    }

    @Test
    void R_3_1_5_6_09_rawClientWithBadRequestIsDroppedWithoutResponse() throws Exception {
        pair = new MockPair(EngineOverMockTest.EXAMPLE);
        raw = pair.fabric.rawPeer();
        raw.connect(pair.listener.localAddress(), new byte[0]);
        pair.run();
        assertTrue(raw.isConnected());
        raw.send(bytes(Harness.negRequest(0x100, 0x100, 10, 1024, 127, 131072)));
        pair.run();
        assertTrue(raw.received().isEmpty(), "no response (R-3.1.5.6-09)");
        assertTrue(raw.disconnectCause() != null);
        assertTrue(pair.accepted.isEmpty());
        assertEquals(1, pair.listener.getListenerDTO().negotiationFailures);
    }

    @Test
    void R_3_1_5_6_04_rawClientWithWrongVersionGetsNotSupported() throws Exception {
        pair = new MockPair(EngineOverMockTest.EXAMPLE);
        raw = pair.fabric.rawPeer();
        raw.connect(pair.listener.localAddress(), new byte[0]);
        pair.run();
        raw.send(bytes(Harness.negRequest(0x200, 0x200, 10, 1024, 1024, 131072)));
        pair.run();
        List<byte[]> got = raw.received();
        assertEquals(1, got.size());
        ByteBuffer r = ByteBuffer.wrap(got.get(0)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(0xC00000BB, NegotiateResponse.status(r, 0));
        assertTrue(raw.disconnectCause() != null, "graceful termination after the failure response");
    }

    @Test
    void R_3_1_7_2_03_rawClientThatNeverNegotiatesIsDroppedAfter5Seconds() throws Exception {
        pair = new MockPair(EngineOverMockTest.EXAMPLE);
        raw = pair.fabric.rawPeer();
        raw.connect(pair.listener.localAddress(), new byte[0]);
        pair.run();
        pair.advance(Duration.ofMillis(4900));
        assertTrue(raw.isConnected());
        pair.advance(Duration.ofMillis(200));
        assertFalse(raw.isConnected());
    }

    @Test
    void peerLesson3_batchGrantingPeerReceivesEverything() throws Exception {
        CompletableFuture<SmbDirectConnection> f = clientAgainstRawServer();
        Connection c = (Connection) f.join();
        int total = 120;
        for (int i = 0; i < total; i++) {
            c.send(ByteBuffer.wrap(Harness.bytes(900, i)), (m, x) -> { });
        }
        pair.run();
        int seen = raw.received().size();
        int ungrantedAtPeer = seen - 1; // the negotiate request used the initial receive
        int guard = 0;
        while (dataMessages(raw.received()) < total && guard++ < 200) {
            // grant in batches of 7 once that many were consumed (Windows grants in batches)
            int now = raw.received().size();
            ungrantedAtPeer += now - seen;
            seen = now;
            if (ungrantedAtPeer >= 7 || c.credits.sendCredits() == 0) {
                raw.send(bytes(Harness.dt(10, ungrantedAtPeer, 0, 0, new byte[0])));
                ungrantedAtPeer = 0;
            }
            pair.run();
        }
        assertEquals(total, dataMessages(raw.received()));
        int k = 0;
        for (byte[] m : raw.received()) {
            ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
            if (m.length > 24 && DataTransfer.dataLength(b, 0) > 0) {
                byte[] payload = java.util.Arrays.copyOfRange(m, 24, m.length);
                assertArrayEquals(Harness.bytes(900, k++), payload);
            }
        }
        assertTrue(c.isOpen());
    }

    private static int dataMessages(List<byte[]> got) {
        int n = 0;
        for (byte[] m : got) {
            if (m.length > 24) {
                n++;
            }
        }
        return n;
    }

    @Test
    void peerLesson4_keepaliveRequestsDuringAFragmentedSendDoNotInterleave() throws Exception {
        CompletableFuture<SmbDirectConnection> f = clientAgainstRawServer();
        Connection c = (Connection) f.join();
        byte[] big = Harness.bytes(30000, 7);
        c.send(ByteBuffer.wrap(big), (m, x) -> { });
        pair.run();
        for (int i = 0; i < 40 && raw.received().size() < 40; i++) {
            raw.send(bytes(Harness.dt(10, 2, 1, 0, new byte[0]))); // RESPONSE_REQUESTED plus 2 credits
            pair.run();
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        boolean inMessage = false;
        for (byte[] m : raw.received().subList(1, raw.received().size())) {
            ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
            long len = DataTransfer.dataLength(b, 0);
            if (inMessage) {
                assertTrue(len > 0, "no empty message between the fragments of one message");
            }
            out.write(m, (int) DataTransfer.dataOffset(b, 0), (int) len);
            inMessage = DataTransfer.remainingDataLength(b, 0) > 0;
        }
        assertFalse(inMessage);
        assertArrayEquals(big, out.toByteArray(), "byte-exact at the peer");
        assertTrue(c.isOpen());
    }
}
