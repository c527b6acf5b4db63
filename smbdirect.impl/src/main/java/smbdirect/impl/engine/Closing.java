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
 * Not thread-safe except {@link #closeAsync} and {@link #closedFuture()}: owned by the connection's
 * serial context.
 */
final class Closing {

    private static final Logger LOG = LoggerFactory.getLogger(Closing.class);

    /** How long a closing connection waits for the provider's disconnect report before releasing. */
    static final long CLOSE_DEADLINE_NANOS = 30_000_000_000L;

    private final Connection connection;
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    private final Runnable finishOverdueTask;
    private final Runnable overdueTimerTask;
    /** The state the connection closed from. */
    private Connection.State closedFrom;
    /** Whether the reason is a refused post's, to be replaced by the endpoint's disconnect cause. */
    private boolean provisionalReason;
    private long closedMillis;

    Closing(Connection connection) {
        this.connection = connection;
        this.finishOverdueTask = this::finishOverdue;
        this.overdueTimerTask = () -> connection.serial.execute(finishOverdueTask);
    }

    /** A stage completed when the connection is released. */
    CompletableFuture<Void> closedFuture() {
        return closedFuture;
    }

    /** Closes from any thread with {@code reason}. */
    CompletableFuture<Void> closeAsync(CloseReason reason) {
        connection.serial.execute(() -> close(reason));
        return closedFuture;
    }

    /**
     * Serial context: starts the connection loss (3.1.7.1) once, whatever the cause. Queued work
     * fails now; work in flight fails as the provider flushes it; {@link #finish()} runs when the
     * endpoint reported its disconnect (its last callback).
     */
    void close(CloseReason reason) {
        Connection.State from = connection.beginClosing(reason);
        if (from == null) {
            return;
        }
        closedFrom = from;
        connection.timers.cancelAll();
        SmbDirectException failure = SmbDirectException.closed(reason);
        connection.sendPath.failQueued(failure);
        connection.rdma.failQueued(failure);
        RdmaEndpoint endpoint = connection.endpoint();
        if (endpoint != null && connection.isEndpointStarted()) {
            endpoint.disconnect(); // the endpoint reports onDisconnected after flushing every request
            if (connection.state() == Connection.State.CLOSING) {
                // peer-lessons 22: bounded shutdown even when the provider never reports the disconnect
                connection.engine.scheduler().schedule(overdueTimerTask, CLOSE_DEADLINE_NANOS);
            }
        } else {
            finish();
        }
    }

    /**
     * A post was refused. Usually the queue pair is already going down (the peer disconnected and
     * the provider's report is still queued): the reason is provisional and gives way to the cause
     * the endpoint reports with its disconnect.
     */
    void closeAfterPostFailure(String what, RdmaException e) {
        close(CloseReason.of(CloseReason.Kind.PROVIDER_ERROR, what + " failed: " + e.getMessage()));
        provisionalReason = true;
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
            connection.replaceCloseReason(reasonFor(cause, detail, closedFrom == Connection.State.ESTABLISHED));
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
        closedMillis = connection.engine.epochMillis();
        CloseReason reason = connection.closeReason();
        SmbDirectException failure = SmbDirectException.closed(reason);
        connection.sendPath.failInFlight(failure);
        connection.rdma.failInFlight(failure);
        connection.registrations.releaseAll();
        connection.negotiation.rejectUnaccepted();
        RdmaEndpoint endpoint = connection.endpoint();
        if (endpoint != null) {
            try {
                endpoint.close(); // releases the queue pair and every region registered on it
            } catch (RuntimeException e) {
                LOG.debug("connection {}: endpoint close failed", connection.id, e);
            }
        }
        connection.engine.onClosed(connection, closedFrom);
        LOG.info("connection {} {} peer {} closed from {}: {}; {}", connection.id,
                connection.initiator ? "ACTIVE" : "PASSIVE", connection.peerAddress(), closedFrom, reason,
                connection.credits);
        ConnectionHandler handler = connection.handler();
        if (!connection.negotiation.failPendingConnect(reason) && handler != null) {
            try {
                handler.onDisconnected(connection, reason);
            } catch (RuntimeException e) {
                LOG.warn("connection {}: disconnect handler threw", connection.id, e);
            }
        }
        closedFuture.complete(null);
    }

    /**
     * 3.1.7.1, nothing lost silently: a message the peer sent completely before the connection
     * broke (its receive completed successfully) is still handed to the upper layer before
     * {@code onDisconnected}, unless the peer violated the protocol (its data is not trusted any
     * more) or this side chose to close (local close, shutdown).
     */
    boolean deliversWhileClosing() {
        if (connection.state() != Connection.State.CLOSING || closedFrom != Connection.State.ESTABLISHED) {
            return false;
        }
        CloseReason.Kind kind = connection.closeReason().kind();
        return kind != CloseReason.Kind.PROTOCOL_VIOLATION && kind != CloseReason.Kind.LOCAL_CLOSE
                && kind != CloseReason.Kind.SHUTDOWN;
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
    CloseReason providerError(String what, CompletionStatus status, int vendorError) {
        String detail;
        switch (status) {
            case RECEIVER_NOT_READY:
                detail = what + " failed: RECEIVER_NOT_READY (the peer had no receive posted; sending without a credit)";
                break;
            case LOCAL_LENGTH_ERROR:
                detail = what + " failed: LOCAL_LENGTH_ERROR (a message longer than MaxReceiveSize "
                        + connection.negotiation.maxReceiveSize() + " arrived)";
                break;
            case REMOTE_INVALID_REQUEST:
                detail = what + " failed: REMOTE_INVALID_REQUEST (the peer's receive was too short)";
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

    /** The reason for the endpoint's disconnect ({@code up}: the connection had negotiated). */
    private static CloseReason reasonFor(DisconnectCause cause, String detail, boolean up) {
        String d = cause + (detail.isEmpty() ? "" : ": " + detail);
        switch (cause) {
            case PEER:
                return CloseReason.of(up ? CloseReason.Kind.PEER_DISCONNECT : CloseReason.Kind.CONNECT_FAILED, d);
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
