package smbdirect.rdma.iwarp.internal.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.internal.wire.Hex;

/**
 * The provider as MPA responder against hand-written Requests (RFC 5044 §7.1, RFC 6581 §5;
 * iwarp.md §2.4 and the responder table of §7).
 */
class MpaResponderTest {

    private Rig rig;

    @AfterEach
    void close() throws Exception {
        if (rig != null) {
            rig.close();
        }
    }

    private RawPeer initiator(IwarpSettings settings) throws Exception {
        rig = new Rig(settings);
        return RawPeer.connect(rig.listen());
    }

    @Test
    void rfc6581_5_enhancedRequestIsAnsweredWithTheNegotiatedWordAndCrc() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.sendHex("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 50 02 00 04 00 10 00 10");
            RdmaConnectRequest request = rig.nextRequest();
            assertEquals(16, request.peerInboundReadDepth());
            assertEquals(16, request.peerOutboundReadDepth());
            assertEquals(0, request.privateData().remaining(), "the RFC 6581 word is not ULP private data");
            assertTrue(request.privateData().isReadOnly());
            assertEquals(peer.localAddress(), request.peerAddress());
            RdmaEndpoint ep = rig.track(request.createEndpoint(new EndpointSettings(4, 4), new Events()));
            ep.accept(Rig.params(8, 4, (byte) 1, (byte) 2, (byte) 3));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(RawPeer.KEY_REP, reply.key());
            assertEquals(0x50, reply.flags(), "C echoed, enhanced");
            assertEquals(2, reply.revision());
            // responder IRD = min(ours 8, initiator ORD 16), ORD = min(ours 4, initiator IRD 16)
            assertEquals("00 08 00 04 01 02 03", Hex.of(ByteBuffer.wrap(reply.pd()), 0, reply.pd().length));
        }
    }

    @Test
    void linuxCifsRequestWithTheMsSmbdHeaderAfterTheWordIsAccepted() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            // PROOF.md d3, byte for byte: IRD 32, ORD 0, then cifs's little-endian [MS-SMBD] 6.1 header
            peer.sendHex("4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 02 00 0c"
                    + " 00 20 00 00 20 00 00 00 01 00 00 00");
            RdmaConnectRequest request = rig.nextRequest();
            assertEquals(32, request.peerInboundReadDepth());
            assertEquals(0, request.peerOutboundReadDepth());
            byte[] ulp = new byte[request.privateData().remaining()];
            request.privateData().get(ulp);
            assertEquals("20 00 00 00 01 00 00 00", Hex.of(ByteBuffer.wrap(ulp), 0, ulp.length));
            RdmaEndpoint ep = rig.track(request.createEndpoint(new EndpointSettings(4, 4), new Events()));
            ep.accept(Rig.params(16, 8));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(0x50, reply.flags(), "we ask for CRC (default); the initiator then uses it too");
            assertEquals(0, reply.word(0), "our IRD is bounded by the initiator's ORD 0");
            assertEquals(8, reply.word(1));
        }
    }

    @Test
    void rfc5044_7_1_revisionOneRequestGetsARevisionOneReplyWithoutWord() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x40, 1, Hex.bytes("00 00 00 10 00 00 00 08")));
            RdmaConnectRequest request = rig.nextRequest();
            assertEquals(0, request.peerInboundReadDepth(), "no RFC 6581 word: unknown");
            assertEquals(8, request.privateData().remaining(), "all private data is the ULP's");
            Events events = new Events();
            RdmaEndpoint ep = rig.track(request.createEndpoint(new EndpointSettings(4, 4), events));
            ep.accept(Rig.params(4, 4, Hex.bytes("00 00 00 04 00 00 00 04")));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(1, reply.revision());
            assertEquals(0x40, reply.flags());
            assertArrayEquals(Hex.bytes("00 00 00 04 00 00 00 04"), reply.pd());
            events.awaitEstablished();
            assertEquals(4, ep.inboundReadDepth(), "without the word the ULP's values stand");
        }
    }

    @Test
    void rfc5044_5_markersAreRefusedWithAReject() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0xD0, 2, RawPeer.word(1, 1)));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(RawPeer.KEY_REP, reply.key());
            assertEquals(0x70, reply.flags(), "R set, M cleared (as siw answers it)");
            assertTrue(peer.closedByPeer());
            assertTrue(rig.requests.isEmpty(), "the consumer never sees it");
        }
    }

    @Test
    void rfc5044_7_1_privateDataAboveFiveHundredTwelveBytesIsRefused() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, new byte[513]));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(0x20, reply.flags() & 0x20, "R");
            assertTrue(peer.closedByPeer());
            assertTrue(rig.requests.isEmpty());
        }
    }

    @Test
    void upToFiveHundredTwelveBytesOfPrivateDataAreAccepted() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            byte[] pd = new byte[512];
            pd[3] = 1;
            pd[511] = 9;
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, pd));
            RdmaConnectRequest request = rig.nextRequest();
            assertEquals(508, request.privateData().remaining());
            assertEquals(9, request.privateData().get(507));
            request.reject(null);
            assertEquals(0x20, peer.readFrame().flags() & 0x20);
        }
    }

    @Test
    void somethingThatIsNotAnMpaRequestIsClosedWithoutAReply() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertTrue(peer.closedByPeer());
            assertTrue(rig.requests.isEmpty());
        }
    }

    @Test
    void rfc6581_enhancedRequestWithoutTheWordIsRefused() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, new byte[2]));
            assertEquals(0x20, peer.readFrame().flags() & 0x20);
            assertTrue(peer.closedByPeer());
        }
    }

    @Test
    void revisionAboveTwoIsRefusedWithOurRevision() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x00, 3, new byte[0]));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(0x20, reply.flags() & 0x20);
            assertEquals(2, reply.revision());
            assertTrue(peer.closedByPeer());
        }
    }

    @Test
    void rfc5044_7_1_2_bytesSentBeforeOurReplyAreRefused() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            byte[] request = RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, RawPeer.word(1, 1));
            peer.send(RawPeer.concat(request, peer.fpdu(RawPeer.send(1, 0, true, new byte[4]))));
            assertEquals(0x20, peer.readFrame().flags() & 0x20);
            assertTrue(peer.closedByPeer());
            assertTrue(rig.requests.isEmpty());
        }
    }

    @Test
    void aConnectionThatSendsNoRequestIsClosedAfterTheRequestTimeout() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.builder().mpaRequestTimeoutMillis(200).build())) {
            long start = System.nanoTime();
            assertTrue(peer.closedByPeer());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis >= 150 && millis < 5000, "closed after " + millis + " ms");
            assertEquals(0, rig.provider.statistics().pendingRequests());
        }
    }

    @Test
    void rejectSendsAReplyWithRAndTheConsumersPrivateDataAfterTheWord() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, RawPeer.word(4, 4)));
            RdmaConnectRequest request = rig.nextRequest();
            RdmaEndpoint created = rig.track(request.createEndpoint(new EndpointSettings(4, 4), new Events()));
            request.reject(ByteBuffer.wrap(new byte[] {42, 43}));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(0x70, reply.flags(), "C R E");
            assertEquals("00 00 00 00 2a 2b", Hex.of(ByteBuffer.wrap(reply.pd()), 0, reply.pd().length));
            assertTrue(peer.closedByPeer());
            assertThrows(RdmaException.class, () -> created.accept(Rig.params(1, 1)));
        }
    }

    @Test
    void rfc6581_5_peerToPeerRequestGetsWriteRtrAndTheResponderWaitsForIt() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.crc = true;
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, RawPeer.word(0x8010, 0xC010)));
            Rig.Side server = rig.accept(1, 64, Rig.params(16, 16));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals("80 10 80 10", Hex.of(ByteBuffer.wrap(reply.pd()), 0, 4), "A, and C (Write RTR) chosen");
            server.events.awaitEstablished();
            MemoryRegion src = server.endpoint.register(ByteBuffer.allocateDirect(8), EnumSet.noneOf(MemoryAccess.class));
            server.endpoint.postSend(src, 0, 8, 7);
            assertTrue(peer.silentFor(300), "RFC 5044 §7.1.2: the responder sends nothing before the first FPDU");
            peer.sendHex("00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 eb d3 4c 5f"); // siw's Write RTR
            byte[] send = peer.readFpdu();
            assertEquals(0x43, send[1] & 0xFF, "then the queued Send");
            assertEquals(26, send.length);
            server.events.awaitCompletions(1);
            assertEquals(WorkRequestType.SEND, server.events.completions().get(0).type());
        }
    }

    @Test
    void rfc6581_5_readRtrIsAnsweredWithAZeroLengthReadResponse() throws Exception {
        try (RawPeer peer = initiator(IwarpSettings.defaults())) {
            peer.crc = true;
            peer.send(RawPeer.frame(RawPeer.KEY_REQ, 0x50, 2, RawPeer.word(0x8004, 0x4004)));
            Rig.Side server = rig.accept(1, 64, Rig.params(4, 4));
            RawPeer.Frame reply = peer.readFrame();
            assertEquals(0x8004, reply.word(0));
            assertEquals(0x4004, reply.word(1), "D (Read RTR): the only one offered");
            server.events.awaitEstablished();
            peer.send(peer.fpdu(RawPeer.readRequest(1, 0, 0, 0, 1, 0)));
            assertEquals("c1 42 00 00 00 00 00 00 00 00 00 00 00 00",
                    Hex.of(ByteBuffer.wrap(peer.readFpdu()), 0, 14), "zero-length Read Response to STag 0 TO 0");
        }
    }

    @Test
    void connectionsBeyondTheCapAreClosedAtOnce() throws Exception {
        rig = new Rig(IwarpSettings.builder().maxConnections(1).build());
        InetSocketAddress address = rig.listen();
        try (RawPeer first = RawPeer.connect(address)) {
            first.send(RawPeer.frame(RawPeer.KEY_REQ, 0x10, 2, RawPeer.word(1, 1)));
            RdmaConnectRequest request = rig.nextRequest();
            try (RawPeer second = RawPeer.connect(address)) {
                assertTrue(second.closedByPeer(), "over the cap of 1");
            }
            request.reject(null);
            assertEquals(0x20, first.readFrame().flags() & 0x20, "the first connection is served");
        }
    }

    @Test
    void listeningOnAnAddressTheConfigurationDoesNotAllowIsRefused() throws Exception {
        rig = new Rig(IwarpSettings.defaults());
        RdmaException e = assertThrows(RdmaException.class, () -> rig.provider.listen(
                new InetSocketAddress("0.0.0.0", 0), new smbdirect.api.rdma.RdmaListenHandler() {
                    @Override
                    public void onConnectRequest(RdmaConnectRequest request) {
                    }

                    @Override
                    public void onListenerFailed(smbdirect.api.rdma.DisconnectCause cause, String detail) {
                    }
                }));
        assertTrue(e.getMessage().contains("listenAddresses"), e.getMessage());
    }
}
