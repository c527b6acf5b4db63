package smbdirect.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.standalone.TransportScheduler;
import smbdirect.testsupport.time.VirtualTime;

/**
 * One virtual clock for the transport's timers and a {@link DeliveryMode#DETERMINISTIC} mock fabric:
 * nothing runs by itself; {@link #settle()} delivers everything the fabric holds (and lets scripted
 * peers answer) until nothing moves, {@link #advance(Duration)} moves time forward, firing each timer
 * at its due time and settling after each one, so timers and messages interleave exactly as they
 * would in real time, in microseconds.
 *
 * <p>Give it to {@link smbdirect.standalone.StandaloneTransport.Builder#scheduler}. Thread-safe; a
 * test drives it from one thread.
 */
public final class VirtualClock implements TransportScheduler {

    private final MockFabric fabric;
    private final List<BooleanSupplier> participants = new CopyOnWriteArrayList<>();
    /** The clock and the timers; settling the fabric runs before the first timer and after each. */
    private final VirtualTime time = new VirtualTime();
    private final Runnable settle = this::settleOnce;

    /**
     * A clock driving {@code fabric}.
     *
     * @throws IllegalArgumentException when the fabric is not {@link DeliveryMode#DETERMINISTIC}
     */
    public VirtualClock(MockFabric fabric) {
        this.fabric = Objects.requireNonNull(fabric, "fabric");
        if (fabric.mode() != DeliveryMode.DETERMINISTIC) {
            throw new IllegalArgumentException("a virtual clock drives a DETERMINISTIC fabric, not " + fabric.mode());
        }
    }

    /** The fabric this clock settles. */
    public MockFabric fabric() {
        return fabric;
    }

    /**
     * Adds something that reacts to what the fabric delivered (a scripted peer): called after the
     * fabric ran idle; returns whether it did something (then the fabric runs again).
     */
    public void addParticipant(BooleanSupplier reaction) {
        participants.add(Objects.requireNonNull(reaction, "reaction"));
    }

    /** Removes a participant added by {@link #addParticipant}. */
    public void removeParticipant(BooleanSupplier reaction) {
        participants.remove(reaction);
    }

    @Override
    public long nanoTime() {
        return time.nanoTime();
    }

    /** The time elapsed since the clock was created. */
    public Duration elapsed() {
        return time.elapsed();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        return time.schedule(task, delayNanos)::cancel;
    }

    /** Timers scheduled and neither run nor cancelled. */
    public int pendingTimers() {
        return time.pending();
    }

    /**
     * Delivers everything the fabric holds and lets the participants react, until nothing moves.
     * Time does not move. Timers already due (scheduled with delay 0) run.
     *
     * @throws IllegalStateException when the system does not come to rest within a million rounds
     *     (two parties answering each other forever)
     */
    public void settle() {
        time.runDue(settle);
    }

    /**
     * Moves time forward by {@code d}: settles, then runs each timer that falls due in order at its
     * due time, settling after each.
     */
    public void advance(Duration d) {
        time.advance(d, settle);
    }

    private void settleOnce() {
        for (int round = 0; round < 1_000_000; round++) {
            fabric.runUntilIdle();
            boolean moved = false;
            for (BooleanSupplier p : participants) {
                moved |= p.getAsBoolean();
            }
            if (!moved && fabric.pendingActions() == 0) {
                return;
            }
        }
        throw new IllegalStateException("the fabric did not come to rest: two parties keep answering each other");
    }
}
