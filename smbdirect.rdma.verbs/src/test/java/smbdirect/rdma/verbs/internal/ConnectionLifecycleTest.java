package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
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
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;

/** RDMA CM flows and the rule that onDisconnected is the last callback, after every completion. */
class ConnectionLifecycleTest {

    private final Harness h = new Harness();
    private final RecordingHandler handler = new RecordingHandler();

    @Test
    void activeConnectResolvesAddressThenRouteThenConnectsWithPrivateData() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        FakeBackend.FakeCmId id = (FakeBackend.FakeCmId) ep.cmId();
        assertEquals(Harness.BIND.getAddress(), id.bound.getAddress(), "bound to the RDMA interface before the QP");
        assertTrue(h.backend.calls.indexOf("bindAddr") < h.backend.calls.indexOf("createQp"));
        byte[] header = {0, 0, 0, 16, 0, 0, 0, 16};
        ep.connect(Harness.PEER, new ConnectParameters(ByteBuffer.wrap(header), 16, 16));
        assertEquals(Harness.PEER, id.peer);
        assertEquals(VerbsEndpoint.State.RESOLVING_ADDRESS, ep.state());
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, id);
        h.pump();
        assertTrue(h.backend.calls.contains("resolveRoute"));
        assertEquals(VerbsEndpoint.State.RESOLVING_ROUTE, ep.state());
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, id);
        h.pump();
        assertEquals(ByteBuffer.wrap(header), id.connectPrivateData);
        assertEquals(6, id.connectRetry);
        assertEquals(0, id.connectRnrRetry, "RNR retry 0: a Send without a posted receive fails (SPI RC semantics)");
        assertEquals(0, handler.established);
        h.backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, id);
        h.pump();
        assertEquals(1, handler.established);
        assertEquals(VerbsEndpoint.State.ESTABLISHED, ep.state());
        assertEquals(16, ep.outboundReadDepth());
    }

    @Test
    void aSuccessfulCompletionBeforeTheEstablishedEventDeliversOnEstablishedFirstAndOnlyOnce() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        Harness.postReceives(ep, 64, 1);
        ep.connect(Harness.PEER, new ConnectParameters(null, 1, 1));
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        h.pump();
        assertEquals(VerbsEndpoint.State.CONNECTING, ep.state());
        // the peer's first message lands before RDMA_CM_EVENT_ESTABLISHED is read
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 24, 0, 0);
        h.pump();
        assertEquals(VerbsEndpoint.State.ESTABLISHED, ep.state());
        assertEquals(2, handler.events.size(), handler.events.toString());
        assertEquals("established", handler.events.get(0));
        assertEquals(1L, ((RecordingHandler.Completion) handler.events.get(1)).wrId());
        h.backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, ep.cmId());
        h.pump();
        assertEquals(2, handler.events.size(), "the late ESTABLISHED event adds nothing: " + handler.events);
    }

    @Test
    void readDepthsAreCappedByTheConfiguredDeviceLimit() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.connect(Harness.PEER, new ConnectParameters(null, 200, 100));
        assertEquals(h.settings.maxReadDepth(), ep.inboundReadDepth());
        assertEquals(h.settings.maxReadDepth(), ep.outboundReadDepth());
    }

    @Test
    void ipv6PeerAndOversizedPrivateDataAreRefused() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("2001:db8::1"), 445);
        RdmaException e = assertThrows(RdmaException.class,
                () -> ep.connect(v6, new ConnectParameters(null, 1, 1)));
        assertTrue(e.getMessage().contains("IPv6"), e.getMessage());
        RdmaException big = assertThrows(RdmaException.class,
                () -> ep.connect(Harness.PEER, new ConnectParameters(ByteBuffer.allocate(57), 1, 1)));
        assertTrue(big.getMessage().contains("57"), big.getMessage());
        assertEquals(VerbsEndpoint.State.IDLE, ep.state());
    }

    @Test
    void rejectedConnectFlushesThePostedReceivesThenReportsRejected() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        Harness.postReceives(ep, 64, 1);
        ep.connect(Harness.PEER, new ConnectParameters(null, 1, 1));
        FakeBackend.FakeCmId id = (FakeBackend.FakeCmId) ep.cmId();
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, id);
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, id);
        h.backend.event(VerbsConstants.CM_EVENT_REJECTED, null, id);
        h.pump();
        assertEquals(0, handler.disconnects, "the receive is still outstanding");
        h.backend.flush(Harness.qp(ep));
        h.pump();
        assertEquals(List.of(new RecordingHandler.Completion(1L, smbdirect.api.rdma.WorkRequestType.RECEIVE,
                CompletionStatus.FLUSHED, 0, false, 0, 0), "disconnected:REJECTED"), handler.events);
    }

    @Test
    void addressErrorEndsUnreachableAndCompletesReceivesOfTheNeverConnectedQueuePair() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        Harness.postReceives(ep, 64, 1);
        ep.connect(Harness.PEER, new ConnectParameters(null, 1, 1));
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_ERROR, null, ep.cmId());
        h.pump();
        assertEquals(CompletionStatus.FLUSHED, handler.completions.get(0).status());
        assertEquals(DisconnectCause.UNREACHABLE, handler.cause);
        assertEquals("RDMA_CM_EVENT_ADDR_ERROR: address resolution of the peer failed at this side", handler.detail);
        assertEquals(0, ((FakeBackend.FakeCmId) ep.cmId()).disconnects, "nothing to disconnect before connect");
    }

    @Test
    void peerDisconnectCompletesWhatIsOutstandingAsFlushedAtOnceAndTheDevicesLateFlushesChangeNothing()
            throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = Harness.postReceives(ep, 64, 1);
        ep.postSend(region, 0, 64, 2L);
        h.backend.event(VerbsConstants.CM_EVENT_DISCONNECTED, null, ep.cmId());
        h.pump();
        assertEquals(1, ((FakeBackend.FakeCmId) ep.cmId()).disconnects, "rdma_disconnect flushes the queue pair");
        assertEquals(List.of("established", "completion:2:SEND:FLUSHED", "completion:1:RECEIVE:FLUSHED",
                "disconnected:PEER"),
                describe(handler.events), "no wait for flushes a queue pair in error may never produce");
        h.backend.flush(Harness.qp(ep));
        h.pump();
        assertEquals(4, handler.events.size(), handler.events.toString());
        assertEquals(List.of(), handler.violations);
    }

    static List<String> describe(List<Object> events) {
        List<String> out = new ArrayList<>();
        for (Object e : events) {
            out.add(e instanceof RecordingHandler.Completion c ? "completion:" + c.wrId() + ":" + c.type() + ":"
                    + c.status() : String.valueOf(e));
        }
        return out;
    }

    @Test
    void missingFlushesAreCompletedByTheProviderAfterTheFlushTimeout() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = Harness.postReceives(ep, 64, 1);
        ep.postReceive(region, 0, 64, 2L);
        ep.disconnect();
        h.pump();
        assertEquals(0, handler.disconnects);
        h.advanceMillis(h.settings.flushTimeoutMillis() - 1);
        h.pump();
        assertEquals(0, handler.disconnects);
        h.advanceMillis(2);
        h.pump();
        assertEquals(List.of(1L, 2L), handler.completions.stream().map(RecordingHandler.Completion::wrId).toList());
        assertTrue(handler.completions.stream().allMatch(c -> c.status() == CompletionStatus.FLUSHED));
        assertEquals(DisconnectCause.LOCAL, handler.cause);
        assertEquals(1, handler.disconnects);
    }

    @Test
    void localDisconnectIsIdempotentAndTheFirstCauseWins() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        ep.disconnect();
        ep.disconnect();
        h.backend.event(VerbsConstants.CM_EVENT_DISCONNECTED, null, ep.cmId());
        h.pump();
        assertEquals(1, handler.disconnects);
        assertEquals(DisconnectCause.LOCAL, handler.cause);
    }

    @Test
    void disconnectOfANeverConnectedEndpointIsHarmless() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        ep.disconnect();
        h.pump();
        assertEquals(null, handler.cause, "no callback: the SPI calls disconnect harmless before connect");
        ep.close();
        ep.close();
        assertEquals(1, h.backend.destroyedIds.size());
    }

    @Test
    void deviceRemovalEndsTheEndpoint() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        h.backend.event(VerbsConstants.CM_EVENT_DEVICE_REMOVAL, null, ep.cmId());
        h.pump();
        assertEquals(DisconnectCause.DEVICE_REMOVED, handler.cause);
    }

    @Test
    void passiveSideListensAcceptsAndIsEstablished() throws Exception {
        List<RdmaConnectRequest> requests = new ArrayList<>();
        RdmaListener listener = h.provider.listen(FakeBackend.ipv4("192.0.2.10", 5445), Harness.collecting(requests));
        FakeBackend.FakeCmId listenId = (FakeBackend.FakeCmId) listenerId();
        assertTrue(listenId.listening);
        assertEquals(5445, listener.localAddress().getPort());
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(99);
        incoming.peer = FakeBackend.ipv4("192.0.2.30", 50000);
        h.backend.event(VerbsConstants.CM_EVENT_CONNECT_REQUEST, listenId, incoming);
        h.pump();
        RdmaConnectRequest request = requests.get(0);
        assertEquals(incoming.peer, request.peerAddress());
        assertEquals(0, request.privateData().remaining(), "DiSNI 2.0 surfaces no request private data");
        assertEquals(0, request.peerInboundReadDepth());
        RdmaEndpoint endpoint = request.createEndpoint(new EndpointSettings(4, 4), handler);
        MemoryRegion region = Harness.postReceives(endpoint, 64, 1);
        endpoint.accept(new ConnectParameters(null, 8, 8));
        assertTrue(incoming.accepted);
        h.backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, incoming);
        h.pump();
        assertEquals(1, handler.established);
        endpoint.postSend(region, 0, 8, 2L);
        assertEquals(1, h.backend.sends.size());
    }

    @Test
    void rejectDestroysTheRequestIdentifier() throws Exception {
        List<RdmaConnectRequest> requests = new ArrayList<>();
        h.provider.listen(FakeBackend.ipv4("192.0.2.10", 445), Harness.collecting(requests));
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(98);
        h.backend.event(VerbsConstants.CM_EVENT_CONNECT_REQUEST, listenerId(), incoming);
        h.pump();
        RdmaConnectRequest request = requests.get(0);
        RdmaEndpoint created = request.createEndpoint(new EndpointSettings(2, 2), handler);
        request.reject(ByteBuffer.allocate(0));
        assertTrue(h.backend.destroyedIds.contains(incoming));
        assertTrue(h.backend.destroyedQps.contains(Harness.qp((VerbsEndpoint) created)));
        assertThrows(RdmaException.class, () -> request.createEndpoint(new EndpointSettings(2, 2), handler));
    }

    @Test
    void requestsAfterListenerCloseAreRejectedNotReported() throws Exception {
        List<RdmaConnectRequest> requests = new ArrayList<>();
        RdmaListener listener = h.provider.listen(FakeBackend.ipv4("192.0.2.10", 445), Harness.collecting(requests));
        FakeBackend.CmId listenId = listenerId();
        listener.close();
        FakeBackend.FakeCmId incoming = new FakeBackend.FakeCmId(97);
        h.backend.event(VerbsConstants.CM_EVENT_CONNECT_REQUEST, listenId, incoming);
        h.pump();
        assertEquals(List.of(), requests);
        assertTrue(h.backend.destroyedIds.contains(incoming));
    }

    @Test
    void shutdownFailsListenersAndEndsEndpointsWithProviderShutdown() throws Exception {
        List<String> failures = new ArrayList<>();
        h.provider.listen(FakeBackend.ipv4("192.0.2.10", 445), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
                request.reject(null);
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                failures.add(cause.name());
            }
        });
        VerbsEndpoint ep = h.established(handler, 4, 4);
        Harness.postReceives(ep, 64, 1);
        h.backend.clearCompletions();
        h.backend.flush(Harness.qp(ep));
        h.provider.shutdown();
        assertEquals(List.of("PROVIDER_SHUTDOWN"), failures);
        assertEquals(DisconnectCause.PROVIDER_SHUTDOWN, handler.cause);
        assertEquals(CompletionStatus.FLUSHED, handler.completions.get(0).status());
        assertTrue(h.backend.closed);
        assertTrue(h.backend.liveRegions.isEmpty());
        assertThrows(RdmaException.class, () -> h.provider.createEndpoint(new EndpointSettings(1, 1), handler));
    }

    @Test
    void deviceRemovalUnderAListenerFailsItOnce() throws Exception {
        List<String> failures = new ArrayList<>();
        List<RdmaConnectRequest> requests = new ArrayList<>();
        h.provider.listen(FakeBackend.ipv4("0.0.0.0", 445), Harness.collecting(requests,
                (cause, detail) -> failures.add(cause + " " + detail)));
        FakeBackend.CmId listenId = listenerId();
        h.backend.event(VerbsConstants.CM_EVENT_DEVICE_REMOVAL, null, listenId);
        h.backend.event(VerbsConstants.CM_EVENT_CONNECT_REQUEST, listenId, new FakeBackend.FakeCmId(90));
        h.pump();
        assertEquals(List.of("DEVICE_REMOVED RDMA_CM_EVENT_DEVICE_REMOVAL"), failures);
        assertEquals(List.of(), requests);
        assertTrue(h.backend.destroyedIds.contains(listenId));
        assertEquals(0, h.provider.listenerCount());
    }

    @Test
    void endpointDepthsBeyondTheConfiguredLimitsAreRefused() {
        RdmaException e = assertThrows(RdmaException.class,
                () -> h.provider.createEndpoint(new EndpointSettings(h.settings.maxSendWorkRequests() + 1, 1), handler));
        assertTrue(e.getMessage().contains("sendQueueDepth"), e.getMessage());
    }

    @Test
    void completionQueueCapacityIsReservedPerEndpoint() throws Exception {
        VerbsSettings d = VerbsSettings.defaults();
        Harness small = new Harness(new VerbsSettings("", "", "AUTO", 10, 4, 4, d.maxMessageSize(), 16,
                d.maxRegionSize(), false, 8, 100, 100, 100, 6, 0, 8, false).withCompletionGroups(1));
        small.activeEndpoint(handler, 4, 4);
        RdmaException e = assertThrows(RdmaException.class, () -> small.activeEndpoint(handler, 2, 1));
        assertTrue(e.getMessage().contains("cqSize"), e.getMessage());
        assertTrue(small.backend.destroyedIds.size() == 1, "the identifier of the refused endpoint is released");
    }

    @Test
    void handlerMayPostFromInsideACompletion() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = Harness.postReceives(ep, 64, 1);
        handler.onCompletionAction = () -> {
            try {
                if (handler.completions.size() == 1) {
                    ep.postReceive(region, 0, 64, 2L);
                }
            } catch (RdmaException e) {
                throw new IllegalStateException(e);
            }
        };
        h.backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 12, 0, 0);
        h.pump();
        assertEquals(1, ep.outstandingReceives());
        assertNotNull(h.backend.recvs.get(1));
    }

    private FakeBackend.CmId listenerId() {
        return h.backend.listening.get(h.backend.listening.size() - 1);
    }
}
