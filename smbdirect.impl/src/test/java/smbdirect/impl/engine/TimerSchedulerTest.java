package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

class TimerSchedulerTest {

    @Test
    void aFailingTaskDoesNotStopTheTimer() throws Exception {
        try (TimerScheduler timer = new TimerScheduler()) {
            timer.schedule(() -> {
                throw new IllegalStateException("task failure for the test");
            }, 0);
            CountDownLatch ran = new CountDownLatch(1);
            timer.schedule(ran::countDown, TimeUnit.MILLISECONDS.toNanos(1));
            assertTrue(ran.await(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void cancelledTaskDoesNotRun() throws Exception {
        try (TimerScheduler timer = new TimerScheduler()) {
            AtomicBoolean ran = new AtomicBoolean();
            timer.schedule(() -> ran.set(true), TimeUnit.MILLISECONDS.toNanos(50)).cancel();
            CountDownLatch later = new CountDownLatch(1);
            timer.schedule(later::countDown, TimeUnit.MILLISECONDS.toNanos(100));
            assertTrue(later.await(5, TimeUnit.SECONDS));
            assertFalse(ran.get());
        }
    }

    @Test
    void schedulingAfterCloseIsHarmless() throws Exception {
        TimerScheduler timer = new TimerScheduler();
        timer.close();
        assertTrue(timer.executor().awaitTermination(5, TimeUnit.SECONDS));
        AtomicBoolean ran = new AtomicBoolean();
        timer.schedule(() -> ran.set(true), 0).cancel();
        assertFalse(ran.get());
        assertEquals(0, timer.executor().getQueue().size());
    }
}
