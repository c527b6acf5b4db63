package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.tck.TckRecorder;

class ThreadingRulesTest {

    /** From inside a callback another thread must be able to use the same connection. */
    private static boolean otherThreadGetsThrough(MockEndpoint ep, MockFabric fabric) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            ep.postedReceives();
            ep.peer().outstandingWorkRequests();
            fabric.stats();
            done.countDown();
        });
        t.setDaemon(true);
        t.start();
        return done.await(5, TimeUnit.SECONDS);
    }

    @Test
    void handlersAreNeverCalledUnderAProviderLockInline() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.INLINE).build());
        f.client.reentrantAllowed(true);
        f.server.reentrantAllowed(true);
        f.connect();
        AtomicBoolean free = new AtomicBoolean();
        f.server.onCompletion = wc -> {
            try {
                free.set(otherThreadGetsThrough(f.serverEp, f.fabric));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        assertTrue(free.get());
        f.closeAll();
    }

    @Test
    void handlersAreNeverCalledUnderAProviderLockThreaded() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.THREADED).build());
        f.connect();
        AtomicBoolean free = new AtomicBoolean();
        CountDownLatch seen = new CountDownLatch(1);
        f.server.onCompletion = wc -> {
            try {
                free.set(otherThreadGetsThrough(f.serverEp, f.fabric));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            seen.countDown();
        };
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        assertTrue(seen.await(5, TimeUnit.SECONDS));
        assertTrue(free.get());
        f.clientEp.disconnect();
        assertTrue(f.client.awaitDisconnected(5, TimeUnit.SECONDS));
        assertTrue(f.server.awaitDisconnected(5, TimeUnit.SECONDS));
        f.closeAll();
    }

    /** Posts Sends from its own thread until a post is refused; returns the wrIds that were accepted. */
    private static java.util.Set<Long> sendUntilRefused(MockEndpoint ep, MemoryRegion src, MockEndpoint peer,
            long firstWrId) {
        java.util.Set<Long> posted = new java.util.HashSet<>();
        long wrId = firstWrId;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (peer.postedReceives() < 4 || ep.outstandingWorkRequests() > 48) {
                if (ep.state() != MockEndpoint.State.CONNECTED) {
                    return posted;
                }
                Thread.onSpinWait();
                continue;
            }
            try {
                ep.postSend(src, 0, 4, wrId);
                posted.add(wrId++);
            } catch (smbdirect.api.rdma.RdmaException e) {
                return posted;
            }
        }
        return posted;
    }

    @Test
    void disconnectUnderBidirectionalLoadCompletesEveryAcceptedRequestExactlyOnceBeforeOnDisconnected()
            throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.THREADED).completionThreads(2).build());
        f.clientConfig = new smbdirect.api.rdma.EndpointSettings(64, 64);
        f.serverConfig = new smbdirect.api.rdma.EndpointSettings(64, 64);
        f.clientReceives = 32;
        f.serverReceives = 32;
        f.connect();
        java.util.Map<TckRecorder, java.util.concurrent.atomic.AtomicInteger> receivesPosted = java.util.Map.of(
                f.client, new java.util.concurrent.atomic.AtomicInteger(32),
                f.server, new java.util.concurrent.atomic.AtomicInteger(32));
        for (TckRecorder r : List.of(f.client, f.server)) {
            MockEndpoint[] self = {r == f.client ? f.clientEp : f.serverEp};
            List<MemoryRegion> regions = r == f.client ? f.clientReceiveRegions : f.serverReceiveRegions;
            r.onCompletion = wc -> {
                if (wc.type() == WorkRequestType.RECEIVE && wc.status() == smbdirect.api.rdma.CompletionStatus.SUCCESS) {
                    MemoryRegion region = regions.get((int) (wc.wrId() - 1000));
                    try {
                        self[0].postReceive(region, 0, region.length(), wc.wrId());
                        receivesPosted.get(r).incrementAndGet();
                    } catch (smbdirect.api.rdma.RdmaException e) {
                        // the connection ended meanwhile
                    }
                }
            };
        }
        MemoryRegion cs = Fixture.region(f.clientEp, new byte[4]);
        MemoryRegion ss = Fixture.region(f.serverEp, new byte[4]);
        java.util.concurrent.atomic.AtomicReference<java.util.Set<Long>> clientPosted = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<java.util.Set<Long>> serverPosted = new java.util.concurrent.atomic.AtomicReference<>();
        Thread a = new Thread(() -> clientPosted.set(sendUntilRefused(f.clientEp, cs, f.serverEp, 1_000_000)));
        Thread b = new Thread(() -> serverPosted.set(sendUntilRefused(f.serverEp, ss, f.clientEp, 2_000_000)));
        a.start();
        b.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((f.clientEp.sendsTransmitted() < 500 || f.serverEp.sendsTransmitted() < 500)
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertTrue(f.clientEp.sendsTransmitted() >= 500 && f.serverEp.sendsTransmitted() >= 500, "traffic flows");
        f.serverEp.disconnect();
        a.join(10_000);
        b.join(10_000);
        assertTrue(f.client.awaitDisconnected(5, TimeUnit.SECONDS));
        assertTrue(f.server.awaitDisconnected(5, TimeUnit.SECONDS));
        assertEquals(DisconnectCause.PEER, f.client.cause());
        assertEquals(DisconnectCause.LOCAL, f.server.cause());
        for (Object[] side : new Object[][] {{f.client, clientPosted.get()}, {f.server, serverPosted.get()}}) {
            TckRecorder r = (TckRecorder) side[0];
            @SuppressWarnings("unchecked")
            java.util.Set<Long> posted = (java.util.Set<Long>) side[1];
            List<TckRecorder.Completion> sends = r.completions(WorkRequestType.SEND);
            assertEquals(posted.size(), sends.size(), "each accepted Send completes exactly once");
            assertEquals(posted, new java.util.HashSet<>(sends.stream().map(TckRecorder.Completion::wrId).toList()));
            long previous = 0;
            for (TckRecorder.Completion c : sends) {
                assertTrue(c.wrId() > previous, "Send completions in post order");
                previous = c.wrId();
            }
            assertEquals(receivesPosted.get(r).get(), r.completions(WorkRequestType.RECEIVE).size(),
                    "every posted receive completes exactly once");
            assertTrue(r.completions(WorkRequestType.RECEIVE).stream()
                    .anyMatch(c -> c.status() == smbdirect.api.rdma.CompletionStatus.FLUSHED));
            assertTrue(r.lastEvent().startsWith("disconnected"));
            assertEquals(0, r.callbacksAfterDisconnect());
            assertFalse(r.overlapped());
        }
        f.closeAll();
    }

    @Test
    void heldCompletionsWaitForReleaseInThreadedMode() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.THREADED).build());
        f.connect();
        f.serverEp.holdCompletions();
        CountDownLatch received = new CountDownLatch(3);
        CountDownLatch first = new CountDownLatch(1);
        f.server.onCompletion = wc -> {
            if (wc.type() == WorkRequestType.RECEIVE) {
                received.countDown();
                first.countDown();
            }
        };
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        for (int i = 0; i < 3; i++) {
            f.clientEp.postSend(src, 0, 4, i);
        }
        assertEquals(3, f.serverEp.pendingCallbacks(), "executed, but held");
        assertEquals(3, received.getCount());
        f.serverEp.releaseCompletions(1);
        assertTrue(first.await(5, TimeUnit.SECONDS));
        assertEquals(2, received.getCount(), "exactly one let through");
        assertEquals(2, f.serverEp.pendingCallbacks());
        f.serverEp.releaseCompletions();
        assertTrue(received.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(1000L, 1001L, 1002L),
                f.server.completions(WorkRequestType.RECEIVE).stream().map(TckRecorder.Completion::wrId).toList());
        f.clientEp.disconnect();
        assertTrue(f.server.awaitDisconnected(5, TimeUnit.SECONDS));
        f.closeAll();
    }

    @Test
    void deviceRemovalInThreadedModeReachesEndpointsAndListeners() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.THREADED).build());
        f.connect();
        f.serverDevice.removeDevice();
        assertTrue(f.server.awaitDisconnected(5, TimeUnit.SECONDS));
        assertEquals(DisconnectCause.DEVICE_REMOVED, f.server.cause());
        assertFalse(f.server.overlapped());
        f.clientEp.disconnect();
        assertTrue(f.client.awaitDisconnected(5, TimeUnit.SECONDS));
        f.closeAll();
        assertTrue(f.listenerEvents().contains("failed:DEVICE_REMOVED"));
    }
}
