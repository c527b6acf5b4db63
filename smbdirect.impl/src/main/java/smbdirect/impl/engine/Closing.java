package smbdirect.impl.engine;

import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaException;
import smbdirect.impl.wire.Violation;

/**
 * Closing one connection: Connection Loss ([MS-SMBD] 3.1.7.1), whatever the cause (the upper layer,
 * the operator, a protocol violation, a timer, the provider or the peer). It runs once: the reason
 * is fixed, the timers stop, queued work fails at once, the endpoint disconnects and flushes what is
 * in flight; when the endpoint reported its disconnect (its last callback), or after a deadline if it
 * never does, everything is released and the upper layer is told exactly once.
 *
 * <p>Owns the state the connection closed from, whether the reason is provisional (a refused post
 * gives way to the cause the endpoint reports), the close deadline and the stage that completes when
 * the connection is released; and the reasons for closing, named after the rule, field and value.
 * Made last of the concerns, it is given every one it ends; the concerns made before it reach it
 * through {@link ConnectionLoss}. Not thread-safe except {@link #closeAsync} and
 * {@link #closedFuture()}: owned by the connection's serial context.
 */
final class Closing implements ConnectionLoss {

    private static final Logger LOG = LoggerFactory.getLogger(Closing.class);

    /** How long a closing connection waits for the provider's disconnect report before releasing. */
    static final long CLOSE_DEADLINE_NANOS = 30_000_000_000L;

    private final Connection connection;
    private final SmbDirectEngine engine;
    private final SerialExecutor serial;
    private final CreditManager credits;
    private final Timers timers;
    private final MemoryRegistrations registrations;
    private final RdmaOperations rdma;
    private final ReceivePath receivePath;
    private final SendPath sendPath;
    private final Negotiation negotiation;
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    private final Runnable finishOverdueTask;
    private final Runnable overdueTimerTask;
    /** The state the connection closed from. */
    private Connection.State closedFrom;
    /** Whether the reason is a refused post's, to be replaced by the endpoint's disconnect cause. */
    private boolean provisionalReason;
    /** While {@link #closeAfterPostFailure} closes: the reason is provisional (serial context). */
    private boolean closingAfterPostFailure;
    /** What the upper layer's callback threw, when that is why the connection closes (else null). */
    private Throwable callbackFailure;
    private long closedMillis;

    Closing(Connection connection, SmbDirectEngine engine, SerialExecutor serial, CreditManager credits,
            Timers timers, MemoryRegistrations registrations, RdmaOperations rdma, ReceivePath receivePath,
            SendPath sendPath, Negotiation negotiation) {
        this.connection = connection;
        this.engine = engine;
        this.serial = serial;
        this.credits = credits;
        this.timers = timers;
        this.registrations = registrations;
        this.rdma = rdma;
        this.receivePath = receivePath;
        this.sendPath = sendPath;
        this.negotiation = negotiation;
        this.finishOverdueTask = this::finishOverdue;
        this.overdueTimerTask = () -> serial.execute(finishOverdueTask);
    }

    /** A stage completed when the connection is released. */
    CompletableFuture<Void> closedFuture() {
        return closedFuture;
    }

    /** Closes from any thread with {@code reason}. */
    CompletableFuture<Void> closeAsync(CloseReason reason) {
        serial.execute(() -> close(reason));
        return closedFuture;
    }

    /**
     * Serial context: starts the connection loss (3.1.7.1) once, whatever the cause. Queued work
     * fails now; work in flight fails as the provider flushes it; {@link #finish()} runs when the
     * endpoint reported its disconnect (its last callback).
     */
    void close(CloseReason reason) {
        if (connection.isOpen()) {
            reason = withPartialMessage(reason);
        }
        Connection.State from = connection.beginClosing(reason);
        if (from == null) {
            return;
        }
        closedFrom = from;
        timers.cancelAll();
        SmbDirectException failure = failure(reason);
        if (closingAfterPostFailure) {
            // the reason is provisional: what is queued fails with the endpoint's own, at the finish
            sendPath.failQueuedWithTheFinalReason();
            rdma.failQueuedWithTheFinalReason();
        } else {
            sendPath.failQueued(failure);
            rdma.failQueued(failure);
        }
        RdmaEndpoint endpoint = connection.endpoint();
        if (endpoint != null && connection.isEndpointStarted()) {
            endpoint.disconnect(); // the endpoint reports onDisconnected after flushing every request
            if (connection.state() == Connection.State.CLOSING) {
                // peer-lessons 22: bounded shutdown even when the provider never reports the disconnect
                engine.scheduler().schedule(overdueTimerTask, CLOSE_DEADLINE_NANOS);
            }
        } else {
            finish();
        }
    }

    /**
     * A callback of the upper layer threw: the connection closes with
     * {@link CloseReason.Kind#HANDLER_FAILED} naming the callback and the exception, and pending
     * operations fail with the exception as their cause.
     */
    void closeForCallbackFailure(String callback, Throwable failure) {
        if (connection.isOpen()) {
            callbackFailure = failure;
            close(new CloseReason(CloseReason.Kind.HANDLER_FAILED, null, callback + " threw " + failure));
        }
    }

    /** The failure of operations ended by the connection's closing for {@code reason}. */
    private SmbDirectException failure(CloseReason reason) {
        return callbackFailure == null ? SmbDirectException.closed(reason)
                : new SmbDirectException(SmbDirectException.Kind.CONNECTION_CLOSED, "connection closed: " + reason,
                        reason, callbackFailure);
    }

    /**
     * A post was refused. Usually the queue pair is already going down (the peer disconnected and
     * the provider's report is still queued): the reason is provisional and gives way to the cause
     * the endpoint reports with its disconnect.
     */
    @Override
    public void closeAfterPostFailure(String what, RdmaException e) {
        closingAfterPostFailure = true;
        try {
            close(CloseReason.of(CloseReason.Kind.PROVIDER_ERROR, what + " failed: " + e.getMessage()));
        } finally {
            closingAfterPostFailure = false;
        }
        provisionalReason = true;
    }

    /**
     * Whether the connection is closing with a provisional reason: a post was refused and the
     * endpoint's own cause is on its way. What the upper layer hands over meanwhile waits for it
     * (it fails at the finish with the final reason, as the queued messages do).
     */
    boolean reasonProvisional() {
        return (provisionalReason || closingAfterPostFailure) && connection.state() == Connection.State.CLOSING;
    }

    /** The endpoint reported its disconnect (its last callback). */
    void endpointGone(DisconnectCause cause, String detail) {
        Connection.State state = connection.state();
        if (state == Connection.State.CLOSED) {
            return;
        }
        if (state != Connection.State.CLOSING) {
            close(reasonFor(cause, detail, state == Connection.State.ESTABLISHED));
        } else if (provisionalReason && cause != DisconnectCause.LOCAL) {
            // the refused post was a symptom: the endpoint's own cause is the reason
            connection.replaceCloseReason(
                    withPartialMessage(reasonFor(cause, detail, closedFrom == Connection.State.ESTABLISHED)));
        } else if (cause == DisconnectCause.QP_ERROR && !detail.isEmpty()) {
            // a failed work request closed the connection: the provider's account may say more (whose
            // registration refused which access), so the upper layer hears both
            CloseReason r = connection.closeReason();
            if (r.kind() == CloseReason.Kind.PROVIDER_ERROR && !r.detail().contains(detail)) {
                connection.replaceCloseReason(new CloseReason(r.kind(), r.rule(),
                        r.detail() + "; the provider reports: " + detail));
            }
        }
        finish();
    }

    private void finishOverdue() {
        if (connection.state() == Connection.State.CLOSING) {
            LOG.warn("connection {}: the provider did not report the disconnect within {} s; releasing anyway",
                    connection.id, CLOSE_DEADLINE_NANOS / 1_000_000_000L);
            finish();
        }
    }

    /** Serial context: the endpoint is quiet; release everything and tell the upper layer once. */
    private void finish() {
        if (!connection.closed()) {
            return;
        }
        closedMillis = engine.epochMillis();
        CloseReason reason = connection.closeReason();
        SmbDirectException failure = failure(reason);
        sendPath.failInFlight(failure);
        rdma.failInFlight(failure);
        registrations.releaseAll();
        registrations.failWaiting(failure);
        negotiation.rejectUnaccepted();
        RdmaEndpoint endpoint = connection.endpoint();
        if (endpoint != null) {
            try {
                endpoint.close(); // releases the queue pair and every region registered on it
            } catch (RuntimeException e) {
                LOG.debug("connection {}: endpoint close failed", connection.id, e);
            }
        }
        engine.onClosed(connection, closedFrom);
        LOG.info("connection {} {} peer {} closed from {}: {}; {}", connection.id,
                connection.initiator ? "ACTIVE" : "PASSIVE", connection.peerAddress(), closedFrom, reason,
                credits);
        ConnectionHandler handler = connection.handler();
        if (!negotiation.failPendingConnect(reason) && handler != null) {
            try {
                handler.onDisconnected(connection, reason);
            } catch (Throwable e) {
                connection.callbackFailed("ConnectionHandler.onDisconnected", e);
            }
        }
        closedFuture.complete(null);
    }

    /**
     * 3.1.7.1, nothing lost silently: a message the peer sent completely before the connection
     * broke (its receive completed successfully) is still handed to the upper layer before
     * {@code onDisconnected}, unless the peer violated the protocol (its data is not trusted any
     * more) or this side chose to close (local close, shutdown, a handler that threw).
     */
    @Override
    public boolean deliversWhileClosing() {
        if (connection.state() != Connection.State.CLOSING || closedFrom != Connection.State.ESTABLISHED) {
            return false;
        }
        CloseReason.Kind kind = connection.closeReason().kind();
        return kind != CloseReason.Kind.PROTOCOL_VIOLATION && kind != CloseReason.Kind.LOCAL_CLOSE
                && kind != CloseReason.Kind.SHUTDOWN && kind != CloseReason.Kind.PROVIDER_REPLACED
                && kind != CloseReason.Kind.HANDLER_FAILED;
    }

    /** When the connection was released (epoch milliseconds; 0 while it lives). */
    long closedMillis() {
        return closedMillis;
    }

    // ---- reasons ----

    /** The reason for a violation of a rule: the rule, the field and its value. */
    static CloseReason reason(CloseReason.Kind kind, Violation v) {
        return new CloseReason(kind, v.rule(),
                v.field() + "=" + v.value() + (v.detail() == null || v.detail().isEmpty() ? "" : ": " + v.detail()));
    }

    /** The reason for a work request that completed with an error. */
    @Override
    public CloseReason providerError(String what, CompletionStatus status, int vendorError) {
        String detail;
        switch (status) {
            case RECEIVER_NOT_READY:
                detail = what + " failed: RECEIVER_NOT_READY (the peer had no receive posted; sending without a credit)";
                break;
            case LOCAL_LENGTH_ERROR:
                detail = what + " failed: LOCAL_LENGTH_ERROR (a message longer than MaxReceiveSize "
                        + negotiation.maxReceiveSize() + " arrived)";
                break;
            case REMOTE_INVALID_REQUEST:
                detail = what + " failed: REMOTE_INVALID_REQUEST (the peer refused it: "
                        + (what.startsWith("Send with Invalidate")
                                ? "the token is none it can invalidate (not registered, already invalid, or not"
                                        + " of this connection), or its receive was too short"
                                : "its posted receive was shorter than the message, or its queue pair does not"
                                        + " allow the operation")
                        + ")";
                break;
            case REMOTE_ACCESS_ERROR:
                detail = what + " failed: REMOTE_ACCESS_ERROR (the peer refused the access: the token is not"
                        + " registered or no longer valid, the range lies outside the registration, or the"
                        + " registration lacks remote " + (what.startsWith("RDMA Read") ? "read" : "write") + " access)";
                break;
            case LOCAL_PROTECTION_ERROR:
                detail = what + " failed: LOCAL_PROTECTION_ERROR (the local buffer is no valid registration of"
                        + " this connection for that range)";
                break;
            default:
                detail = what + " failed: " + status;
        }
        if (vendorError != 0) {
            detail += " (vendor error 0x" + Integer.toHexString(vendorError) + ")";
        }
        Connection.State state = connection.state();
        return CloseReason.of(state == Connection.State.ESTABLISHED || state == Connection.State.CLOSING
                ? CloseReason.Kind.PROVIDER_ERROR : CloseReason.Kind.CONNECT_FAILED, detail);
    }

    /**
     * {@code reason}, and when the peer had sent part of a fragmented message that now never completes,
     * a note saying so in its detail (3.1.7.1: nothing lost silently).
     */
    private CloseReason withPartialMessage(CloseReason reason) {
        String partial = receivePath.partialMessage();
        if (partial == null) {
            return reason;
        }
        return new CloseReason(reason.kind(), reason.rule(),
                reason.detail() + (reason.detail().isEmpty() ? "" : "; ") + partial);
    }

    /** The reason for the endpoint's disconnect ({@code up}: the connection had negotiated). */
    private static CloseReason reasonFor(DisconnectCause cause, String detail, boolean up) {
        String d = cause + (detail.isEmpty() ? "" : ": " + detail);
        switch (cause) {
            case PEER:
                // the kind says who ended it; the provider's account follows once, without the cause's name
                return up ? CloseReason.of(CloseReason.Kind.PEER_DISCONNECT,
                        detail.isEmpty() ? "the peer disconnected" : detail)
                        : CloseReason.of(CloseReason.Kind.CONNECT_FAILED, d);
            case REJECTED:
            case UNREACHABLE:
            case CONNECT_ERROR:
                return CloseReason.of(CloseReason.Kind.CONNECT_FAILED, d);
            case DEVICE_REMOVED:
                return CloseReason.of(CloseReason.Kind.DEVICE_REMOVED, d);
            case PROVIDER_SHUTDOWN:
                return CloseReason.of(CloseReason.Kind.PROVIDER_GONE, d);
            case LOCAL:
                return CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, d);
            default:
                return CloseReason.of(up ? CloseReason.Kind.PROVIDER_ERROR : CloseReason.Kind.CONNECT_FAILED, d);
        }
    }
}
