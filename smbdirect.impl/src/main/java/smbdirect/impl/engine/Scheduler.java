package smbdirect.impl.engine;

/**
 * Time for the engine: a clock and one-shot timers. The engine has no threads or wall clock of
 * its own; production passes a scheduler backed by a single named timer thread, tests a virtual
 * clock they advance by hand.
 *
 * <p>Implementations are thread-safe. A timer task must not block; the engine hands it to the
 * owning connection's serial context at once.
 */
public interface Scheduler {

    /** Monotonic time in nanoseconds (only differences are meaningful). */
    long nanoTime();

    /**
     * Runs {@code task} once after {@code delayNanos} (0 or negative: as soon as possible).
     *
     * @return a handle that cancels the task if it has not started yet
     */
    Cancellable schedule(Runnable task, long delayNanos);

    /** A scheduled task that can be cancelled. */
    @FunctionalInterface
    interface Cancellable {
        /** Cancels the task if it has not started; idempotent. */
        void cancel();
    }
}
