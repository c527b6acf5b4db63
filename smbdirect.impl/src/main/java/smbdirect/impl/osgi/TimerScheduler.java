package smbdirect.impl.osgi;

import java.util.concurrent.ScheduledThreadPoolExecutor;

import smbdirect.impl.engine.ExecutorScheduler;
import smbdirect.impl.engine.Scheduler;

/**
 * The production {@link Scheduler} of the transport component: one daemon thread named
 * {@value #THREAD_NAME} shared by every engine. Thread-safe. Timer tasks must not block (the engine
 * hands them to the connection's serial context).
 */
final class TimerScheduler implements Scheduler, AutoCloseable {

    static final String THREAD_NAME = "smbdirect-timer";

    private final ScheduledThreadPoolExecutor executor;
    private final ExecutorScheduler timers;

    TimerScheduler() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timers = new ExecutorScheduler(executor);
    }

    /** The executor (for an engine that wants the executor itself). */
    ScheduledThreadPoolExecutor executor() {
        return executor;
    }

    @Override
    public long nanoTime() {
        return timers.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        return timers.schedule(task, delayNanos);
    }

    /** Stops the timer thread; pending tasks are dropped. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
