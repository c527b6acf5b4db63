package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.EnumSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;
import smbdirect.rdma.iwarp.internal.wire.Hex;

/**
 * The provider as MPA initiator against a hand-driven responder (RFC 5044 §7.1, RFC 6581 §5;
 * iwarp.md §2.4 and the initiator table of §7).
 */
class MpaInitiatorTest {

    /** [MS-SMBD] 6.1's 8-byte IRD/ORD header as the engine sends it (big-endian, IRD 8, ORD 8). */
    private static final byte[] SMBD_HEADER = Hex.bytes("00 00 00 08 00 00 00 08");

    private ServerSocket server;
    private Rig rig;

    @BeforeEach
    void listen() throws Exception {
        server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void close() throws Exception {
        server.close();
        if (rig != null) {
            rig.close();
        }
    }

    private InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    private Rig.Side connect(IwarpSettings settings, int receives) throws Exception {
        rig = new Rig(settings);
        return rig.connect(address(), receives, 64, Rig.params(8, 8, SMBD_HEADER));
    }

    @Test
    void rfc6581_requestCarriesCrcTheWordAndThenTheMsSmbdHeaderAsLinuxExpects() throws Exception {
        connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            RawPeer.Frame request = peer.readFrame();
            assertEquals(RawPeer.KEY_REQ, request.key());
            assertEquals(0x50, request.flags(), "C and the RFC 6581 enhanced bit, no M");
            assertEquals(2, request.revision());
            assertEquals("00 08 00 08 00 00 00 08 00 00 00 08", Hex.of(ByteBuffer.wrap(request.pd()), 0, 12),
                    "IRD 8 / ORD 8 word, then the [MS-SMBD] 6.1 header");
        }
    }

    @Test
    void rfc5044_7_1_revisionOneRequestHasNoWord() throws Exception {
        connect(IwarpSettings.builder().mpaRevision(1).crc(false).build(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            RawPeer.Frame request = peer.readFrame();
            assertEquals(0x00, request.flags());
            assertEquals(1, request.revision());
            assertArrayEquals(SMBD_HEADER, request.pd());
        }
    }

    @Test
    void siwsReplyEstablishesAndBothDirectionsCarryCrc() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.crc = true;
            // a siw Reply to a C=1 Request (PROOF.md b2), with 8 bytes of ULP private data
            peer.send(RawPeer.concat(Hex.bytes("4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 50 02 00 0c"
                    + " 00 01 00 01"), SMBD_HEADER));
            assertArrayEquals(SMBD_HEADER, client.events.awaitEstablished(), "the word is not the ULP's");
            assertEquals(1, client.endpoint.outboundReadDepth(), "ORD bounded by the responder's IRD 1");
            assertEquals(8, client.endpoint.inboundReadDepth());
            MemoryRegion src = client.endpoint.register(ByteBuffer.allocateDirect(4).put(new byte[] {1, 2, 3, 4}).flip(),
                    EnumSet.noneOf(MemoryAccess.class));
            client.endpoint.postSend(src, 0, 4, 1);
            assertEquals("41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 01 02 03 04",
                    Hex.of(ByteBuffer.wrap(peer.readFpdu()), 0, 22), "Send QN 0 MSN 1 MO 0 with a good CRC");
            peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[] {9, 8, 7})));
            client.events.await("the receive", () -> client.events.completions().size() == 2);
            assertArrayEquals(new byte[] {9, 8, 7}, client.received(0, 3));
        }
    }

    @Test
    void aReplyWithoutCrcToOurCrcRequestStillMeansCrcAsEitherSideAsked() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x10, 2, RawPeer.word(4, 4)));
            client.events.awaitEstablished();
            peer.crc = true;
            peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[] {5})));
            client.events.awaitCompletions(1);
            assertEquals(CompletionStatus.SUCCESS, client.events.completions().get(0).status());
        }
    }

    @Test
    void rfc5044_7_1_rejectEndsAsRejectedWithThePeersPrivateData() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 2);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x70, 2, RawPeer.concat(RawPeer.word(0, 0), new byte[] {42})));
            assertEquals(DisconnectCause.REJECTED, client.events.awaitDisconnected());
            assertArrayEquals(new byte[] {42}, client.events.disconnectData());
            assertEquals(2, client.events.completions().size(), "both receives flushed");
            assertTrue(client.events.completions().stream().allMatch(c -> c.status() == CompletionStatus.FLUSHED));
        }
    }

    @Test
    void aRevisionOneReplyToOurRevisionTwoRequestIsAccepted() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x40, 1, SMBD_HEADER));
            assertArrayEquals(SMBD_HEADER, client.events.awaitEstablished(), "no word: all of it is the ULP's");
            assertEquals(8, client.endpoint.outboundReadDepth(), "the ULP's own values");
        }
    }

    @Test
    void rfc5044_7_1_anAnswerThatIsNotAReplyGetsTerminateInvalidFrame() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x40, 2, RawPeer.word(1, 1)));
            assertEquals(DisconnectCause.CONNECT_ERROR, client.events.awaitDisconnected());
            // siw sends it on the raw socket, CRC field 0: LLP / MPA / 0x04
            assertEquals("41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00 20 04 00 00",
                    Hex.of(ByteBuffer.wrap(peer.readFpdu()), 0, 22));
            assertTrue(peer.closedByPeer());
        }
    }

    @Test
    void noReplyWithinTheReplyTimeoutIsAConnectError() throws Exception {
        Rig.Side client = connect(IwarpSettings.builder().mpaReplyTimeoutMillis(200).build(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            assertEquals(DisconnectCause.CONNECT_ERROR, client.events.awaitDisconnected());
            assertTrue(client.events.detail().contains("within 200 ms"), client.events.detail());
            assertTrue(peer.closedByPeer());
        }
    }

    @Test
    void theResponderClosingBeforeItsReplyIsAConnectError() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(Hex.bytes("4d 50 41 20 49 44"));
        }
        assertEquals(DisconnectCause.CONNECT_ERROR, client.events.awaitDisconnected());
    }

    @Test
    void rfc5044_5_aReplyDemandingMarkersIsRefused() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0xD0, 2, RawPeer.word(1, 1)));
            assertEquals(DisconnectCause.CONNECT_ERROR, client.events.awaitDisconnected());
            assertTrue(client.events.detail().contains("markers"), client.events.detail());
        }
    }

    @Test
    void rfc6581_5_peerToPeerWithWriteRtrSendsSiwsRtrFrameFirst() throws Exception {
        Rig.Side client = connect(IwarpSettings.builder().peerToPeer(RtrMode.WRITE_OR_READ).build(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            RawPeer.Frame request = peer.readFrame();
            assertEquals(0x8008, request.word(0), "A and IRD 8");
            assertEquals(0xC008, request.word(1), "C and D offered, ORD 8");
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x50, 2, RawPeer.word(0x8008, 0x8008)));
            client.events.awaitEstablished();
            assertEquals("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f",
                    Hex.of(ByteBuffer.wrap(peer.read(20)), 0, 20), "the Write RTR, byte for byte as siw's");
        }
    }

    @Test
    void rfc6581_5_readRtrTakesAnOrdSlotAndItsResponseCompletesNothing() throws Exception {
        Rig.Side client = connect(IwarpSettings.builder().peerToPeer(RtrMode.READ).build(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.crc = true;
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x50, 2, RawPeer.word(0x8004, 0x4004)));
            client.events.awaitEstablished();
            assertEquals("41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00" // untagged header, QN 1, MSN 1
                    + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00" // sink STag 0, sink TO 0, size 0
                    + " 00 00 00 01 00 00 00 00 00 00 00 00", // source STag 1, source TO 0
                    Hex.of(ByteBuffer.wrap(peer.readFpdu()), 0, 46),
                    "Read Request MSN 1: sink STag 0 TO 0, size 0, source STag 1 TO 0");
            peer.send(peer.fpdu(RawPeer.tagged(0xC1, 0x42, 0, 0, new byte[0])));
            peer.send(peer.fpdu(RawPeer.send(1, 0, true, new byte[] {1})));
            client.events.awaitCompletions(1);
            assertEquals(CompletionStatus.SUCCESS, client.events.completions().get(0).status());
            assertEquals(1, client.events.completions().size(), "the RTR's response completed nothing");
        }
    }

    @Test
    void rfc6581_5_aReplyThatPicksNoOfferedRtrGetsTerminateNoMatchingRtr() throws Exception {
        Rig.Side client = connect(IwarpSettings.builder().peerToPeer(RtrMode.WRITE).build(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x10, 2, RawPeer.word(0x0008, 0x0008)));
            assertEquals(DisconnectCause.CONNECT_ERROR, client.events.awaitDisconnected());
            byte[] term = peer.readFpdu();
            assertEquals("20 07 00 00", Hex.of(ByteBuffer.wrap(term), 18, 4), "LLP / MPA / 0x07");
        }
    }

    @Test
    void rfc6581_aResponderOrdBeyondOurIrdLimitGetsTerminateInsufficientIrd() throws Exception {
        Rig.Side client = connect(IwarpSettings.builder().maxReadDepth(16).build(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x10, 2, RawPeer.word(8, 100)));
            assertEquals(DisconnectCause.CONNECT_ERROR, client.events.awaitDisconnected());
            assertEquals("20 06 00 00", Hex.of(ByteBuffer.wrap(peer.readFpdu()), 18, 4), "LLP / MPA / 0x06");
        }
    }

    @Test
    void aResponderOrdAboveOurIrdButWithinTheLimitRaisesOurIrdAsSiwDoes() throws Exception {
        Rig.Side client = connect(IwarpSettings.defaults(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x10, 2, RawPeer.word(8, 12)));
            client.events.awaitEstablished();
            assertEquals(12, client.endpoint.inboundReadDepth());
        }
    }

    @Test
    void theFirstFpduWaitsTheConfiguredDelayAfterTheReplyForSiwsAcceptRace() throws Exception {
        Rig.Side client = connect(IwarpSettings.builder().firstFpduDelayMillis(400).build(), 1);
        try (RawPeer peer = RawPeer.accept(server)) {
            peer.readFrame();
            peer.send(RawPeer.frame(RawPeer.KEY_REP, 0x50, 2, RawPeer.word(4, 4)));
            client.events.awaitEstablished();
            MemoryRegion src = client.endpoint.register(ByteBuffer.allocateDirect(4), EnumSet.noneOf(MemoryAccess.class));
            client.endpoint.postSend(src, 0, 4, 1);
            long posted = System.nanoTime();
            peer.crc = true;
            peer.readFpdu();
            long waited = (System.nanoTime() - posted) / 1_000_000;
            assertTrue(waited >= 300, "the first FPDU came after " + waited + " ms");
        }
    }

    @Test
    void connectToAPortWithoutListenerIsUnreachable() throws Exception {
        int port = server.getLocalPort();
        server.close();
        rig = new Rig(IwarpSettings.defaults());
        Rig.Side client = rig.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1, 64,
                Rig.params(1, 1));
        assertEquals(DisconnectCause.UNREACHABLE, client.events.awaitDisconnected());
    }
}
