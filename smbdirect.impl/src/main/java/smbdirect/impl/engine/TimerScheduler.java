package smbdirect.impl.engine;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * A {@link Scheduler} with a timer thread of its own: one daemon thread named {@value #THREAD_NAME},
 * the wall clock, cancelled tasks removed at once. The transport component shares one among all its
 * engines; a {@code StandaloneTransport} that was given no clock owns one. Thread-safe. Timer tasks
 * must not block (the engine hands them to the connection's serial context).
 */
public final class TimerScheduler implements Scheduler, AutoCloseable {

    /** The name of the timer thread. */
    public static final String THREAD_NAME = "smbdirect-timer";

    private final ScheduledThreadPoolExecutor executor;
    private final ExecutorScheduler timers;

    /** Starts the timer thread. */
    public TimerScheduler() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timers = new ExecutorScheduler(executor);
    }

    /** The executor (for an engine that wants the executor itself, and for tests). */
    public ScheduledThreadPoolExecutor executor() {
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
