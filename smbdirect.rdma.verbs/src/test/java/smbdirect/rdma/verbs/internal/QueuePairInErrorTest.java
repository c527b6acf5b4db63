package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.MemoryRegion;

/**
 * Work posted to a queue pair known to be in the error state, and what is outstanding when such a
 * connection ends, completes as FLUSHED at once, in order, through the normal completion path: a
 * device may never flush it (siw does not flush what is posted after it moved the queue pair to
 * error on the peer's FIN). The clock never moves in these tests: nothing waits for
 * {@code flushTimeoutMillis}.
 */
class QueuePairInErrorTest {

    private final FakeBackend backend = new FakeBackend();
    private final Harness h;
    private final RecordingHandler handler = new RecordingHandler();

    QueuePairInErrorTest() {
        backend.asyncEvents = true;
        h = new Harness(VerbsSettings.defaults(), backend);
    }

    private static List<String> events(RecordingHandler handler) {
        return ConnectionLifecycleTest.describe(handler.events);
    }

    @Test
    void workPostedAfterAFlushedCompletionCompletesAsFlushedAtOnceInPostOrderWithoutReachingTheDevice()
            throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = Harness.postReceives(ep, 256, 1);
        backend.flush(Harness.qp(ep)); // siw moved the queue pair to error (the peer's FIN) and flushed receive 1
        h.pump();
        int sendsOnTheDevice = backend.sends.size();
        int receivesOnTheDevice = backend.recvs.size();
        ep.postSend(region, 64, 64, 2L);
        ep.postReceive(region, 128, 64, 3L);
        ep.postSend(region, 192, 64, 4L);
        h.pump();
        assertEquals(List.of("established", "completion:1:RECEIVE:FLUSHED", "completion:2:SEND:FLUSHED",
                "completion:4:SEND:FLUSHED", "completion:3:RECEIVE:FLUSHED"), events(handler));
        assertEquals(sendsOnTheDevice, backend.sends.size(), "nothing more handed to a queue pair in error");
        assertEquals(receivesOnTheDevice, backend.recvs.size());
        assertEquals(List.of(), handler.violations);
    }

    @Test
    void thePeersDisconnectAfterTheFlushEndsTheConnectionAtOnceThoughTheDeviceNeverFlushedTheLaterPosts()
            throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = Harness.postReceives(ep, 256, 2);
        backend.flush(Harness.qp(ep));
        // posted after siw's move to error but before the flushes were seen: libsiw accepts them, never flushes them
        ep.postSend(region, 128, 64, 3L);
        backend.event(VerbsConstants.CM_EVENT_DISCONNECTED, null, ep.cmId());
        h.pump();
        assertEquals(List.of("established", "completion:1:RECEIVE:FLUSHED", "completion:2:RECEIVE:FLUSHED",
                "completion:3:SEND:FLUSHED", "disconnected:PEER"), events(handler));
        assertTrue(handler.detail.startsWith("RDMA_CM_EVENT_DISCONNECTED: the peer ended the connection"),
                handler.detail);
        assertEquals(List.of(), handler.violations);
    }

    @Test
    void aFatalQueuePairEventCompletesWhatIsOutstandingAsFlushedAtOnceAfterTheCompletionsAlreadyQueued()
            throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = Harness.postReceives(ep, 256, 2);
        ep.postSend(region, 128, 64, 3L);
        backend.completeRecv(Harness.qp(ep), VerbsConstants.WC_SUCCESS, 24, 0, 0); // delivered before the event
        backend.asyncEvent(VerbsConstants.EVENT_QP_FATAL, ep.queuePair(), null, 0);
        h.pump();
        assertEquals(List.of("established", "completion:1:RECEIVE:SUCCESS", "completion:3:SEND:FLUSHED",
                "completion:2:RECEIVE:FLUSHED", "disconnected:QP_ERROR"), events(handler));
        assertTrue(handler.detail.startsWith("IBV_EVENT_QP_FATAL"), handler.detail);
    }

    @Test
    void aConnectRefusedByRdmaConnectCompletesThePostedReceivesAsFlushedAtOnce() throws Exception {
        VerbsEndpoint ep = h.activeEndpoint(handler, 4, 4);
        Harness.postReceives(ep, 128, 2);
        ep.connect(Harness.PEER, new smbdirect.api.rdma.ConnectParameters(null, 1, 1));
        backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, ep.cmId());
        h.pump();
        backend.failOn = "connect"; // siw: no listener on the port refuses the TCP connect inside rdma_connect
        backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, ep.cmId());
        h.pump();
        assertEquals(List.of("completion:1:RECEIVE:FLUSHED", "completion:2:RECEIVE:FLUSHED",
                "disconnected:CONNECT_ERROR"), events(handler), "siw never flushes them: no wait for it");
        assertTrue(handler.detail.startsWith("rdma_connect failed"), handler.detail);
    }

    @Test
    void aLocalDisconnectOfAHealthyQueuePairStillWaitsForTheDevicesFlushes() throws Exception {
        VerbsEndpoint ep = h.established(handler, 4, 4);
        Harness.postReceives(ep, 64, 1);
        ep.disconnect();
        h.pump();
        assertEquals(0, handler.disconnects, "the device flushes what rdma_disconnect moved to error");
        backend.flush(Harness.qp(ep));
        h.pump();
        assertEquals(List.of("established", "completion:1:RECEIVE:FLUSHED", "disconnected:LOCAL"), events(handler));
    }
}
