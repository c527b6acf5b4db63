package smbdirect.impl.engine;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production {@link Scheduler}: timers on a {@link ScheduledExecutorService} owned by the
 * caller (typically one named daemon thread), time from {@link System#nanoTime()}. Timer tasks of the
 * engine only hand work to a connection's serial context, so one thread serves all connections.
 *
 * <p>A task that throws is logged and does not disturb later ones; once the executor is shut down,
 * {@code schedule} does nothing and returns a no-op {@link Scheduler.Cancellable} (a transport being
 * stopped may still arm a timer).
 *
 * <p>Thread-safe. The executor's lifecycle stays with the caller.
 */
public final class ExecutorScheduler implements Scheduler {

    private static final Logger LOG = LoggerFactory.getLogger(ExecutorScheduler.class);

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
            LOG.debug("Timer executor stopped; task not scheduled");
            return () -> { };
        }
        return () -> f.cancel(false);
    }
}
