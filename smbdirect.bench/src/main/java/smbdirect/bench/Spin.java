package smbdirect.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Bounded busy waiting for the benchmark thread (the fabric's threads make the progress), without
 * allocation: {@code while (notYet) spin.idle(what); spin.reset();}. Not thread-safe: one per
 * benchmark thread.
 */
final class Spin {

    private static final long TIMEOUT_NANOS = 10_000_000_000L;

    /** Nanoseconds to park per round once spinning gave nothing; 0: yield instead. */
    private final long parkNanos;
    private int spins;

    /** Spins, then yields: for benchmarks whose operations take microseconds. */
    Spin() {
        this(0);
    }

    /**
     * Spins, then parks {@code parkNanos} per round: for benchmarks whose operations take hundreds
     * of microseconds and whose progress is made by other threads on the same few cores (a yielding
     * waiter would take the CPU they need; the floor such a benchmark is compared with blocks in the
     * kernel instead).
     */
    Spin(long parkNanos) {
        this.parkNanos = parkNanos;
    }
    private long deadline;

    /**
     * One round of waiting: spins briefly, then yields or parks (two cores are shared with the
     * fabric's completion threads).
     *
     * @throws IllegalStateException after about 10 s without progress (a lost message: the
     *     benchmark is broken)
     */
    void idle(String what) {
        if (++spins < 200) {
            Thread.onSpinWait();
            return;
        }
        if (parkNanos > 0) {
            LockSupport.parkNanos(parkNanos);
        } else {
            Thread.yield();
        }
        if (parkNanos > 0 || (spins & 0x3ff) == 0) {
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + TIMEOUT_NANOS;
            } else if (now > deadline) {
                throw new IllegalStateException("no progress waiting for " + what);
            }
        }
    }

    /** Ends a wait. */
    void reset() {
        spins = 0;
        deadline = 0;
    }
}
