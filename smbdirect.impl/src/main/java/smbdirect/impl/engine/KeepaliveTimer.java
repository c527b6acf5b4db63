package smbdirect.impl.engine;

/**
 * The Idle Connection Timer of one connection ([MS-SMBD] 3.1.2.2, 3.1.6.2): due KeepaliveInterval
 * after the last received message while no keepalive is outstanding, and the keepalive response
 * timeout after a keepalive was requested (R-3.1.5.1-11, Windows 5 s). Timer values are read from
 * the settings each time the timer is armed, so changed settings apply at once.
 *
 * <p>Receiving a message only records the time (no timer churn per message); when the timer fires
 * early it re-arms itself for the remaining time. Not thread-safe: owned by the connection's serial
 * context.
 */
final class KeepaliveTimer {

    private final Scheduler scheduler;
    private final Runnable fire;
    private Scheduler.Cancellable handle;
    private long lastReceiveNanos;
    private long requestedNanos;

    /**
     * @param scheduler time and timers
     * @param fire what runs when the timer falls due (hands over to the serial context)
     */
    KeepaliveTimer(Scheduler scheduler, Runnable fire) {
        this.scheduler = scheduler;
        this.fire = fire;
    }

    /** A message arrived (R-3.1.5.5-03). */
    void received() {
        lastReceiveNanos = scheduler.nanoTime();
    }

    /** A keepalive was requested or sent now: the response timeout runs from here. */
    void keepaliveRequested() {
        requestedNanos = scheduler.nanoTime();
    }

    /** When the timer is due for {@code state} under {@code settings}. */
    long deadline(KeepaliveRequested state, TransportSettings settings) {
        if (state == KeepaliveRequested.NONE) {
            return lastReceiveNanos + settings.keepaliveInterval().toNanos();
        }
        return requestedNanos + settings.keepaliveResponseTimeout().toNanos();
    }

    /** Whether the timer is due now. */
    boolean due(KeepaliveRequested state, TransportSettings settings) {
        return scheduler.nanoTime() >= deadline(state, settings);
    }

    /** (Re)arms the timer for {@code state}. */
    void arm(KeepaliveRequested state, TransportSettings settings) {
        cancel();
        handle = scheduler.schedule(fire, deadline(state, settings) - scheduler.nanoTime());
    }

    /** Stops the timer. */
    void cancel() {
        if (handle != null) {
            handle.cancel();
            handle = null;
        }
    }
}
