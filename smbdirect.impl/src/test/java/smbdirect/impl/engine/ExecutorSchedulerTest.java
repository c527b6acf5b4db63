package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

/** The production scheduler runs timers on the executor passed in and cancels them. */
class ExecutorSchedulerTest {

    @Test
    void runsAndCancels() throws Exception {
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor();
        try {
            ExecutorScheduler s = new ExecutorScheduler(ex);
            CountDownLatch ran = new CountDownLatch(1);
            AtomicBoolean cancelledRan = new AtomicBoolean();
            s.schedule(() -> cancelledRan.set(true), TimeUnit.MILLISECONDS.toNanos(50)).cancel();
            long t0 = s.nanoTime();
            s.schedule(ran::countDown, TimeUnit.MILLISECONDS.toNanos(100));
            assertTrue(ran.await(10, TimeUnit.SECONDS));
            assertTrue(s.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(100));
            CountDownLatch after = new CountDownLatch(1);
            s.schedule(after::countDown, 0);
            assertTrue(after.await(10, TimeUnit.SECONDS));
            assertFalse(cancelledRan.get(), "a cancelled timer never runs");
        } finally {
            ex.shutdownNow();
        }
    }
}
