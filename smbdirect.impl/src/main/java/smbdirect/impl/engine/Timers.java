package smbdirect.impl.engine;

import smbdirect.api.CloseReason;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.impl.wire.SmbdWire;

/**
 * The timers of one connection ([MS-SMBD] 3.1.2, 3.1.6) and the keepalive state they drive:
 *
 * <ul>
 * <li>the Negotiation Timer (3.1.2.1, 3.1.6.1): from the connect call (active) or the connection's
 * arrival (passive) until negotiation completed;</li>
 * <li>the Idle Connection Timer (3.1.2.2, 3.1.6.2) with Connection.KeepaliveRequested: due
 * KeepaliveInterval after the last received message while no keepalive is outstanding, then it
 * requests one (the next message sent carries SMB_DIRECT_RESPONSE_REQUESTED, 3.1.5.1), and the
 * keepalive response timeout after a keepalive was requested (R-3.1.5.1-11, Windows 5 s);</li>
 * <li>the Credit Grant Timer (A-21, Windows' "Send Credit Grant Timer"): messages wait for Send
 * Credits longer than {@code creditGrantTimeout} and the connection closes.</li>
 * </ul>
 *
 * <p>Timer values are read from the settings each time a timer is armed: the connection gives the
 * settings when it makes the timers and again whenever they change ({@link #settingsChanged}), so
 * changed settings apply at once. Receiving a message only records the time and sending one checks
 * a flag (no timer churn per message); a timer that fires early re-arms itself for the remaining
 * time (a lazy deadline). Fired timers hand their work to the serial context. The send loop that
 * sends a keepalive is made after the timers and is reached through the narrow {@link SendLoop}.
 * Not thread-safe except {@link #settingsChanged}: owned by the connection's serial context.
 */
final class Timers {

    /**
     * What the timers ask of the send loop: to run now (a keepalive is due) and how many messages
     * wait (for the reason of a credit grant timeout). The send path is made after the timers, which
     * it uses, so the connection hands them this instead of the send path itself.
     */
    interface SendLoop {

        /** Runs the send loop (serial context). */
        void pump();

        /** Messages in Connection.SendQueue. */
        int queueDepth();
    }

    private final Connection connection;
    private final SerialExecutor serial;
    private final Scheduler scheduler;
    private final CreditManager credits;
    private final SendLoop sendLoop;
    /** The transport's settings as they stand (given when made and on every change, from any thread). */
    private volatile TransportSettings settings;
    private final Runnable negotiationTimeoutTask;
    private final Runnable idleTask;
    private final Runnable idleTimerTask;
    private final Runnable creditTask;
    private final Runnable creditTimerTask;
    private Scheduler.Cancellable negotiationTimer;

    /** Connection.KeepaliveRequested (3.1.1.1). */
    private KeepaliveRequested keepaliveRequested = KeepaliveRequested.NONE;
    private Scheduler.Cancellable idleTimer;
    private long lastReceiveNanos;
    private long requestedNanos;
    private long keepalivesSent;

    private Scheduler.Cancellable creditTimer;
    /** When the current credit stall began, or -1. */
    private long creditStallSince = -1;
    private long creditStalls;

    Timers(Connection connection, SerialExecutor serial, Scheduler scheduler, TransportSettings settings,
            CreditManager credits, SendLoop sendLoop) {
        this.connection = connection;
        this.serial = serial;
        this.scheduler = scheduler;
        this.settings = settings;
        this.credits = credits;
        this.sendLoop = sendLoop;
        this.negotiationTimeoutTask = () -> serial.execute(this::onNegotiationTimeout);
        this.idleTask = this::onIdleTimer;
        this.idleTimerTask = () -> serial.execute(idleTask);
        this.creditTask = this::onCreditTimer;
        this.creditTimerTask = () -> serial.execute(creditTask);
    }

    private TransportSettings settings() {
        return settings;
    }

    // ---- Negotiation Timer (3.1.2.1, 3.1.6.1) ----

    /** Starts the Negotiation Timer. */
    void startNegotiationTimer(long nanos) {
        negotiationTimer = scheduler.schedule(negotiationTimeoutTask, nanos);
    }

    /** Starts the Negotiation Timer of the passive side: passiveNegotiationTimeout as the settings stand. */
    void startPassiveNegotiationTimer() {
        startNegotiationTimer(settings().passiveNegotiationTimeout().toNanos());
    }

    private void onNegotiationTimeout() {
        if (connection.isNegotiating()) {
            // R-3.1.6.1-01, -02
            connection.close(new CloseReason(CloseReason.Kind.NEGOTIATION_TIMEOUT, "R-3.1.6.1-01",
                    "no negotiation within the Negotiation Timer (role "
                            + (connection.initiator ? "ACTIVE" : "PASSIVE") + ")"));
        }
    }

    private void cancelNegotiationTimer() {
        if (negotiationTimer != null) {
            negotiationTimer.cancel();
            negotiationTimer = null;
        }
    }

    /**
     * Negotiation completed: the Negotiation Timer stops (R-3.1.5.6-20, R-3.1.5.7-20) and the Idle
     * Connection Timer starts (R-3.1.5.6-21, R-3.1.5.7-21).
     */
    void negotiated() {
        cancelNegotiationTimer();
        lastReceiveNanos = scheduler.nanoTime();
        armIdleTimer();
    }

    // ---- Idle Connection Timer and KeepaliveRequested (3.1.2.2, 3.1.6.2) ----

    /** Connection.KeepaliveRequested. */
    KeepaliveRequested keepaliveRequested() {
        return keepaliveRequested;
    }

    /** When the Idle Connection Timer is due for the current keepalive state and settings. */
    private long idleDeadline(TransportSettings settings) {
        if (keepaliveRequested == KeepaliveRequested.NONE) {
            return lastReceiveNanos + settings.keepaliveInterval().toNanos();
        }
        return requestedNanos + settings.keepaliveResponseTimeout().toNanos();
    }

    /** (Re)arms the Idle Connection Timer for the current keepalive state and settings. */
    private void armIdleTimer() {
        if (idleTimer != null) {
            idleTimer.cancel();
        }
        idleTimer = scheduler.schedule(idleTimerTask, idleDeadline(settings()) - scheduler.nanoTime());
    }

    private void onIdleTimer() {
        if (!connection.isEstablished()) {
            return;
        }
        TransportSettings settings = settings();
        if (scheduler.nanoTime() < idleDeadline(settings)) {
            armIdleTimer(); // a message arrived meanwhile: wait for the rest
            return;
        }
        if (keepaliveRequested != KeepaliveRequested.NONE) {
            // R-3.1.6.2-01
            connection.close(new CloseReason(CloseReason.Kind.KEEPALIVE_TIMEOUT, "R-3.1.6.2-01",
                    "no message within " + settings.keepaliveResponseTimeout().toMillis()
                            + " ms after a keepalive (KeepaliveRequested " + keepaliveRequested + ")"));
            return;
        }
        // R-3.1.6.2-02, -03, -04
        keepaliveRequested = KeepaliveRequested.PENDING;
        requestedNanos = scheduler.nanoTime();
        armIdleTimer();
        sendLoop.pump();
    }

    /**
     * A message arrived: it restarts the Idle Connection Timer (R-3.1.5.5-03) and answers a keepalive
     * (R-3.1.5.5-04).
     */
    void messageReceived() {
        lastReceiveNanos = scheduler.nanoTime();
        if (keepaliveRequested != KeepaliveRequested.NONE) {
            keepaliveAnswered(); // (apart, so that this method stays small enough to be inlined per message)
        }
    }

    private void keepaliveAnswered() {
        if (connection.isEstablished()) {
            keepaliveRequested = KeepaliveRequested.NONE;
            armIdleTimer();
        }
    }

    /** Whether a keepalive is to be sent (a message goes out even when nothing is queued). */
    boolean keepalivePending() {
        return keepaliveRequested == KeepaliveRequested.PENDING;
    }

    /** The Flags of the next message sent (R-3.1.5.1-12: 0 unless a keepalive is pending). */
    int flagsForNextMessage() {
        return keepaliveRequested == KeepaliveRequested.PENDING ? keepaliveSent() : 0;
    }

    /** R-3.1.5.1-10, -11: the message now sent requests a response; its timeout runs from here. */
    private int keepaliveSent() {
        keepaliveRequested = KeepaliveRequested.SENT;
        requestedNanos = scheduler.nanoTime();
        keepalivesSent++;
        armIdleTimer();
        return SmbdWire.FLAG_RESPONSE_REQUESTED;
    }

    /** Keepalives sent (tests, DTO). */
    long keepalivesSent() {
        return keepalivesSent;
    }

    // ---- Credit Grant Timer (A-21) ----

    /** Messages wait for a Send Credit: a stall begins unless one runs, and the timer with it. */
    void creditStall() {
        if (creditStallSince < 0) {
            creditStallSince = scheduler.nanoTime();
            creditStalls++;
            long timeout = settings().creditGrantTimeout().toNanos();
            if (timeout > 0 && creditTimer == null) {
                creditTimer = scheduler.schedule(creditTimerTask, timeout);
            }
        }
    }

    /**
     * The stall is over. The credit timer is left to run out (a lazy deadline, as idle-state timers
     * do): it finds no stall and ends, or a later stall's deadline and re-arms for the rest, so a
     * sender that stalls and resumes many times a second schedules one timer per timeout, not one
     * per stall.
     */
    void creditsAvailable() {
        creditStallSince = -1;
    }

    private void onCreditTimer() {
        creditTimer = null;
        if (!connection.isEstablished() || creditStallSince < 0) {
            return;
        }
        long timeout = settings().creditGrantTimeout().toNanos();
        if (timeout == 0) {
            return;
        }
        long now = scheduler.nanoTime();
        long deadline = creditStallSince + timeout;
        if (now < deadline) {
            creditTimer = scheduler.schedule(creditTimerTask, deadline - now);
            return;
        }
        // Windows' Send Credit Grant Timer, not in [MS-SMBD]
        connection.close(new CloseReason(CloseReason.Kind.CREDIT_GRANT_TIMEOUT, "A-21",
                "no Send Credit granted within " + settings().creditGrantTimeout().toMillis() + " ms while "
                        + sendLoop.queueDepth() + " message(s) wait; " + credits));
    }

    /** Credit stalls begun (tests, DTO). */
    long creditStalls() {
        return creditStalls;
    }

    // ---- all ----

    /**
     * From any thread: the transport's settings changed to {@code changed}. Timers armed from now on
     * use them; the running ones follow at once, on the serial context.
     */
    void settingsChanged(TransportSettings changed) {
        this.settings = changed;
        serial.execute(this::rearm);
    }

    /** Serial context: the settings changed; the running timers follow at once. */
    private void rearm() {
        if (!connection.isEstablished()) {
            return;
        }
        armIdleTimer();
        if (creditStallSince >= 0) {
            if (creditTimer != null) {
                creditTimer.cancel();
                creditTimer = null;
            }
            long timeout = settings().creditGrantTimeout().toNanos();
            if (timeout > 0) {
                long left = creditStallSince + timeout - scheduler.nanoTime();
                creditTimer = scheduler.schedule(creditTimerTask, left);
            }
        }
    }

    /** The connection closes: every timer stops. */
    void cancelAll() {
        cancelNegotiationTimer();
        if (idleTimer != null) {
            idleTimer.cancel();
            idleTimer = null;
        }
        if (creditTimer != null) {
            creditTimer.cancel();
            creditTimer = null;
        }
    }

    void describeTo(ConnectionDTO d) {
        d.keepaliveRequested = keepaliveRequested.name();
        d.keepalivesSent = keepalivesSent;
        d.creditStalls = creditStalls;
    }
}
