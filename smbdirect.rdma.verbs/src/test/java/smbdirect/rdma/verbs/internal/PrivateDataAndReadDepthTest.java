package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.TransportType;

/**
 * What a backend with private data, IRD/ORD negotiation and IPv6 (rdma-core) lets the provider do,
 * and that the provider still works around a backend without them (DiSNI 2.0): [MS-SMBD] 6.1's
 * IRD/ORD header travels on connect, accept and reject in both roles.
 */
class PrivateDataAndReadDepthTest {

    static final VerbsBackend.Features FULL = new VerbsBackend.Features("rdma-core", true, true, true);
    /** A device as rxe reports itself, with a small max_qp_init_rd_atom. */
    static final DeviceAttributes DEVICE = new DeviceAttributes("rxe0", TransportType.ROCE, 1L << 40, 512, 32, 8192, 32,
            4, DeviceAttributes.MEM_MGT_EXTENSIONS, "", DeviceAttributes.PORT_ACTIVE, 3, 1L << 31, 2);

    private final FakeBackend backend = new FakeBackend();
    private final RecordingHandler handler = new RecordingHandler();

    private Harness harness(TransportType transport, DeviceAttributes device) {
        backend.features = FULL;
        return new Harness(VerbsSettings.defaults(), backend, transport, device);
    }

    private static ByteBuffer bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) values[i];
        }
        return ByteBuffer.wrap(b);
    }

    @Test
    void capabilitiesAreTheConfiguredLimitsBoundedByTheDevice() {
        RdmaCapabilities caps = harness(TransportType.ROCE, DEVICE).provider.capabilities();
        assertEquals(512, caps.maxSendWorkRequests(), "max_qp_wr below the configured 1024");
        assertEquals(512, caps.maxReceiveWorkRequests());
        assertEquals(16, caps.maxInboundReadDepth(), "the configured maxReadDepth below max_qp_rd_atom 32");
        assertEquals(4, caps.maxOutboundReadDepth(), "max_qp_init_rd_atom");
        assertEquals(1 << 30, caps.maxMessageSize(), "the configured 1 GiB below max_msg_sz 2 GiB");
        assertEquals(1L << 30, caps.maxRegionSize());
        assertTrue(caps.sendWithInvalidate(), "posting it is the device's: memory management extensions");
        assertFalse(harness(TransportType.ROCE, DEVICE).provider.remoteInvalidation(),
                "a peer's, without windows: off unless configured");
        VerbsSettings d = VerbsSettings.defaults();
        VerbsSettings withInvalidate = new VerbsSettings("", "", "AUTO", d.cqSize(), d.maxSendWorkRequests(),
                d.maxReceiveWorkRequests(), d.maxMessageSize(), d.maxReadDepth(), d.maxRegionSize(), false,
                d.pollBatch(), d.eventTimeoutMillis(), d.resolveTimeoutMillis(), d.flushTimeoutMillis(), 6, 0, 128, true);
        assertTrue(withInvalidate.capabilities(DEVICE).sendWithInvalidate());
        assertTrue(withInvalidate.remoteInvalidation(DEVICE));
        DeviceAttributes noExtensions = new DeviceAttributes("x", TransportType.ROCE, 1L << 40, 512, 32, 8192, 32, 4, 0,
                "", 4, 3, 0, 2);
        assertFalse(withInvalidate.capabilities(noExtensions).sendWithInvalidate(),
                "Send with Invalidate needs the memory management extensions");
        assertFalse(withInvalidate.remoteInvalidation(noExtensions));
        assertEquals(1 << 30, withInvalidate.capabilities(noExtensions).maxMessageSize(), "max_msg_sz 0: not bounded");
    }

    @Test
    void queueDepthsBeyondTheDevicesMaxQpWrAreRefusedNamingIt() {
        Harness h = harness(TransportType.ROCE, DEVICE);
        RdmaException e = assertThrows(RdmaException.class,
                () -> h.provider.createEndpoint(new EndpointSettings(600, 8), handler));
        assertTrue(e.getMessage().contains("max_qp_wr"), e.getMessage());
    }

    @Test
    void connectCarriesPrivateDataAndTheIrdOrdBoundedByTheDevice() throws Exception {
        Harness h = harness(TransportType.ROCE, DEVICE);
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        FakeBackend.FakeCmId id = (FakeBackend.FakeCmId) ep.cmId();
        ep.connect(Harness.PEER, new ConnectParameters(bytes(1, 2, 3), 8, 8));
        backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, id);
        backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, id);
        h.pump();
        assertEquals(bytes(1, 2, 3), id.connectPrivateData);
        assertEquals(8, id.responderResources, "IRD 8 (device max_qp_rd_atom 32)");
        assertEquals(4, id.initiatorDepth, "ORD 8 cut to max_qp_init_rd_atom 4");
        // the accept's answer, as the CM reports it to us: initiator_depth = the peer's IRD
        backend.event(new VerbsBackend.CmEvent(VerbsConstants.CM_EVENT_ESTABLISHED, null, id, 0,
                new byte[] {7, 8, 9}, 2, 3));
        h.pump();
        assertArrayEquals(new byte[] {7, 8, 9}, handler.establishedData, "the accept's private data");
        assertEquals(3, ep.outboundReadDepth(), "ORD bounded by the peer's IRD");
        assertEquals(2, ep.inboundReadDepth(), "IRD bounded by the peer's ORD");
    }

    @Test
    void withoutReadDepthNegotiationTheDepthsStayAsOfferedAndAcceptDataIsNotSurfaced() throws Exception {
        Harness h = new Harness();
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.connect(Harness.PEER, new ConnectParameters(null, 8, 8));
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        h.backend.event(new VerbsBackend.CmEvent(VerbsConstants.CM_EVENT_ESTABLISHED, null, ep.cmId(), 0,
                new byte[] {7}, 2, 3));
        h.pump();
        assertEquals(8, ep.outboundReadDepth());
        assertArrayEquals(new byte[0], handler.establishedData);
    }

    private RdmaConnectRequest request(Harness h, FakeBackend.FakeCmId incoming, byte[] data, int responder,
            int initiator) throws Exception {
        List<RdmaConnectRequest> requests = new ArrayList<>();
        h.provider.listen(FakeBackend.ipv4("192.0.2.10", 5445), Harness.collecting(requests, (cause, detail) -> {
        }));
        CmIdHolder.listen = backend.listening.get(backend.listening.size() - 1);
        backend.event(new VerbsBackend.CmEvent(VerbsConstants.CM_EVENT_CONNECT_REQUEST, CmIdHolder.listen, incoming, 0,
                data, responder, initiator));
        h.pump();
        assertEquals(1, requests.size());
        return requests.get(0);
    }

    private static final class CmIdHolder {
        static VerbsBackend.CmId listen;
    }

    @Test
    void theRequestCarriesThePeersPrivateDataAndIrdOrdAndAcceptSendsOursWithinThem() throws Exception {
        Harness h = harness(TransportType.IWARP, DEVICE);
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(50);
        // [MS-SMBD] 6.1: IRD 16, ORD 16 as the requester's header; the CM: responder_resources = its ORD 6,
        // initiator_depth = its IRD 2
        byte[] header = {0, 16, 0, 16, 0, 0, 0, 0};
        RdmaConnectRequest request = request(h, incoming, header, 6, 2);
        ByteBuffer data = request.privateData();
        assertTrue(data.isReadOnly());
        byte[] got = new byte[data.remaining()];
        data.get(got);
        assertArrayEquals(header, got);
        assertEquals(2, request.peerInboundReadDepth());
        assertEquals(6, request.peerOutboundReadDepth());
        RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(4, 4), handler);
        ep.accept(new ConnectParameters(bytes(0, 4, 0, 4, 0, 0, 0, 0), 4, 4));
        assertTrue(incoming.accepted);
        assertEquals(bytes(0, 4, 0, 4, 0, 0, 0, 0), incoming.acceptPrivateData);
        assertEquals(4, incoming.responderResources, "IRD as offered");
        assertEquals(2, incoming.initiatorDepth, "ORD at most the requester's IRD (rdma_accept(3))");
    }

    @Test
    void acceptPrivateDataBeyondTheInfinibandLimitIsRefused() throws Exception {
        Harness h = harness(TransportType.ROCE, DEVICE);
        RdmaConnectRequest request = request(h, new FakeBackend.FakeCmId(51), new byte[0], 0, 0);
        RdmaEndpoint ep = request.createEndpoint(new EndpointSettings(4, 4), handler);
        RdmaException e = assertThrows(RdmaException.class,
                () -> ep.accept(new ConnectParameters(ByteBuffer.allocate(197), 1, 1)));
        assertTrue(e.getMessage().contains("196"), e.getMessage());
    }

    @Test
    void rejectSendsItsPrivateDataThenDestroysTheRequest() throws Exception {
        Harness h = harness(TransportType.IWARP, DEVICE);
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(52);
        RdmaConnectRequest request = request(h, incoming, new byte[0], 0, 0);
        request.reject(bytes(42));
        assertEquals(bytes(42), incoming.rejectPrivateData);
        assertTrue(backend.calls.indexOf("reject") < backend.calls.lastIndexOf("destroyId"), backend.calls.toString());
        assertTrue(backend.destroyedIds.contains(incoming));
    }

    @Test
    void rejectOfACreatedEndpointSendsItsPrivateDataAndReleasesTheEndpoint() throws Exception {
        Harness h = harness(TransportType.IWARP, DEVICE);
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(53);
        RdmaConnectRequest request = request(h, incoming, new byte[0], 0, 0);
        RdmaEndpoint created = request.createEndpoint(new EndpointSettings(2, 2), handler);
        request.reject(bytes(1, 2));
        assertEquals(bytes(1, 2), incoming.rejectPrivateData);
        assertTrue(backend.destroyedIds.contains(incoming));
        assertTrue(backend.destroyedQps.contains(Harness.qp((VerbsEndpoint) created)));
        assertTrue(handler.events.isEmpty(), handler.events.toString());
    }

    @Test
    void withoutRdmaRejectTheRequestIsRejectedByDestroyingItsIdentifier() throws Exception {
        Harness h = new Harness(VerbsSettings.defaults(), backend);
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(54);
        RdmaConnectRequest request = request(h, incoming, new byte[] {1}, 3, 3);
        request.reject(bytes(42));
        assertFalse(backend.calls.contains("reject"));
        assertNull(incoming.rejectPrivateData);
        assertTrue(backend.destroyedIds.contains(incoming));
    }

    private VerbsEndpoint connecting(Harness h, int receives) throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        for (int i = 0; i < receives; i++) {
            MemoryRegion r = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
            ep.postReceive(r, 0, 64, i + 1);
        }
        ep.connect(Harness.PEER, new ConnectParameters(null, 4, 4));
        backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        h.pump();
        return ep;
    }

    @Test
    void aRejectsPrivateDataAndReasonReachOnDisconnected() throws Exception {
        Harness h = harness(TransportType.ROCE, DEVICE);
        VerbsEndpoint ep = connecting(h, 1);
        backend.event(new VerbsBackend.CmEvent(VerbsConstants.CM_EVENT_REJECTED, null, ep.cmId(),
                VerbsConstants.IB_CM_REJ_CONSUMER_DEFINED, new byte[] {42, 0, 0}, 0, 0));
        h.pump();
        h.advanceMillis(h.settings.flushTimeoutMillis()); // the fake device flushes nothing by itself
        h.pump();
        assertEquals(DisconnectCause.REJECTED, handler.cause);
        assertArrayEquals(new byte[] {42, 0, 0}, handler.disconnectData);
        assertTrue(handler.detail.contains("status 28"), handler.detail);
        assertEquals(CompletionStatus.FLUSHED, handler.completions.get(0).status());
    }

    @Test
    void anInfinibandRejectForAMissingListenerIsUnreachable() throws Exception {
        Harness h = harness(TransportType.ROCE, DEVICE);
        VerbsEndpoint ep = connecting(h, 0);
        backend.event(new VerbsBackend.CmEvent(VerbsConstants.CM_EVENT_REJECTED, null, ep.cmId(),
                VerbsConstants.IB_CM_REJ_INVALID_SERVICE_ID, new byte[148], 0, 0));
        h.pump();
        assertEquals(DisconnectCause.UNREACHABLE, handler.cause);
        assertTrue(handler.detail.contains("no listener"), handler.detail);
        assertArrayEquals(new byte[0], handler.disconnectData, "only REJECTED hands over private data");
    }

    @Test
    void onIwarpEveryRejectStaysRejected() throws Exception {
        Harness h = harness(TransportType.IWARP, DEVICE);
        VerbsEndpoint ep = connecting(h, 0);
        backend.event(new VerbsBackend.CmEvent(VerbsConstants.CM_EVENT_REJECTED, null, ep.cmId(),
                -NativeCallException.ECONNREFUSED, new byte[0], 0, 0));
        h.pump();
        assertEquals(DisconnectCause.REJECTED, handler.cause);
    }

    @Test
    void anIwarpConnectRefusedAtOnceIsUnreachable() throws Exception {
        Harness h = harness(TransportType.IWARP, DEVICE);
        FakeBackend refusing = new FakeBackend() {
            @Override
            public synchronized void connect(CmId id, CmConnParam p) throws java.io.IOException {
                throw new NativeCallException("rdma_connect", NativeCallException.ECONNREFUSED,
                        "ECONNREFUSED (Connection refused)", "");
            }
        };
        refusing.features = FULL;
        Harness r = new Harness(VerbsSettings.defaults(), refusing, TransportType.IWARP, DEVICE);
        VerbsEndpoint ep = r.activeEndpoint(handler, 4, 4);
        ep.connect(Harness.PEER, new ConnectParameters(null, 4, 4));
        refusing.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        refusing.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        r.pump();
        assertEquals(DisconnectCause.UNREACHABLE, handler.cause);
        assertTrue(handler.detail.startsWith("rdma_connect failed: errno 111"), handler.detail);
        assertFalse(h.provider.remoteInvalidation(), "no windows: a peer may not invalidate our memory");
    }

    @Test
    void ipv6IsAcceptedWhereTheBackendHasIt() throws Exception {
        Harness h = harness(TransportType.ROCE, DEVICE);
        InetSocketAddress v6 = new InetSocketAddress("2001:db8::7", 5445);
        h.provider.listen(v6, new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
            }
        });
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.connect(v6, new ConnectParameters(null, 1, 1));
        assertEquals(v6, ((FakeBackend.FakeCmId) ep.cmId()).peer);
        Harness disni = new Harness();
        RdmaException e = assertThrows(RdmaException.class, () -> disni.activeEndpoint(handler, 4, 4)
                .connect(v6, new ConnectParameters(null, 1, 1)));
        assertTrue(e.getMessage().contains("IPv6 is not supported"), e.getMessage());
    }

    @Test
    void describeSettingsNamesTheBackendAndTheDevice() {
        String text = harness(TransportType.ROCE, DEVICE).provider.describeSettings();
        assertTrue(text.startsWith("backend rdma-core; device rxe0 (ROCE"), text);
        assertTrue(text.contains("max_qp_init_rd_atom 4"), text);
    }
}
