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
    /** Whether the thread that makes the progress calls {@link #wake()}: parks until woken. */
    private final boolean woken;
    private int spins;
    /** The waiting thread while it may park, for {@link #wake(long)}. */
    private volatile Thread waiter;
    /** The progress the waiting thread waits for ({@link #until(long)}). */
    private volatile long wakeAt = Long.MAX_VALUE;

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
        this(parkNanos, false);
    }

    /**
     * Spins, then parks until the thread that makes the progress calls {@link #wake(long)} (at most
     * {@code parkNanos} per round): as the floor's writer sleeps in the kernel until the socket
     * wakes it, and without the wake-ups of a timed poll, which take the CPU from the fabric's
     * threads on a small machine.
     */
    static Spin wokenBy(long parkNanos) {
        return new Spin(parkNanos, true);
    }

    private Spin(long parkNanos, boolean woken) {
        this.parkNanos = parkNanos;
        this.woken = woken;
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
        if (woken && waiter == null) {
            // announce first, park on the next round: the caller's condition is checked again in
            // between, so progress made before the announcement is seen and progress after it
            // unparks (LockSupport's permit covers a wake that comes before the park)
            waiter = Thread.currentThread();
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

    /**
     * Starts a wait of a {@link #wokenBy} spin for the progress counter to reach {@code progress}:
     * {@code spin.until(n); while (counter < n) spin.idle(what); spin.reset();}.
     */
    void until(long progress) {
        wakeAt = progress;
    }

    /** Ends a wait. */
    void reset() {
        spins = 0;
        deadline = 0;
        if (waiter != null) {
            waiter = null;
            wakeAt = Long.MAX_VALUE;
        }
    }

    /**
     * Called by the thread that made progress, after publishing its counter (a volatile write):
     * unparks the waiting thread once the counter reaches what it waits for. The waiter publishes
     * its target and itself before it checks the counter again, so one side always sees the other.
     */
    void wake(long progress) {
        if (progress >= wakeAt) {
            Thread t = waiter;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }
}
