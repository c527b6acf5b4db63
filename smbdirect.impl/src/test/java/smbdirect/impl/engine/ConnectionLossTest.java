package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.impl.trace.TraceSink;

/** Connection loss (3.1.7.1) from every cause: told once, typed reason, everything failed and released. */
class ConnectionLossTest {

    final Harness h = new Harness();
    final List<Throwable> outcomes = new ArrayList<>();

    Connection established() {
        Connection c = h.active(10, 10, 1024, 1024, 131072);
        h.provider.last().completeSends();
        return c;
    }

    /** Queues one in-flight and one credit-blocked message. */
    void loadSends(Connection c) {
        while (c.credits.sendCredits() > 0) {
            c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> outcomes.add(x));
        }
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> outcomes.add(x));
    }

    /** A registration of 4,096 bytes with {@code access} on the established {@code c}. */
    static RegisteredBuffer registered(Connection c, RemoteAccess access) {
        return c.register(ByteBuffer.allocateDirect(4096), access).toCompletableFuture().join();
    }

    /** The endpoint reports the peer's disconnect; the upper layer is told PEER_DISCONNECT. */
    void peerDisconnects(FakeEndpoint e) {
        e.flushAndDisconnect(DisconnectCause.PEER, "bye");
        assertEquals(CloseReason.Kind.PEER_DISCONNECT, h.recorder.disconnects.get(0).kind());
    }

    void assertAllFailed(int expected, CloseReason.Kind kind) {
        assertEquals(expected, outcomes.size(), "every message completed once");
        for (Throwable t : outcomes) {
            SmbDirectException x = assertInstanceOf(SmbDirectException.class, t);
            assertEquals(kind, x.closeReason().kind());
        }
    }

    @Test
    void R_3_1_7_1_01_localCloseToldOnceAndEverythingReleased() {
        Connection c = established();
        loadSends(c);
        int messages = outcomes.size() + (int) (c.sendPath.fragmentsSent() - 1) + c.sendPath.queueDepth();
        CompletableFuture<Void> closed = c.close().toCompletableFuture();
        assertTrue(closed.isDone());
        assertFalse(c.isOpen());
        assertEquals(1, h.recorder.disconnects.size());
        assertEquals(CloseReason.Kind.LOCAL_CLOSE, h.recorder.disconnects.get(0).kind());
        assertAllFailed(messages, CloseReason.Kind.LOCAL_CLOSE);
        h.provider.assertNoLeaks(); // R-3.1.7.1-02
        assertEquals(0, h.engine.connectionCount());
        assertEquals(0, h.engine.budgetUsed());
        c.close();
        h.provider.last().flushAndDisconnect(DisconnectCause.PEER, "late");
        assertEquals(1, h.recorder.disconnects.size(), "idempotent");
        assertEquals("CLOSED", h.engine.getTransportDTO().recentlyClosed[0].state);
    }

    @Test
    void operatorClosesALiveConnectionByIdWithItsReason() {
        Connection c = established();
        Connection other = established();
        loadSends(c);
        int messages = outcomes.size() + (int) (c.sendPath.fragmentsSent() - 1) + c.sendPath.queueDepth();
        CloseReason operator = CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "closed by operator (smbd:close)");

        CompletableFuture<Void> closed = h.engine.closeConnection(c.id, operator).toCompletableFuture();

        assertTrue(closed.isDone());
        assertFalse(c.isOpen());
        assertTrue(other.isOpen(), "only the connection with that id closes");
        assertEquals(List.of(operator), h.recorder.disconnects, "its upper layer is told the operator's reason");
        assertAllFailed(messages, CloseReason.Kind.LOCAL_CLOSE);
        assertEquals(1, h.engine.connectionCount());
        assertEquals(null, h.engine.closeConnection(c.id, operator), "a closed connection is no longer live");
        assertEquals(null, h.engine.closeConnection(other.id + 100, operator), "unknown id");
        String recorded = h.engine.getTransportDTO().recentlyClosed[0].closeReason;
        assertTrue(recorded.contains("LOCAL_CLOSE") && recorded.contains("closed by operator (smbd:close)"), recorded);
    }

    /**
     * A post refused because the queue pair is already going down (the peer disconnected and the
     * provider's report of it is still on its way): the close reason is provisional, and every
     * message the upper layer handed over, the queued ones included, fails with the endpoint's own
     * reason once it comes, never with the provisional "posting a Send failed".
     */
    @Test
    void R_3_1_7_1_01_aRefusedPostGivesWayToThePeersDisconnectForEveryMessageQueuedOrInFlight() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        loadSends(c); // credits spent, one message queued
        c.send(ByteBuffer.wrap(Harness.bytes(10, 2)), (m, x) -> outcomes.add(x));
        c.send(ByteBuffer.wrap(Harness.bytes(10, 3)), (m, x) -> outcomes.add(x));
        int messages = outcomes.size() + (int) (c.sendPath.fragmentsSent() - 1) + c.sendPath.queueDepth();
        e.failSendPost = true; // the queue pair went down with the peer's disconnect, not yet reported
        e.deferDisconnect = true; // so our disconnect() reports nothing: the peer's report is on its way
        e.deliver(Harness.dt(10, 1, 0, 0, new byte[0])); // a credit: the queued head is posted, and refused
        assertFalse(c.isOpen());
        assertTrue(outcomes.isEmpty(), "nothing fails with the provisional reason: " + outcomes);
        peerDisconnects(e);
        assertAllFailed(messages, CloseReason.Kind.PEER_DISCONNECT);
        h.provider.assertNoLeaks();
    }

    /**
     * After a refused post, before the endpoint's report: what the upper layer hands over then (a
     * Send from a completion callback, an RDMA Write, a registration) waits for the report too and
     * fails with the endpoint's reason, never with the provisional one (a perf client sending from
     * its completion callback saw "posting a receive failed" where the peer had disconnected).
     */
    @Test
    void R_3_1_7_1_01_whatIsHandedOverAfterARefusedPostFailsWithThePeersDisconnectNotTheProvisionalReason() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        RegisteredBuffer rb = registered(c, RemoteAccess.WRITE);
        e.failReceivePost = true; // the queue pair went down with the peer's disconnect, not yet reported
        e.deferDisconnect = true;
        e.deliver(Harness.dt(10, 1, 0, 0, Harness.bytes(10, 9))); // taken; the receive's repost is refused
        assertFalse(c.isOpen());
        c.send(ByteBuffer.wrap(Harness.bytes(10, 4)), (m, x) -> outcomes.add(x));
        c.rdmaWrite(rb, 0, 100, List.of(new BufferDescriptor(0x1000, 7, 100)), 0, (n, x) -> outcomes.add(x));
        CompletableFuture<RegisteredBuffer> late = c.register(ByteBuffer.allocateDirect(4096), RemoteAccess.READ)
                .toCompletableFuture();
        late.whenComplete((r, x) -> outcomes.add(x));
        assertTrue(outcomes.isEmpty(), "nothing fails with the provisional reason: " + outcomes);
        peerDisconnects(e);
        assertAllFailed(3, CloseReason.Kind.PEER_DISCONNECT);
        h.provider.assertNoLeaks();
    }

    /**
     * An RDMA Write and Read whose own posts are refused (the queue pair went down with the peer's
     * disconnect, its report still on its way) fail with the endpoint's reason when it comes, as the
     * messages do, not with the refusal (a perf client saw "posting an RDMA Write failed" where the
     * server had gone away).
     */
    @Test
    void R_3_1_7_1_01_anRdmaOperationWhosePostIsRefusedFailsWithThePeersDisconnect() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        RegisteredBuffer rb = registered(c, RemoteAccess.LOCAL_ONLY);
        c.rdmaWrite(rb, 0, 100, List.of(new BufferDescriptor(0x1000, 7, 100)), 0, (n, x) -> outcomes.add(x));
        assertEquals(1, e.rdma.size(), "the first is posted");
        e.failRdmaPost = true;
        e.deferDisconnect = true;
        c.rdmaRead(rb, 0, 100, List.of(new BufferDescriptor(0x2000, 8, 100)), 0, (n, x) -> outcomes.add(x));
        assertFalse(c.isOpen());
        assertTrue(outcomes.isEmpty(), "nothing fails with the refusal: " + outcomes);
        peerDisconnects(e);
        assertAllFailed(2, CloseReason.Kind.PEER_DISCONNECT);
        h.provider.assertNoLeaks();
    }

    /**
     * A deregistration whose local invalidate cannot be posted (the queue pair went down with the
     * peer's disconnect) completes when the connection releases the region with its queue pair, as
     * one whose invalidate is flushed does: no remote access survives it (R-3.1.4.4-04).
     */
    @Test
    void R_3_1_4_4_04_aDeregistrationWhoseInvalidateIsRefusedCompletesWhenTheRegionIsReleasedWithTheQueuePair() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        RegisteredBuffer rb = registered(c, RemoteAccess.READ_WRITE);
        e.failInvalidatePost = true;
        e.deferDisconnect = true;
        CompletableFuture<Void> deregistered = rb.deregister().toCompletableFuture();
        assertFalse(c.isOpen());
        assertFalse(rb.isValid());
        assertFalse(deregistered.isDone(), "the region is still held by the queue pair");
        peerDisconnects(e);
        assertTrue(deregistered.isDone() && !deregistered.isCompletedExceptionally(), deregistered.toString());
        h.provider.assertNoLeaks();
    }

    /** A refused RDMA post with no peer behind it (the endpoint reports only our disconnect) keeps the refusal as the reason. */
    @Test
    void aRefusedRdmaPostWithoutAPeersDisconnectClosesNamingTheRefusal() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        RegisteredBuffer rb = registered(c, RemoteAccess.LOCAL_ONLY);
        e.failRdmaPost = true;
        c.rdmaWrite(rb, 0, 100, List.of(new BufferDescriptor(0x1000, 7, 100)), 0, (n, x) -> outcomes.add(x));
        assertFalse(c.isOpen());
        CloseReason r = h.recorder.disconnects.get(0);
        assertEquals(CloseReason.Kind.PROVIDER_ERROR, r.kind());
        assertEquals("posting an RDMA Write failed: send queue full", r.detail());
        assertAllFailed(1, CloseReason.Kind.PROVIDER_ERROR);
        h.provider.assertNoLeaks();
    }

    @Test
    void peerDisconnect() {
        Connection c = established();
        loadSends(c);
        h.provider.last().flushAndDisconnect(DisconnectCause.PEER, "bye");
        assertEquals(CloseReason.Kind.PEER_DISCONNECT, h.recorder.disconnects.get(0).kind());
        assertFalse(c.isOpen());
        h.provider.assertNoLeaks();
        for (Throwable t : outcomes) {
            assertInstanceOf(SmbDirectException.class, t);
        }
    }

    @Test
    void peerLesson22_deviceRemovalAndPeerLoss() {
        Connection c = established();
        h.provider.last().flushAndDisconnect(DisconnectCause.DEVICE_REMOVED, "mlx5_0 removed");
        assertEquals(CloseReason.Kind.DEVICE_REMOVED, h.recorder.disconnects.get(0).kind());
        assertFalse(c.isOpen());
        Harness h2 = new Harness();
        h2.active();
        h2.provider.last().flushAndDisconnect(DisconnectCause.PEER_LOST, "retries exceeded");
        assertEquals(CloseReason.Kind.PROVIDER_ERROR, h2.recorder.disconnects.get(0).kind());
        h2.provider.assertNoLeaks();
    }

    @Test
    void shutdownClosesEveryConnectionAndListenerWithItsReason() throws Exception {
        Connection active = established();
        Connection passive = h.passive(10, 1024, 1024, 131072);
        CloseReason gone = CloseReason.of(CloseReason.Kind.PROVIDER_GONE, "provider unregistered");
        CompletableFuture<Void> done = h.engine.shutdown(gone).toCompletableFuture();
        assertTrue(done.isDone());
        assertFalse(active.isOpen());
        assertFalse(passive.isOpen());
        assertEquals(2, h.recorder.disconnects.size());
        assertTrue(h.recorder.disconnects.stream().allMatch(r -> r.kind() == CloseReason.Kind.PROVIDER_GONE));
        assertFalse(h.listener.isOpen());
        assertTrue(h.provider.listeners.get(0).closed);
        h.provider.assertNoLeaks();
        assertTrue(h.engine.connect(Harness.PEER, java.time.Duration.ofSeconds(1), h.recorder).toCompletableFuture()
                .isCompletedExceptionally());
    }

    @Test
    void sendAfterCloseFailsWithTheReason() {
        Connection c = established();
        c.close();
        c.send(ByteBuffer.wrap(new byte[10]), (m, x) -> outcomes.add(x));
        assertAllFailed(1, CloseReason.Kind.LOCAL_CLOSE);
    }

    @Test
    void closeFromInsideAHandlerCallbackIsSafe() {
        Connection c = h.active(10, 10, 1024, 1024, 131072);
        FakeEndpoint e = h.provider.last();
        e.completeSends();
        e.autoCompleteSends = true; // completions delivered inline from post calls
        c.send(ByteBuffer.wrap(Harness.bytes(10, 1)), (m, x) -> c.close());
        assertFalse(c.isOpen());
        assertEquals(1, h.recorder.disconnects.size());
        h.provider.assertNoLeaks();
    }

    @Test
    void registrationsAreInvalidatedOnClose() {
        Connection c = established();
        RegisteredBuffer rb = registered(c, RemoteAccess.WRITE);
        assertTrue(rb.isValid());
        c.close();
        assertFalse(rb.isValid());
        assertTrue(rb.deregister().toCompletableFuture().isDone());
    }

    @Test
    void closeBeforeEstablishedFailsTheConnectStage() {
        CompletableFuture<?> f = h.connect().toCompletableFuture();
        h.engine.shutdown(CloseReason.of(CloseReason.Kind.SHUTDOWN, "stopping"));
        assertTrue(f.isCompletedExceptionally());
        h.provider.assertNoLeaks();
        assertTrue(h.recorder.disconnects.isEmpty());
    }

    @Test
    void connectionDtoCarriesTheAdmAndTheCloseReason() {
        Connection c = established();
        var d = c.getConnectionDTO();
        assertEquals("ACTIVE", d.role);
        assertEquals("ESTABLISHED", d.state);
        assertEquals(0x100, d.protocol);
        assertEquals(1024, d.maxSendSize);
        assertEquals(10, d.receiveCredits);
        assertEquals(10, d.peerCredits);
        c.close();
        assertTrue(c.getConnectionDTO().closeReason.startsWith("LOCAL_CLOSE"));
    }

    @Test
    void traceSinkSeesEveryMessageWithItsDirection() {
        List<Boolean> fromInitiator = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        h.engine.setTraceSink(new TraceSink() {
            @Override
            public void record(boolean from, ByteBuffer message, long micros) {
                fromInitiator.add(from);
                lengths.add(message.remaining());
            }
        });
        Connection c = established();
        h.provider.last().deliver(Harness.dt(10, 1, 0, 0, Harness.bytes(100, 1)));
        assertEquals(List.of(true, false, true, false), fromInitiator);
        assertEquals(List.of(20, 32, 20, 124), lengths);
        assertTrue(c.isOpen());
    }

    @Test
    void peerLesson7_flushedFragmentsOfOneMessageCompleteItOnce() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        c.send(ByteBuffer.wrap(Harness.bytes(5000, 1)), (m, x) -> outcomes.add(x));
        assertTrue(e.outstandingSends().size() >= 5, "several fragments in flight");
        e.complete(e.outstandingSends().get(0), smbdirect.api.rdma.CompletionStatus.SUCCESS);
        e.flushAndDisconnect(DisconnectCause.QP_ERROR, "flush");
        assertEquals(1, outcomes.size(), "one completion for the message");
        assertInstanceOf(SmbDirectException.class, outcomes.get(0));
        assertEquals(CloseReason.Kind.PROVIDER_ERROR, h.recorder.disconnects.get(0).kind());
    }

    @Test
    void peerLesson22_shutdownIsBoundedWhenTheProviderNeverReportsTheDisconnect() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        e.deferDisconnect = true;
        CompletableFuture<Void> closed = c.close().toCompletableFuture();
        assertFalse(closed.isDone());
        h.scheduler.advance(java.time.Duration.ofSeconds(30));
        assertTrue(closed.isDone());
        assertTrue(e.closed);
        assertEquals(1, h.recorder.disconnects.size());
        assertEquals(0, h.engine.connectionCount());
    }

    @Test
    void peerLesson23_deregistrationWaitsForTheFenceBeforeTheBufferIsReturned() {
        Connection c = established();
        FakeEndpoint e = h.provider.last();
        RegisteredBuffer rb = registered(c, RemoteAccess.READ);
        CompletableFuture<Void> f = rb.deregister().toCompletableFuture();
        assertFalse(f.isDone(), "the buffer is not returned before the invalidate completed");
        e.completeInvalidates();
        assertTrue(f.isDone());
    }
}
