package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The production scheduler runs timers on the executor passed in and cancels them. */
class ExecutorSchedulerTest {

    @Test
    void runsAndCancels() throws Exception {
        ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1);
        ex.setRemoveOnCancelPolicy(true);
        try {
            ExecutorScheduler s = new ExecutorScheduler(ex);
            Scheduler.Cancellable far = s.schedule(() -> { }, TimeUnit.MINUTES.toNanos(10));
            assertEquals(1, ex.getQueue().size());
            far.cancel();
            assertEquals(0, ex.getQueue().size(), "a cancelled timer is gone");
            CountDownLatch ran = new CountDownLatch(1);
            long t0 = s.nanoTime();
            s.schedule(ran::countDown, TimeUnit.MILLISECONDS.toNanos(100));
            assertTrue(ran.await(10, TimeUnit.SECONDS));
            assertTrue(s.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(100), "not before its delay");
            CountDownLatch now = new CountDownLatch(1);
            s.schedule(now::countDown, -5);
            assertTrue(now.await(10, TimeUnit.SECONDS), "a negative delay runs as soon as possible");
        } finally {
            ex.shutdownNow();
        }
    }

    @Test
    void onAStoppedExecutorSchedulingDoesNothingAndCancellingIsHarmless() {
        ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1);
        ex.shutdownNow();
        ExecutorScheduler s = new ExecutorScheduler(ex);
        Scheduler.Cancellable c = s.schedule(() -> {
            throw new AssertionError("must not run");
        }, 0);
        c.cancel();
        assertEquals(0, ex.getQueue().size());
    }
}
