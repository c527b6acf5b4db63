package smbdirect.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Bounded waiting for the benchmark thread (the fabric's threads make the progress), without
 * allocation: {@code while (notYet) spin.idle(what); spin.reset();}. Two kinds: spin then yield
 * ({@link #Spin()}), or spin then sleep until the thread that makes the progress wakes the waiter
 * ({@link #wokenBy}). Not thread-safe: one per benchmark thread (only {@link #wake} is called by
 * others).
 */
final class Spin {

    private static final long TIMEOUT_NANOS = 10_000_000_000L;

    /** Nanoseconds to park at most per round once spinning gave nothing; 0: yield instead. */
    private final long parkNanos;
    private int spins;
    /** The waiting thread while it may park, for {@link #wake(long)}. */
    private volatile Thread waiter;
    /** The progress the waiting thread waits for ({@link #until(long)}). */
    private volatile long wakeAt = Long.MAX_VALUE;

    /** Spins, then yields: for benchmarks whose operations take microseconds. */
    Spin() {
        this(0);
    }

    private Spin(long parkNanos) {
        this.parkNanos = parkNanos;
    }

    /**
     * Spins, then parks until the thread that makes the progress calls {@link #wake(long)} (at most
     * {@code parkNanos} per round): for benchmarks whose operations take hundreds of microseconds
     * and whose progress is made by other threads on the same few cores. The floor such a benchmark
     * is compared with sleeps in the kernel until the socket wakes it; a yielding waiter, or a timed
     * poll, would take the CPU those threads need.
     */
    static Spin wokenBy(long parkNanos) {
        return new Spin(parkNanos);
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
        if (parkNanos > 0 && waiter == null) {
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
        if (parkNanos > 0) {
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
