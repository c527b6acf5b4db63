package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import smbdirect.testsupport.AllocationCounter;

/** The serial context's array ring with its overflow: order, bursts, no loss, no allocation. */
class SerialExecutorTest {

    @Test
    void burstBeyondTheRingOverflowsInOrderAndIsCounted() {
        SerialExecutor s = new SerialExecutor(4);
        List<Integer> order = new ArrayList<>();
        s.execute(() -> {
            for (int i = 0; i < 20; i++) {
                int v = i;
                s.execute(() -> order.add(v));
            }
        });
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i);
        }
        assertEquals(expected, order);
        assertEquals(16, s.overflowed(), "the 4 that fit the ring are not counted");
        order.clear();
        s.execute(() -> s.execute(() -> order.add(99)));
        assertEquals(List.of(99), order);
        assertEquals(16, s.overflowed(), "the ring is used again once the overflow is empty");
    }

    @Test
    void capacityMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new SerialExecutor(6));
        assertThrows(IllegalArgumentException.class, () -> new SerialExecutor(1));
    }

    @Test
    void smallRingUnderConcurrentSubmittersKeepsEachSubmittersOrderAndLosesNothing() throws Exception {
        SerialExecutor s = new SerialExecutor(8);
        int threads = 4;
        int perThread = 20000;
        int[] last = new int[threads];
        java.util.Arrays.fill(last, -1);
        boolean[] bad = new boolean[2]; // [0] overlap, [1] order
        int[] inside = new int[1];
        int[] count = new int[1];
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    int v = i;
                    s.execute(() -> {
                        if (++inside[0] != 1) {
                            bad[0] = true;
                        }
                        if (last[id] != v - 1) {
                            bad[1] = true;
                        }
                        last[id] = v;
                        count[0]++;
                        if (v % 64 == 0) {
                            s.execute(() -> count[0]++); // re-entrant submission
                        }
                        inside[0]--;
                    });
                }
            });
            ts.add(th);
            th.start();
        }
        go.countDown();
        for (Thread th : ts) {
            th.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(th.isAlive());
        }
        CountDownLatch drained = new CountDownLatch(1);
        s.execute(drained::countDown);
        assertTrue(drained.await(10, TimeUnit.SECONDS));
        int reentrant = threads * ((perThread + 63) / 64);
        assertEquals(threads * perThread + reentrant, count[0], "no task lost");
        assertFalse(bad[0], "never two tasks at once");
        assertFalse(bad[1], "each submitter's tasks run in its order");
    }

    @Test
    void queueingOnABusyContextAllocatesNothing() {
        AllocationCounter mx = AllocationCounter.enabled();
        SerialExecutor s = new SerialExecutor(64);
        AtomicInteger runs = new AtomicInteger();
        Runnable leaf = runs::incrementAndGet;
        Runnable burst = () -> {
            for (int i = 0; i < 32; i++) {
                s.execute(leaf);
            }
        };
        for (int i = 0; i < 20000; i++) {
            s.execute(burst);
        }
        long tid = Thread.currentThread().getId();
        long before = mx.bytes(tid);
        for (int i = 0; i < 10000; i++) {
            s.execute(burst);
        }
        long allocated = mx.bytes(tid) - before;
        assertEquals(30000 * 32, runs.get());
        assertEquals(0, s.overflowed());
        assertTrue(allocated < 1024, "330,000 tasks queued and run allocated " + allocated + " bytes");
    }
}
