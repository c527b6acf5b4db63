package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;

/**
 * The end of one {@link VerbsEndpoint}'s connection, for any cause: a CM event that ends it (the
 * peer's DISCONNECTED, a reject, an error), a failed completion, an asynchronous event of its queue
 * pair, the device's port going down, a deadline, {@code disconnect}, the provider's shutdown; and
 * the endpoint's {@code close} and the passive side's reject. The first cause wins (the device's
 * own account of a failure may refine a peer's); the queue pair is moved to the error state
 * ({@code rdma_disconnect}) so that the device flushes what is outstanding, or what is outstanding
 * completes as FLUSHED at once where no flush can come; {@code onDisconnected} follows once both
 * work queues are empty ({@link #maybeFinish}). Its fields are guarded by the endpoint's lock; the
 * state it moves is the endpoint's.
 */
final class EndpointEnding {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);
    /** {@link #endOnFailedCompletionHeld}: the connection was ending already (or closed). */
    static final int NOT_ENDING = 0;
    /** {@link #endOnFailedCompletionHeld}: it ends now, its queue pair was not live. */
    static final int ENDING = 1;
    /** {@link #endOnFailedCompletionHeld}: it ends now and its queue pair was live (rdma_disconnect, then drain). */
    static final int ENDING_QUEUE_PAIR_LIVE = 2;

    private final VerbsEndpoint endpoint;
    private final Object lock;
    private final VerbsRdmaProvider provider;
    private final VerbsBackend backend;
    private final VerbsBackend.Features features;
    private final VerbsSettings settings;
    private final CompletionGroup group;
    private final VerbsBackend.CmId id;
    private final VerbsBackend.QueuePair qp;
    private final RdmaEndpointHandler handler;
    private final OutstandingRequests sendQueue;
    private final OutstandingRequests receiveQueue;
    private final EndpointSetup setup;
    private final EndpointRegistrations registrations;
    private final EndpointDeadlines deadlines;
    private final EndpointCompletions completions;
    /** Handed to {@code onDisconnected} where there is no private data (the endpoint's). */
    private final ByteBuffer empty;

    // guarded by the endpoint's lock
    private boolean disconnectRequested;
    private DisconnectCause cause;
    private String detail;
    /** The private data of the REJECTED event that ended the connection (read-only), else empty. */
    private ByteBuffer disconnectPrivateData;

    EndpointEnding(VerbsEndpoint endpoint, VerbsRdmaProvider provider, CompletionGroup group, VerbsBackend.CmId id,
            VerbsBackend.QueuePair qp, RdmaEndpointHandler handler, OutstandingRequests sendQueue,
            OutstandingRequests receiveQueue, EndpointSetup setup, EndpointRegistrations registrations,
            EndpointDeadlines deadlines, EndpointCompletions completions) {
        this.endpoint = endpoint;
        this.lock = endpoint.lock;
        this.provider = provider;
        this.backend = provider.backend();
        this.features = backend.features();
        this.settings = provider.settings();
        this.group = group;
        this.id = id;
        this.qp = qp;
        this.handler = handler;
        this.sendQueue = sendQueue;
        this.receiveQueue = receiveQueue;
        this.setup = setup;
        this.registrations = registrations;
        this.deadlines = deadlines;
        this.completions = completions;
        this.empty = endpoint.empty;
        this.disconnectPrivateData = empty;
    }

    /**
     * Group thread: a CM event other than those of connection setup (DISCONNECTED, REJECTED, an
     * error, DEVICE_REMOVAL, ...): ends the connection with the cause it means, or is logged and
     * ignored where it means none.
     */
    void onCmEvent(VerbsBackend.CmEvent event) {
        int type = event.type();
        DisconnectCause ending = StatusMapper.disconnectCause(type, event.status(), provider.transportType());
        if (type == VerbsConstants.CM_EVENT_DISCONNECTED) {
            // the connection is gone: whatever the device does with what is outstanding, it
            // never reaches the peer (siw has moved the queue pair to the error state already)
            endpoint.queuePairInError(StatusMapper.cmEventName(type));
            // siw ends its connections when its interface goes down, and the CM's word may come
            // before the port event: the end is the port's
            String portDown = settings.endConnectionsOnPortDown() ? provider.portDownState() : null;
            if (portDown != null) {
                endForPortDown(VerbsRdmaProvider.portDownText(1) + " (" + StatusMapper.cmEventName(type)
                        + " came first; the port's state " + portDown + ")");
                return;
            }
        }
        if (ending != null) {
            if (type == VerbsConstants.CM_EVENT_REJECTED && features.privateData()
                    && event.privateData().length > 0) {
                synchronized (lock) {
                    VerbsEndpoint.State state = endpoint.stateHeld();
                    if (state != VerbsEndpoint.State.DISCONNECTING && state != VerbsEndpoint.State.DISCONNECTED
                            && state != VerbsEndpoint.State.CLOSED) {
                        disconnectPrivateData = ByteBuffer.wrap(event.privateData()).asReadOnlyBuffer();
                    }
                }
            }
            endOnGroup(ending, StatusMapper.describeCmEvent(type, event.status(), provider.transportType()), false);
        } else {
            LOG.debug("ignoring {} on {}", StatusMapper.cmEventName(type), endpoint);
        }
    }

    /** {@link VerbsEndpoint#disconnect}: the end as LOCAL, on the group thread; once only, not before a connect. */
    void disconnect() {
        synchronized (lock) {
            VerbsEndpoint.State state = endpoint.stateHeld();
            if (disconnectRequested || state == VerbsEndpoint.State.DISCONNECTING
                    || state == VerbsEndpoint.State.DISCONNECTED || state == VerbsEndpoint.State.CLOSED) {
                return;
            }
            if (state == VerbsEndpoint.State.IDLE) {
                return; // never connected: harmless, no callback (the SPI); close() releases what is posted
            }
            disconnectRequested = true;
        }
        group.execute(() -> endOnGroup(DisconnectCause.LOCAL, "disconnect() called", false));
    }

    /**
     * Group thread: the connection ends (or never comes) with {@code why}; the first cause wins.
     * Moves the queue pair to the error state (rdma_disconnect) so the device flushes what is
     * outstanding, or, if the queue pair never left INIT, completes the outstanding receives as
     * FLUSHED right away. With {@code completionsLost} (the completion queue or the device failed)
     * no flush will come: what is outstanding completes as FLUSHED now.
     */
    void endOnGroup(DisconnectCause why, String text, boolean completionsLost) {
        boolean queuePairLive;
        boolean alreadyEnding;
        synchronized (lock) {
            alreadyEnding = endpoint.stateHeld() == VerbsEndpoint.State.DISCONNECTING;
        }
        if (alreadyEnding) {
            // the first cause stays; a flush that cannot come any more is not waited for
            if (completionsLost) {
                completions.flushOutstanding();
                maybeFinish();
            }
            return;
        }
        synchronized (lock) {
            VerbsEndpoint.State state = endpoint.stateHeld();
            if (state == VerbsEndpoint.State.DISCONNECTING || state == VerbsEndpoint.State.DISCONNECTED
                    || state == VerbsEndpoint.State.CLOSED) {
                return;
            }
            queuePairLive = state == VerbsEndpoint.State.CONNECTING || state == VerbsEndpoint.State.ACCEPTING
                    || state == VerbsEndpoint.State.ESTABLISHED;
            endpoint.stateHeld(VerbsEndpoint.State.DISCONNECTING);
            cause = why;
            detail = text;
        }
        LOG.debug("{} ending: {} ({})", endpoint, why, text);
        if (completionsLost) {
            if (queuePairLive) {
                setup.afterConnectCall(() -> backend.disconnect(id));
            }
            afterEnding(false);
        } else {
            afterEnding(queuePairLive);
        }
    }

    /**
     * Group thread: an asynchronous event of this endpoint's queue pair. QP_FATAL, QP_REQ_ERR and
     * QP_ACCESS_ERR mean the queue pair is in the error state: the connection ends as QP_ERROR with
     * the event named, also when the CM's DISCONNECTED came first and {@code onDisconnected} was not
     * delivered yet (the device's account is the more precise one). COMM_EST (data before the
     * passive side's ESTABLISHED) was handed to the CM by the backend ({@code rdma_notify}); the
     * others are logged.
     */
    void onAsyncEvent(int type) {
        if (!StatusMapper.breaksQueuePair(type)) {
            if (type == VerbsConstants.EVENT_PATH_MIG_ERR) {
                LOG.warn("{}: {}", endpoint, StatusMapper.describeQueuePairEvent(type));
            } else {
                LOG.debug("{}: {}", endpoint, StatusMapper.asyncEventName(type));
            }
            return;
        }
        String text = StatusMapper.describeQueuePairEvent(type);
        endpoint.queuePairInError(StatusMapper.asyncEventName(type));
        synchronized (lock) {
            VerbsEndpoint.State state = endpoint.stateHeld();
            if (state == VerbsEndpoint.State.DISCONNECTED || state == VerbsEndpoint.State.CLOSED) {
                LOG.debug("{}: {} after the connection ended", endpoint, StatusMapper.asyncEventName(type));
                return;
            }
            if (state == VerbsEndpoint.State.DISCONNECTING) {
                refinePeerCause(DisconnectCause.QP_ERROR, text);
                return;
            }
        }
        LOG.warn("{}: {}", endpoint, text);
        endOnGroup(DisconnectCause.QP_ERROR, text, false);
    }

    /**
     * Under the endpoint's lock, while DISCONNECTING: the device's own account of why the queue pair
     * broke (a failed request, a QP error event) replaces a PEER cause that {@code onDisconnected}
     * has not reported yet. The peer's disconnect and the failure race (the peer ends its side
     * because of what failed here); the failure is the more precise cause.
     */
    private void refinePeerCause(DisconnectCause why, String text) {
        if (endpoint.stateHeld() == VerbsEndpoint.State.DISCONNECTING && cause == DisconnectCause.PEER
                && why != DisconnectCause.PEER) {
            cause = why;
            detail = text + " (and " + detail + ")";
        }
    }

    /** After a connection began ending: rdma_disconnect and the drain watch, or the flush at once; maybe the end. */
    void afterEnding(boolean queuePairLive) {
        if (queuePairLive) {
            setup.afterConnectCall(() -> {
                int rc = backend.disconnect(id);
                if (rc != 0) {
                    LOG.debug("rdma_disconnect of {} returned {}", endpoint, rc);
                }
            });
            deadlines.drainFromNow();
            group.watchDrain(endpoint);
        } else {
            completions.flushOutstanding();
        }
        maybeFinish();
    }

    /**
     * Group thread: the device's port went down ({@code IBV_EVENT_PORT_ERR}). The connection ends at
     * once as PEER_LOST with {@code text}, what is outstanding completes as FLUSHED now (a late
     * completion of the device finds nothing outstanding), and the calls on the identifier that send
     * a CM message ({@code rdma_disconnect}, the destroys of a {@code close}) wait until the port is
     * up again ({@link VerbsEndpoint#portUp}) or the provider stops.
     */
    void endForPortDown(String text) {
        setup.holdForPort();
        endpoint.queuePairInError(text);
        endOnGroup(DisconnectCause.PEER_LOST, text, false);
    }

    /** The end once both work queues are empty: DISCONNECTED and {@code onDisconnected}. */
    void maybeFinish() {
        DisconnectCause why;
        String text;
        ByteBuffer data;
        synchronized (lock) {
            if (endpoint.stateHeld() != VerbsEndpoint.State.DISCONNECTING || !sendQueue.isEmpty()
                    || !receiveQueue.isEmpty()) {
                return;
            }
            endpoint.stateHeld(VerbsEndpoint.State.DISCONNECTED);
            why = cause;
            text = detail;
            data = why == DisconnectCause.REJECTED ? disconnectPrivateData : empty;
        }
        LOG.debug("{} disconnected: {} ({})", endpoint, why, text);
        try {
            handler.onDisconnected(why, text, data);
        } catch (RuntimeException e) {
            LOG.error("onDisconnected handler of {} failed", endpoint, e);
        }
    }

    /**
     * Under the endpoint's lock: a completion failed (not flushed) with {@code status}: the
     * connection ends with the cause of that status and {@code failure} as detail, unless it is
     * ending or closed already, where {@code refine} lets a failure refine a peer cause. Returns
     * {@link #NOT_ENDING}, {@link #ENDING} or {@link #ENDING_QUEUE_PAIR_LIVE}.
     */
    int endOnFailedCompletionHeld(CompletionStatus status, String failure, boolean refine) {
        VerbsEndpoint.State state = endpoint.stateHeld();
        if (state != VerbsEndpoint.State.DISCONNECTING && state != VerbsEndpoint.State.DISCONNECTED
                && state != VerbsEndpoint.State.CLOSED) {
            boolean queuePairLive = state == VerbsEndpoint.State.CONNECTING || state == VerbsEndpoint.State.ACCEPTING
                    || state == VerbsEndpoint.State.ESTABLISHED;
            endpoint.stateHeld(VerbsEndpoint.State.DISCONNECTING);
            cause = StatusMapper.causeOfFailedCompletion(status);
            detail = failure;
            return queuePairLive ? ENDING_QUEUE_PAIR_LIVE : ENDING;
        }
        if (refine) {
            refinePeerCause(StatusMapper.causeOfFailedCompletion(status), failure);
        }
        return NOT_ENDING;
    }

    /** Under the endpoint's lock: why {@code operation} cannot be posted in this state. */
    RdmaException notPostableHeld(String operation) {
        return new RdmaException(operation + ": endpoint is " + endpoint.stateHeld()
                + (cause != null ? " (" + cause + ": " + detail + ")" : ""));
    }

    /**
     * {@link VerbsEndpoint#close}: CLOSED at once (once), then, after {@code rdma_connect} returned
     * where it is still in the kernel, what the kernel holds for the endpoint is released.
     */
    void close() {
        VerbsEndpoint.State before;
        synchronized (lock) {
            before = endpoint.stateHeld();
            if (before == VerbsEndpoint.State.CLOSED) {
                return;
            }
            endpoint.stateHeld(VerbsEndpoint.State.CLOSED);
        }
        provider.forget(endpoint);
        List<VerbsMemoryRegion> released = registrations.claimAll();
        // with rdma_connect still in the kernel (an iWARP peer's TCP handshake), the rest follows its return
        setup.afterConnectCall(() -> release(before, released));
    }

    /** The native part of {@link #close}: what the kernel holds for this endpoint, in the order it needs. */
    private void release(VerbsEndpoint.State before, List<VerbsMemoryRegion> released) {
        if (before == VerbsEndpoint.State.CONNECTING || before == VerbsEndpoint.State.ACCEPTING
                || before == VerbsEndpoint.State.ESTABLISHED || before == VerbsEndpoint.State.DISCONNECTING) {
            backend.disconnect(id);
        }
        // windows before the queue pair they are bound on (rxe keeps a bound type 2 window's queue pair
        // alive: its destroy waits 50 s for the reference and warns), after rdma_disconnect flushed any
        // bind still queued; the registrations after the queue pair
        registrations.releaseWindows(released);
        backend.destroyQp(id, qp);
        registrations.releaseRegistrations(released);
        backend.destroyId(id);
        group.detach(endpoint.key(), endpoint.completionEntries());
        provider.release(group, true);
    }

    /** The passive side's reject of a created, not accepted endpoint: {@code rdma_reject}, then {@link #close}. */
    void reject(ByteBuffer privateData) {
        if (features.privateData()) {
            try {
                backend.reject(id, privateData);
            } catch (IOException e) {
                LOG.warn("rdma_reject of {} failed ({}); destroying the identifier rejects it", endpoint,
                        e.getMessage());
            }
        }
        close();
    }
}
