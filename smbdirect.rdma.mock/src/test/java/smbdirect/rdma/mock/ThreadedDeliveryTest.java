package smbdirect.rdma.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

/** THREADED delivery: the completion threads survive what handlers do to them. */
class ThreadedDeliveryTest {

    @Test
    void aHandlerThatInterruptsItsCompletionThreadLeavesItIdleAndDelivering() throws Exception {
        Fixture f = new Fixture(MockFabric.builder().name("intr").mode(DeliveryMode.THREADED).completionThreads(1)
                .build());
        f.connect();
        CountDownLatch received = new CountDownLatch(2);
        f.server.onCompletion = wc -> {
            if (wc.type() == WorkRequestType.RECEIVE) {
                Thread.currentThread().interrupt();
                received.countDown();
            }
        };
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        Thread completionThread = completionThread("intr");
        assertTrue(parksSteadily(completionThread), "the interrupted completion thread parks when idle");
        f.clientEp.postSend(src, 0, 4, 2);
        assertTrue(received.await(5, TimeUnit.SECONDS), "both Sends received");
        assertTrue(parksSteadily(completionThread), "and parks again");
        f.clientEp.disconnect();
        assertTrue(f.server.awaitDisconnected(5, TimeUnit.SECONDS));
        f.closeAll();
        completionThread.join(5_000);
        assertFalse(completionThread.isAlive(), "stopped with the fabric");
    }

    @Test
    void anErrorThrownByAHandlerIsRecordedAndTheThreadGoesOnDelivering() throws Exception {
        MockFabric fabric = MockFabric.builder().name("err").mode(DeliveryMode.THREADED).completionThreads(1).build();
        Fixture f = new Fixture(fabric);
        f.connect();
        CountDownLatch received = new CountDownLatch(2);
        f.server.onCompletion = wc -> {
            if (wc.type() == WorkRequestType.RECEIVE) {
                received.countDown();
                if (wc.wrId() == 1000) {
                    throw new Error("handler bug (expected by the test)");
                }
            }
        };
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        f.clientEp.postSend(src, 0, 4, 1);
        f.clientEp.postSend(src, 0, 4, 2);
        assertTrue(received.await(5, TimeUnit.SECONDS), "the Send after the failing callback is delivered");
        f.clientEp.disconnect();
        assertTrue(f.client.awaitDisconnected(5, TimeUnit.SECONDS), "the client's callbacks go on");
        assertTrue(f.server.awaitDisconnected(5, TimeUnit.SECONDS));
        List<String> leaks = fabric.leaks();
        assertTrue(leaks.stream().anyMatch(l -> l.startsWith("handler failure:") && l.contains("handler bug")),
                leaks.toString());
        f.clientEp.close();
        f.serverEp.close();
        f.listener.close();
        Thread completionThread = completionThread("err");
        fabric.close();
        completionThread.join(5_000);
        assertFalse(completionThread.isAlive(), "stopped with the fabric");
    }

    @Test
    void aCompletionThreadTakesQueuedCompletionsTogetherSoTheirWorkRequestsLeaveTheQueueDepthAtOnce()
            throws Exception {
        MockFabric fabric = MockFabric.builder().name("batch").mode(DeliveryMode.THREADED).completionThreads(1)
                .build();
        Fixture f = new Fixture(fabric);
        f.clientConfig = new EndpointSettings(4, 16);
        f.serverReceives = 8;
        f.connect();
        MemoryRegion src = Fixture.region(f.clientEp, new byte[4]);
        List<Integer> outstandingSeen = new CopyOnWriteArrayList<>();
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        CountDownLatch completed = new CountDownLatch(8);
        CountDownLatch firstHandled = new CountDownLatch(1);
        f.client.onCompletion = wc -> {
            if (wc.type() != WorkRequestType.SEND) {
                return;
            }
            outstandingSeen.add(f.clientEp.outstandingWorkRequests());
            if (wc.wrId() == 1) {
                try { // the queue depth is 4: these fit only if all four completions were taken
                    for (int i = 5; i <= 8; i++) {
                        f.clientEp.postSend(src, 0, 4, i);
                    }
                } catch (RdmaException e) {
                    refused.add(e);
                }
                firstHandled.countDown();
            }
            completed.countDown();
        };
        int receives = f.clientEp.outstandingWorkRequests(); // the client's posted receives
        f.clientEp.holdCompletions();
        for (int i = 1; i <= 4; i++) {
            f.clientEp.postSend(src, 0, 4, i);
        }
        assertEquals(receives + 4, f.clientEp.outstandingWorkRequests(), "held: the send queue is full");
        f.clientEp.releaseCompletions();
        assertTrue(firstHandled.await(5, TimeUnit.SECONDS), "the first send completion");
        assertEquals(List.of(), refused, "the 4 posts from the first completion's handler fit the queue");
        assertTrue(completed.await(5, TimeUnit.SECONDS), "8 send completions");
        assertEquals(receives, outstandingSeen.get(0), "all 4 Sends taken before the first was delivered");
        f.closeAll();
    }

    private static Thread completionThread(String fabricName) {
        List<Thread> threads = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("smbdirect-mock-" + fabricName + "-")).toList();
        assertEquals(1, threads.size(), threads.toString());
        return threads.get(0);
    }

    /**
     * The thread is seen parked (WAITING) with its interrupt status clear, within 5 s. A thread in
     * that state stays parked until it is unparked; one whose interrupt status stayed set returns
     * from every park at once and busy-loops, so it is never seen so.
     */
    private static boolean parksSteadily(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (t.getState() == Thread.State.WAITING && !t.isInterrupted()) {
                return true;
            }
            Thread.onSpinWait();
        }
        return false;
    }
}
