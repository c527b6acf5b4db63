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
        f.client.reentrantAllowed = true;
        f.server.reentrantAllowed = true;
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
        assertTrue(f.client.disconnectedLatch.await(5, TimeUnit.SECONDS));
        assertTrue(f.server.disconnectedLatch.await(5, TimeUnit.SECONDS));
        f.closeAll();
    }

    @Test
    void heldCompletionsWaitForReleaseInThreadedMode() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.THREADED).build());
        f.connect();
        f.serverEp.holdCompletions();
        CountDownLatch received = new CountDownLatch(3);
        f.server.onCompletion = wc -> {
            if (wc.type() == WorkRequestType.RECEIVE) {
                received.countDown();
            }
        };
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        for (int i = 0; i < 3; i++) {
            f.clientEp.postSend(src, 0, 4, i);
        }
        assertEquals(3, f.serverEp.pendingCallbacks(), "executed, but held");
        assertEquals(3, received.getCount());
        f.serverEp.releaseCompletions();
        assertTrue(received.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(1000L, 1001L, 1002L),
                f.server.completions(WorkRequestType.RECEIVE).stream().map(Recorder.Completion::wrId).toList());
        f.clientEp.disconnect();
        assertTrue(f.server.disconnectedLatch.await(5, TimeUnit.SECONDS));
        f.closeAll();
    }

    @Test
    void deviceRemovalInThreadedModeReachesEndpointsAndListeners() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().mode(DeliveryMode.THREADED).build());
        f.connect();
        f.serverDevice.removeDevice();
        assertTrue(f.server.disconnectedLatch.await(5, TimeUnit.SECONDS));
        assertEquals(DisconnectCause.DEVICE_REMOVED, f.server.cause);
        assertFalse(f.server.concurrentCallbacks);
        f.clientEp.disconnect();
        assertTrue(f.client.disconnectedLatch.await(5, TimeUnit.SECONDS));
        f.closeAll();
        assertTrue(f.listenerEvents().contains("failed:DEVICE_REMOVED"));
    }
}
