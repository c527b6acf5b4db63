package smbdirect.standalone;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Time for a transport built by {@link StandaloneTransport}: a monotonic clock and one-shot timers
 * (the Negotiation, Idle Connection, keepalive response and Send Credit Grant timers of [MS-SMBD]
 * 3.1.2 and 3.1.6). Give one to the builder to run the transport in virtual time (the test kit's
 * virtual clock is one); without it the transport uses the wall clock and one timer thread.
 *
 * <p>Implementations must be thread-safe. A task handed to {@link #schedule} must not block: the
 * transport only hands the work to the connection's serial context.
 */
@ConsumerType
public interface TransportScheduler {

    /** Monotonic time in nanoseconds; only differences are meaningful. */
    long nanoTime();

    /**
     * Runs {@code task} once, {@code delayNanos} after now (0 or negative: as soon as possible).
     *
     * @return a handle that cancels the task if it has not started yet
     */
    Cancellable schedule(Runnable task, long delayNanos);

    /** A scheduled task that can be cancelled. */
    @FunctionalInterface
    @ConsumerType
    interface Cancellable {
        /** Cancels the task if it has not started; idempotent. */
        void cancel();
    }
}
