package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/** The lock-free pool of entries that threads share when they find a connection busy. */
class SharedPoolTest {

    @Test
    void holdsAtMostItsCapacityAndHandsEntriesBackInOrder() {
        SharedPool<String> pool = new SharedPool<>(4);
        assertNull(pool.poll(), "empty at first: the caller creates an entry");
        for (String s : new String[] {"a", "b", "c", "d"}) {
            assertTrue(pool.offer(s));
        }
        assertFalse(pool.offer("e"), "full: the extra entry is left to the collector");
        // (under concurrency a give-back racing a take may also be reported full: the entry is then
        // left to the collector, never handed out twice)
        assertSame("a", pool.poll());
        assertTrue(pool.offer("e"));
        assertEquals("b", pool.poll());
        assertEquals("c", pool.poll());
        assertEquals("d", pool.poll());
        assertEquals("e", pool.poll());
        assertNull(pool.poll());
    }

    @Test
    void capacityMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> new SharedPool<>(12));
        assertThrows(IllegalArgumentException.class, () -> new SharedPool<>(1));
    }

    /** An entry that detects being handed to two threads at once. */
    static final class Entry {
        final AtomicBoolean taken = new AtomicBoolean();
    }

    @Test
    void threadsTakingAndGivingBackConcurrentlyNeverShareAnEntryOrLoseOne() throws Exception {
        SharedPool<Entry> pool = new SharedPool<>(8);
        for (int i = 0; i < 8; i++) {
            pool.offer(new Entry());
        }
        int threads = 4;
        int rounds = 200_000;
        AtomicLong doubleTakes = new AtomicLong();
        AtomicLong empties = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        Entry e = pool.poll();
                        if (e == null) {
                            empties.incrementAndGet();
                            continue;
                        }
                        if (!e.taken.compareAndSet(false, true)) {
                            doubleTakes.incrementAndGet();
                        }
                        e.taken.set(false);
                        if (!pool.offer(e)) {
                            refused.incrementAndGet(); // a taker between claim and release: reported full
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "pool-user-" + t).start();
        }
        start.countDown();
        assertTrue(done.await(60, TimeUnit.SECONDS));
        assertEquals(0, doubleTakes.get(), "an entry was handed out to two threads at once");
        int left = 0;
        while (pool.poll() != null) {
            left++;
        }
        assertEquals(8, left + refused.get(), "every entry is in the pool or was refused as extra, none lost");
    }
}
