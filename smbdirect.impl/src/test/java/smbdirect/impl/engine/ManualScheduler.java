package smbdirect.impl.engine;

import java.time.Duration;
import java.util.PriorityQueue;

/** Virtual time for tests: timers run only when the test advances the clock. */
public final class ManualScheduler implements Scheduler {

    private record Task(long due, long seq, Runnable run, boolean[] cancelled) {
    }

    private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.due != b.due
            ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now = 1_000_000_000L;
    private long seq;
    private int scheduled;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, long delayNanos) {
        boolean[] cancelled = new boolean[1];
        scheduled++;
        tasks.add(new Task(now + Math.max(0, delayNanos), seq++, task, cancelled));
        return () -> cancelled[0] = true;
    }

    /** Advances virtual time, running every timer that falls due, in order. */
    public void advance(Duration d) {
        long target;
        synchronized (this) {
            target = now + d.toNanos();
        }
        for (;;) {
            Task t;
            synchronized (this) {
                t = tasks.peek();
                if (t == null || t.due > target) {
                    now = target;
                    return;
                }
                tasks.poll();
                now = Math.max(now, t.due);
            }
            if (!t.cancelled[0]) {
                t.run.run();
            }
        }
    }

    /** Calls of {@link #schedule} so far. */
    public synchronized int scheduledCount() {
        return scheduled;
    }

    /** Timers scheduled and not cancelled. */
    public synchronized int pending() {
        return (int) tasks.stream().filter(t -> !t.cancelled[0]).count();
    }
}
