package smbdirect.rdma.mock;

import java.util.function.UnaryOperator;

import org.osgi.annotation.versioning.ProviderType;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.WorkRequestType;

/**
 * An endpoint (queue pair) of a {@link MockFabric} with its fault controls and counters.
 * Thread-safe. Faults armed here act on the connection this endpoint is part of.
 */
@ProviderType
public interface MockEndpoint extends RdmaEndpoint {

    /** Life-cycle state of an endpoint. */
    enum State {
        /** Created for an active connection, {@code connect} not yet called. */
        IDLE,
        /** {@code connect} called, the peer has not accepted or rejected yet. */
        CONNECTING,
        /** Created from a connection request, {@code accept} not yet called. */
        REQUESTED,
        /** Established. */
        CONNECTED,
        /** Broken or disconnected: everything was flushed and onDisconnected queued. */
        DISCONNECTED,
        /** Closed (or crashed): released. */
        CLOSED
    }

    /** A fabric-unique number, for messages. */
    long id();

    /** The device of this endpoint. */
    MockProvider provider();

    /** The current state. */
    State state();

    /** The other endpoint of the connection, or {@code null} before a connection request exists. */
    MockEndpoint peer();

    /** Receives posted and not yet consumed or flushed. */
    int postedReceives();

    /** Work requests of both queues whose completion has not been delivered yet. */
    int outstandingWorkRequests();

    /** Regions registered and not deregistered. */
    int registeredRegions();

    /** Sends (with or without invalidate) this endpoint has transmitted. */
    long sendsTransmitted();

    /** Callbacks queued for this endpoint and not yet delivered. */
    int pendingCallbacks();

    /**
     * Holds every callback of this endpoint (queued ones and new ones) until
     * {@link #releaseCompletions()}. Work still executes; only delivery waits, so queue slots stay
     * occupied like completions not yet polled from a CQ.
     */
    void holdCompletions();

    /** Delivers what {@link #holdCompletions()} held, in order, and stops holding. */
    void releaseCompletions();

    /**
     * Lets the next {@code count} held callbacks through, in order, and keeps holding the rest
     * (a completion delayed by a chosen amount of other traffic). No effect when not holding.
     */
    void releaseCompletions(int count);

    /**
     * Breaks the connection now as a transport error would: both sides flush and get
     * {@link smbdirect.api.rdma.DisconnectCause#QP_ERROR} with {@code detail}.
     */
    void breakConnection(String detail);

    /**
     * After the {@code count}-th Send of this endpoint from now has transmitted successfully, the
     * connection breaks ({@code QP_ERROR} on both sides).
     */
    void breakAfterSends(int count);

    /**
     * The next work request of {@code type} posted on this endpoint completes with {@code status}
     * (not {@code SUCCESS}) instead of executing, and the connection breaks ({@code QP_ERROR} on
     * both sides).
     */
    void failNextPost(WorkRequestType type, CompletionStatus status);

    /**
     * The {@code nth} Send of this endpoint from now (1 = the next) arrives at the peer as
     * {@code mutation} applied to a copy of its bytes (the result may be longer or shorter; the
     * receive-length rule applies to the result).
     */
    void corruptSend(int nth, UnaryOperator<byte[]> mutation);

    /** The {@code nth} Send from now arrives truncated to {@code length} bytes. */
    void truncateSend(int nth, int length);

    /**
     * The {@code nth} Send from now vanishes. A reliable connection retransmits a lost packet, so
     * a message that never arrives means the path is gone: the Send completes with
     * {@code TRANSPORT_RETRY_EXCEEDED}, this side disconnects with {@code PEER_LOST}, and the
     * receiver (which never sees the message) is left half-open and notices on its next Send or
     * RDMA operation ({@code TRANSPORT_RETRY_EXCEEDED}, then {@code PEER_LOST}).
     */
    void dropSend(int nth);

    /**
     * This endpoint's host vanishes without a disconnect message: the endpoint is released at
     * once with no further callback (its queued callbacks are discarded); the peer is not told and
     * notices on its next Send or RDMA operation ({@code TRANSPORT_RETRY_EXCEEDED}, then
     * {@code PEER_LOST}). Idle survivors notice nothing.
     */
    void crash();
}
