package smbdirect.impl.engine;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The production {@link Scheduler}: timers on a {@link ScheduledExecutorService} owned by the
 * caller (typically one named daemon thread), time from {@link System#nanoTime()}. Timer tasks of the
 * engine only hand work to a connection's serial context, so one thread serves all connections.
 *
 * <p>Thread-safe. The executor's lifecycle stays with the caller.
 */
public final class ExecutorScheduler implements Scheduler {

    private final ScheduledExecutorService executor;

    public ExecutorScheduler(ScheduledExecutorService executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }
}
