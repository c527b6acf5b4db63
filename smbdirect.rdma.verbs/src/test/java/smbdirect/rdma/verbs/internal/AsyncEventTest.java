package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;

/**
 * The device's asynchronous events ({@code ibv_get_async_event}) as the provider acts on them,
 * driven by hand through the fake backend: queue pair errors end their connection as QP_ERROR
 * naming the event, a completion queue error ends every endpoint of the device, a fatal device ends
 * everything as DEVICE_REMOVED, port events are reported to operators and a port going down ends
 * the device's connections as PEER_LOST (unless turned off), the rest changes nothing.
 */
class AsyncEventTest {

    private final FakeBackend backend = new FakeBackend();
    private final Harness h;

    AsyncEventTest() {
        backend.asyncEvents = true;
        h = new Harness(VerbsSettings.defaults(), backend);
    }

    private VerbsEndpoint connectedWithReceives(RecordingHandler handler, int receives) throws RdmaException {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion r = ep.register(Harness.direct(64 * receives), Harness.access(MemoryAccess.LOCAL_WRITE));
        for (int i = 0; i < receives; i++) {
            ep.postReceive(r, 64 * i, 64, 100 + i);
        }
        return ep;
    }

    /** The device flushes what the endpoint has outstanding after its rdma_disconnect. */
    private void flushAndPump(VerbsEndpoint ep) {
        h.pump();
        backend.flush(Harness.qp(ep));
        h.pump();
    }

    @Test
    void aFatalQueuePairEndsItsConnectionAsQpErrorNamingTheEvent() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectedWithReceives(handler, 2);
        backend.asyncEvent(VerbsConstants.EVENT_QP_FATAL, ep.queuePair(), null, 0);
        flushAndPump(ep);
        assertEquals(DisconnectCause.QP_ERROR, handler.cause);
        assertTrue(handler.detail.startsWith("IBV_EVENT_QP_FATAL: "), handler.detail);
        assertEquals(1, Harness.qp(ep).id.disconnects, "rdma_disconnect moved the queue pair to the error state");
        assertEquals(List.of(), handler.violations);
        assertEquals(List.of(100L, 101L), handler.completions.stream().map(RecordingHandler.Completion::wrId).toList());
    }

    @Test
    void anAccessErrorAtThisSideSaysThePeerBrokeARegistrationsRights() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectedWithReceives(handler, 1);
        backend.asyncEvent(VerbsConstants.EVENT_QP_ACCESS_ERR, ep.queuePair(), null, 0);
        flushAndPump(ep);
        assertEquals(DisconnectCause.QP_ERROR, handler.cause);
        assertTrue(handler.detail.startsWith("IBV_EVENT_QP_ACCESS_ERR: ") && handler.detail.contains("remote access error"),
                handler.detail);
    }

    @Test
    void aQueuePairErrorRefinesAPeerDisconnectNotReportedYet() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectedWithReceives(handler, 1);
        backend.event(VerbsConstants.CM_EVENT_DISCONNECTED, null, ep.cmId());
        h.provider.pumpCmEvents(0); // the CM's event is handed to the completion thread first
        backend.asyncEvent(VerbsConstants.EVENT_QP_REQ_ERR, ep.queuePair(), null, 0); // the device's account next
        h.pump();
        assertEquals(DisconnectCause.QP_ERROR, handler.cause);
        assertEquals(List.of(CompletionStatus.FLUSHED), handler.completions.stream().map(c -> c.status()).toList(),
                "the queue pair is in error: the receive completes as FLUSHED at once");
        assertTrue(handler.detail.startsWith("IBV_EVENT_QP_REQ_ERR: ") && handler.detail.contains("RDMA_CM_EVENT_DISCONNECTED"),
                handler.detail);
    }

    @Test
    void aFailedRequestRefinesAPeerDisconnectNotReportedYet() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion src = ep.register(Harness.direct(8), Harness.access());
        ep.postRdmaRead(src, 0, 8, 0x1000, 0x77, 5);
        backend.event(VerbsConstants.CM_EVENT_DISCONNECTED, null, ep.cmId());
        // the failed Read's completion is in the queue when the completion thread handles the event
        backend.completeSend(Harness.qp(ep), VerbsConstants.WC_REM_ACCESS_ERR, VerbsConstants.WC_RDMA_READ, 0, 0);
        h.pump();
        assertEquals(DisconnectCause.QP_ERROR, handler.cause);
        assertTrue(handler.detail.startsWith("RDMA_READ completed with IBV_WC_REM_ACCESS_ERR: failed at the peer: it "
                + "refused the access to its rkey 0x77"), handler.detail);
    }

    @Test
    void anEventAfterOnDisconnectedChangesNothing() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectedWithReceives(handler, 1);
        ep.disconnect();
        flushAndPump(ep);
        assertEquals(DisconnectCause.LOCAL, handler.cause);
        backend.asyncEvent(VerbsConstants.EVENT_QP_FATAL, ep.queuePair(), null, 0);
        h.pump();
        assertEquals(DisconnectCause.LOCAL, handler.cause);
        assertEquals(1, handler.disconnects);
        assertEquals(List.of(), handler.violations);
    }

    @Test
    void eventsThatDoNotBreakTheQueuePairLeaveTheConnectionUp() throws Exception {
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectedWithReceives(handler, 1);
        for (int type : new int[] {VerbsConstants.EVENT_COMM_EST, VerbsConstants.EVENT_SQ_DRAINED,
                VerbsConstants.EVENT_PATH_MIG, VerbsConstants.EVENT_PATH_MIG_ERR,
                VerbsConstants.EVENT_QP_LAST_WQE_REACHED}) {
            backend.asyncEvent(type, ep.queuePair(), null, 0);
        }
        h.pump();
        assertEquals(VerbsEndpoint.State.ESTABLISHED, ep.state());
        assertNull(handler.cause);
    }

    @Test
    void aCompletionQueueErrorEndsEveryEndpointOfThatQueueAndRefusesNewOnesWhenNoOtherGroupIsLeft()
            throws Exception {
        FakeBackend one = new FakeBackend();
        one.asyncEvents = true;
        Harness single = new Harness(VerbsSettings.defaults().withCompletionGroups(1), one);
        RecordingHandler first = new RecordingHandler();
        RecordingHandler second = new RecordingHandler();
        VerbsEndpoint a = single.established(first, 4, 4);
        VerbsEndpoint b = single.established(second, 4, 4);
        assertEquals(a.group(), b.group(), "one completion group");
        one.asyncEvent(VerbsConstants.EVENT_CQ_ERR, null, a.group().cq(), 0);
        single.pump();
        one.flush(Harness.qp(a));
        one.flush(Harness.qp(b));
        single.pump();
        assertEquals(DisconnectCause.QP_ERROR, first.cause);
        assertEquals(DisconnectCause.QP_ERROR, second.cause);
        assertTrue(first.detail.startsWith("IBV_EVENT_CQ_ERR"), first.detail);
        RdmaException refused = assertThrows(RdmaException.class,
                () -> single.provider.createEndpoint(new EndpointSettings(4, 4), new RecordingHandler()));
        assertTrue(refused.getMessage().contains("failed"), refused.getMessage());
    }

    @Test
    void aCompletionQueueErrorEndsOnlyThatGroupsEndpointsAndNewOnesGoToAnotherGroup() throws Exception {
        FakeBackend two = new FakeBackend();
        two.asyncEvents = true;
        Harness groups = new Harness(VerbsSettings.defaults().withCompletionGroups(2), two);
        RecordingHandler first = new RecordingHandler();
        RecordingHandler second = new RecordingHandler();
        VerbsEndpoint a = groups.established(first, 4, 4);
        VerbsEndpoint b = groups.established(second, 4, 4);
        assertEquals(List.of(0, 1), List.of(a.group().index(), b.group().index()));
        two.asyncEvent(VerbsConstants.EVENT_CQ_ERR, null, a.group().cq(), 0);
        groups.pump();
        two.flush(Harness.qp(a));
        groups.pump();
        assertEquals(DisconnectCause.QP_ERROR, first.cause);
        assertTrue(first.detail.startsWith("IBV_EVENT_CQ_ERR"), first.detail);
        assertNull(second.cause, "the other group's queue is sound: its connection goes on");
        assertEquals(VerbsEndpoint.State.ESTABLISHED, b.state());
        RecordingHandler third = new RecordingHandler();
        VerbsEndpoint c = groups.established(third, 4, 4);
        assertEquals(1, c.group().index(), "a new connection avoids the failed queue");
        assertEquals(1, third.established);
    }

    @Test
    void aFatalDeviceEndsEndpointsAsDeviceRemovedAndFailsTheListeners() throws Exception {
        List<String> listenerFailures = new ArrayList<>();
        h.provider.listen(new InetSocketAddress(Harness.BIND.getAddress(), 445), new RdmaListenHandler() {
            @Override
            public void onConnectRequest(RdmaConnectRequest request) {
            }

            @Override
            public void onListenerFailed(DisconnectCause cause, String detail) {
                listenerFailures.add(cause + " " + detail);
            }
        });
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = connectedWithReceives(handler, 1);
        backend.asyncEvent(VerbsConstants.EVENT_DEVICE_FATAL, null, null, 0);
        flushAndPump(ep);
        assertEquals(DisconnectCause.DEVICE_REMOVED, handler.cause);
        assertTrue(handler.detail.startsWith("IBV_EVENT_DEVICE_FATAL"), handler.detail);
        assertEquals(1, listenerFailures.size());
        assertTrue(listenerFailures.get(0).startsWith("DEVICE_REMOVED IBV_EVENT_DEVICE_FATAL"), listenerFailures.toString());
        assertThrows(RdmaException.class, () -> h.provider.createEndpoint(new EndpointSettings(4, 4),
                new RecordingHandler()));
    }

    @Test
    void aPortGoingDownEndsEveryConnectionOfTheDeviceAsPeerLostNamingTheEventAndNewOnesWorkOnceItIsUp()
            throws Exception {
        RecordingHandler first = new RecordingHandler();
        RecordingHandler second = new RecordingHandler();
        VerbsEndpoint a = connectedWithReceives(first, 1);
        VerbsEndpoint b = connectedWithReceives(second, 2);
        backend.asyncEvent(VerbsConstants.EVENT_PORT_ERR, null, null, 1);
        h.pump();
        h.pump();
        for (RecordingHandler handler : List.of(first, second)) {
            assertEquals(DisconnectCause.PEER_LOST, handler.cause);
            assertTrue(handler.detail.startsWith("IBV_EVENT_PORT_ERR: port 1 of the RDMA device went down"), handler.detail);
        }
        assertEquals(List.of(100L), first.completions.stream().map(RecordingHandler.Completion::wrId).toList(),
                "what was posted completes at once (flushed by the provider: the device may not flush it)");
        assertEquals(List.of(100L, 101L), second.completions.stream().map(RecordingHandler.Completion::wrId).toList());
        assertTrue(h.provider.describeSettings().contains("port 1 down (IBV_EVENT_PORT_ERR"),
                h.provider.describeSettings());
        // no CM message while the port is down: rdma_disconnect and a closed endpoint's destroys wait for it
        a.close();
        h.pump();
        assertEquals(0, Harness.qp(a).id.disconnects, "no rdma_disconnect while the port is down");
        assertEquals(0, Harness.qp(b).id.disconnects);
        assertTrue(backend.destroyedQps.isEmpty() && backend.destroyedIds.isEmpty(), backend.calls.toString());
        backend.asyncEvent(VerbsConstants.EVENT_PORT_ACTIVE, null, null, 1);
        h.pump();
        assertTrue(h.provider.describeSettings().contains("port 1 active again (IBV_EVENT_PORT_ACTIVE"),
                h.provider.describeSettings());
        assertEquals(1, Harness.qp(a).id.disconnects, "rdma_disconnect once the port is up");
        assertEquals(1, Harness.qp(b).id.disconnects);
        assertEquals(List.of(Harness.qp(a).id), backend.destroyedIds, "the closed endpoint's identifier, then");
        assertEquals(1, backend.destroyedQps.size());
        // a late flush of the device finds nothing outstanding
        backend.flush(Harness.qp(b));
        h.pump();
        assertEquals(List.of(100L, 101L), second.completions.stream().map(RecordingHandler.Completion::wrId).toList());
        RecordingHandler after = new RecordingHandler();
        VerbsEndpoint c = connectedWithReceives(after, 1);
        h.pump();
        assertEquals(VerbsEndpoint.State.ESTABLISHED, c.state(), "a connection after the port is up again");
        assertNull(after.cause);
    }

    @Test
    void aProviderStoppingWhileThePortIsDownReleasesWhatThePortHeldBack() throws Exception {
        VerbsEndpoint a = connectedWithReceives(new RecordingHandler(), 1);
        backend.asyncEvent(VerbsConstants.EVENT_PORT_ERR, null, null, 1);
        h.pump();
        a.close();
        h.pump();
        assertTrue(backend.destroyedIds.isEmpty(), backend.calls.toString());
        h.provider.shutdown();
        assertEquals(1, Harness.qp(a).id.disconnects);
        assertEquals(List.of(Harness.qp(a).id), backend.destroyedIds);
    }

    @Test
    void withEndConnectionsOnPortDownOffAPortEventLeavesConnectionsToTheTransport() throws Exception {
        FakeBackend riding = new FakeBackend();
        riding.asyncEvents = true;
        Harness off = new Harness(VerbsSettings.defaults().withEndConnectionsOnPortDown(false), riding);
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = off.established(handler, 4, 4);
        riding.asyncEvent(VerbsConstants.EVENT_PORT_ERR, null, null, 1);
        off.pump();
        assertTrue(off.provider.describeSettings().contains("port 1 down (IBV_EVENT_PORT_ERR")
                && off.provider.describeSettings().contains("leaves its connections to the transport's retries"),
                off.provider.describeSettings());
        assertEquals(VerbsEndpoint.State.ESTABLISHED, ep.state());
        riding.asyncEvent(VerbsConstants.EVENT_PORT_ACTIVE, null, null, 1);
        off.pump();
        assertEquals(VerbsEndpoint.State.ESTABLISHED, ep.state());
        assertNull(handler.cause);
    }

    @Test
    void theDeviceIsWatchedWhileTheProviderUsesItAndNoLonger() throws Exception {
        h.established(new RecordingHandler(), 4, 4);
        assertTrue(backend.calls.contains("watchAsyncEvents"));
        h.provider.shutdown();
        assertEquals(List.of(backend.device), backend.unwatched);
    }
}
