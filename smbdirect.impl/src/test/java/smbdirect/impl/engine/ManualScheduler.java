package smbdirect.impl.engine;

import java.time.Duration;

import smbdirect.testsupport.time.VirtualTime;

/** Virtual time for the engine's tests ({@link VirtualTime}): timers run only when the test advances the clock. */
public final class ManualScheduler implements Scheduler {

    private final VirtualTime time = new VirtualTime();

    @Override
    public long nanoTime() {
        return time.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        return time.schedule(task, delayNanos)::cancel;
    }

    /** Advances virtual time, running every timer that falls due, in order. */
    public void advance(Duration d) {
        time.advance(d);
    }

    /** Calls of {@link #schedule} so far. */
    public int scheduledCount() {
        return time.scheduledCount();
    }

    /** Timers scheduled and not cancelled. */
    public int pending() {
        return time.pending();
    }
}
