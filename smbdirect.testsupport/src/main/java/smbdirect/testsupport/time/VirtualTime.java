package smbdirect.testsupport.time;

import java.time.Duration;
import java.util.PriorityQueue;

/**
 * Virtual time: a clock that moves only when told to, and one-shot timers that run when it passes
 * their due time, in the order they fall due (in the order they were scheduled where two fall due
 * at once), each with the clock standing at its due time. Nothing runs by itself: timers run on the
 * thread that calls {@link #advance} or {@link #runDue}, outside every lock of this class, so a
 * timer may schedule others (those that fall due in the same advance run in it too).
 *
 * <p>The one implementation of virtual time of the project's tests, behind the engine's scheduler in
 * its own tests and the test kit's {@code VirtualClock}; an {@code afterEach} step (the kit: deliver
 * what the fabric holds) runs before the first timer and after every timer.
 *
 * <p>Thread-safe; a test drives it from one thread.
 */
public final class VirtualTime {

    /** The clock's reading before it first moved: not 0, so that a time before it is still positive. */
    public static final long START_NANOS = 1_000_000_000L;

    private static final Runnable NOTHING = () -> { };

    /** A timer that has been scheduled. */
    @FunctionalInterface
    public interface Timer {
        /** Cancels the timer if it has not run; idempotent. */
        void cancel();
    }

    private final class Task implements Timer {
        final long due;
        final long seq;
        final Runnable run;
        boolean cancelled;

        Task(long due, long seq, Runnable run) {
            this.due = due;
            this.seq = seq;
            this.run = run;
        }

        @Override
        public void cancel() {
            synchronized (VirtualTime.this) {
                cancelled = true;
            }
        }
    }

    private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.due != b.due
            ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now = START_NANOS;
    private long seq;
    private int scheduled;

    /** The clock, in nanoseconds; only differences are meaningful. */
    public synchronized long nanoTime() {
        return now;
    }

    /** How far the clock has moved. */
    public synchronized Duration elapsed() {
        return Duration.ofNanos(now - START_NANOS);
    }

    /** Runs {@code task} once when the clock has moved {@code delayNanos} on (0 or negative: at the next advance or {@link #runDue}). */
    public synchronized Timer schedule(Runnable task, long delayNanos) {
        scheduled++;
        Task t = new Task(now + Math.max(0, delayNanos), seq++, task);
        tasks.add(t);
        return t;
    }

    /** Calls of {@link #schedule} so far. */
    public synchronized int scheduledCount() {
        return scheduled;
    }

    /** Timers scheduled that have neither run nor been cancelled. */
    public synchronized int pending() {
        int n = 0;
        for (Task t : tasks) {
            if (!t.cancelled) {
                n++;
            }
        }
        return n;
    }

    /** Moves the clock on by {@code d}, running every timer that falls due, in order, each at its due time. */
    public void advance(Duration d) {
        advance(d, NOTHING);
    }

    /**
     * Moves the clock on by {@code d}: runs {@code afterEach}, then every timer that falls due, in
     * order, each at its due time and each followed by {@code afterEach}; the clock then stands at
     * the target, and timers scheduled there by {@code afterEach} run as in {@link #runDue}.
     *
     * @throws IllegalArgumentException when {@code d} is negative
     */
    public void advance(Duration d, Runnable afterEach) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("time only moves forward: " + d);
        }
        long target;
        synchronized (this) {
            target = now + d.toNanos();
        }
        afterEach.run();
        runUntil(target, afterEach);
        synchronized (this) {
            now = target;
        }
        runDue(afterEach);
    }

    /**
     * Without moving the clock: runs {@code afterEach}, then every timer already due (scheduled with
     * no delay), each followed by {@code afterEach}, until none is due.
     */
    public void runDue(Runnable afterEach) {
        afterEach.run();
        runUntil(nanoTime(), afterEach);
    }

    /** Runs the timers due at {@code limit} at the latest, in order, the clock at each one's due time. */
    private void runUntil(long limit, Runnable afterEach) {
        for (;;) {
            Task t;
            synchronized (this) {
                t = tasks.peek();
                if (t == null || t.due > limit) {
                    return;
                }
                tasks.poll();
                now = Math.max(now, t.due);
                if (t.cancelled) {
                    continue;
                }
            }
            t.run.run();
            afterEach.run();
        }
    }
}
