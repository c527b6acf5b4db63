package smbdirect.impl.osgi;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.impl.engine.Scheduler;

/**
 * The production {@link Scheduler} of the transport component: one daemon thread named
 * {@value #THREAD_NAME} shared by every engine. Thread-safe. Timer tasks must not block (the engine
 * hands them to the connection's serial context).
 */
final class TimerScheduler implements Scheduler, AutoCloseable {

    static final String THREAD_NAME = "smbdirect-timer";

    private static final Logger LOG = LoggerFactory.getLogger(TimerScheduler.class);

    private final ScheduledThreadPoolExecutor executor;

    TimerScheduler() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** The executor (for an engine that wants the executor itself). */
    ScheduledThreadPoolExecutor executor() {
        return executor;
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        Runnable guarded = () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.error("Timer task failed", e);
            }
        };
        ScheduledFuture<?> f;
        try {
            f = executor.schedule(guarded, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("Timer stopped; task not scheduled");
            return () -> { };
        }
        return () -> f.cancel(false);
    }

    /** Stops the timer thread; pending tasks are dropped. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
