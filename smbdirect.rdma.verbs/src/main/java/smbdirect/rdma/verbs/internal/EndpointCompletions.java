package smbdirect.rdma.verbs.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MutableWorkCompletion;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkRequestType;

/**
 * The completions of one {@link VerbsEndpoint}, on its group thread: each verbs completion is matched
 * with the oldest request of its queue ({@link OutstandingRequests}: the device completes each queue
 * in order), translated ({@link StatusMapper}) and handed to {@code onCompletion} in one reused
 * {@link MutableWorkCompletion}; a memory window bind completes silently; the local invalidations
 * that reached the head of the send queue run here; a failed completion ends the connection
 * (through the endpoint's state); an ending endpoint's requests complete as FLUSHED in post order.
 * Allocates nothing on success.
 */
final class EndpointCompletions {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);

    private final VerbsEndpoint endpoint;
    private final Object lock;
    private final VerbsRdmaProvider provider;
    private final VerbsBackend backend;
    private final RdmaEndpointHandler handler;
    private final EndpointRegistrations registrations;
    private final OutstandingRequests sendQueue;
    private final OutstandingRequests receiveQueue;
    /** Used only on the group thread. */
    private final MutableWorkCompletion completion = new MutableWorkCompletion();

    EndpointCompletions(VerbsEndpoint endpoint, VerbsRdmaProvider provider, RdmaEndpointHandler handler,
            EndpointRegistrations registrations, OutstandingRequests sendQueue, OutstandingRequests receiveQueue) {
        this.endpoint = endpoint;
        this.lock = endpoint.lock;
        this.provider = provider;
        this.backend = provider.backend();
        this.handler = handler;
        this.registrations = registrations;
        this.sendQueue = sendQueue;
        this.receiveQueue = receiveQueue;
    }

    /** Group thread: completion {@code i} of {@code batch} belongs to this endpoint. */
    void onWorkCompletion(CompletionBatch batch, int i) {
        if (batch.status(i) == VerbsConstants.WC_SUCCESS) {
            // Data can arrive before RDMA_CM_EVENT_ESTABLISHED (the passive side's event comes with
            // the RTU, which may be late): a successful completion proves the connection is up
            // (IB_EVENT_COMM_EST), so onEstablished comes first; the late CM event is then ignored.
            endpoint.establishedByCompletion();
        }
        boolean receive = (batch.wrId(i) & VerbsEndpoint.RECEIVE_FLAG) != 0;
        if (!receive) {
            drainDeferred();
        }
        completeHead(receive, batch.status(i), batch.byteLength(i), batch.vendorError(i), batch.wcFlags(i),
                batch.immData(i));
        if (!receive) {
            drainDeferred();
        }
        endpoint.maybeFinish();
    }

    /** Group thread: completes everything still recorded as FLUSHED, in post order per queue. */
    void flushOutstanding() {
        drainDeferred();
        while (completeHead(false, VerbsConstants.WC_WR_FLUSH_ERR, 0, 0, 0, 0)) {
            drainDeferred();
        }
        while (completeHead(true, VerbsConstants.WC_WR_FLUSH_ERR, 0, 0, 0, 0)) {
            // next
        }
    }

    /**
     * Completes the oldest request of one queue with a verbs status; returns false when the queue
     * was empty.
     */
    private boolean completeHead(boolean receive, int wcStatus, int wcByteLength, int vendorError, int wcFlags,
            int immData) {
        CompletionStatus status = StatusMapper.completionStatus(wcStatus);
        long wrId;
        WorkRequestType type;
        int requested;
        int token;
        boolean invalidates;
        int ending = EndpointEnding.NOT_ENDING;
        if (!receive) {
            VerbsMemoryRegion bound;
            synchronized (lock) {
                bound = endpoint.stateHeld() == VerbsEndpoint.State.CLOSED || sendQueue.isEmpty() ? null
                        : sendQueue.headBind();
            }
            if (bound != null) {
                // only this thread takes heads off the queue: the head is still this bind
                return completeBind(bound, status, wcStatus, vendorError);
            }
        }
        synchronized (lock) {
            if (endpoint.stateHeld() == VerbsEndpoint.State.CLOSED) {
                return false;
            }
            OutstandingRequests queue = receive ? receiveQueue : sendQueue;
            if (queue.isEmpty()) {
                if (wcStatus != VerbsConstants.WC_WR_FLUSH_ERR || LOG.isDebugEnabled()) {
                    LOG.warn("{}: a {} completion ({}) with no request outstanding", endpoint, queue.name(),
                            StatusMapper.wcStatusName(wcStatus));
                }
                return false;
            }
            wrId = queue.headWrId();
            type = queue.headType();
            requested = queue.headLength();
            token = queue.headToken();
            invalidates = queue.headInvalidates();
            queue.removeHead();
            if (status != CompletionStatus.SUCCESS && endpoint.queuePairErrorHeld() == null) {
                endpoint.queuePairErrorHeld("a " + queue.name() + " completion with "
                        + StatusMapper.wcStatusName(wcStatus));
            }
            if (status != CompletionStatus.SUCCESS && status != CompletionStatus.FLUSHED) {
                ending = endpoint.endOnFailedCompletionHeld(status,
                        StatusMapper.describeFailedCompletion(type, invalidates, token, wcStatus, vendorError), true);
            }
        }
        int byteLength = 0;
        boolean invalidated = false;
        int invalidatedToken = 0;
        if (status == CompletionStatus.SUCCESS) {
            if (type == WorkRequestType.RECEIVE) {
                byteLength = wcByteLength;
                if ((wcFlags & provider.withInvalidateFlags()) != 0) {
                    invalidated = true;
                    invalidatedToken = immData;
                    registrations.remotelyInvalidated(immData);
                }
            } else if (type == WorkRequestType.RDMA_READ || type == WorkRequestType.RDMA_WRITE) {
                byteLength = requested;
            }
        }
        deliver(wrId, type, status, byteLength, invalidated, invalidatedToken, vendorError);
        if (ending != EndpointEnding.NOT_ENDING) {
            endpoint.afterEnding(ending == EndpointEnding.ENDING_QUEUE_PAIR_LIVE);
        }
        return true;
    }

    /**
     * Group thread: the memory window bind at the head of the send queue
     * completed. The handler never sees it; a failed bind breaks the connection like any failed
     * request, a flushed one leaves the window unbound. A region released while its bind was in
     * flight is released now.
     */
    private boolean completeBind(VerbsMemoryRegion region, CompletionStatus status, int wcStatus, int vendorError) {
        int ending = EndpointEnding.NOT_ENDING;
        boolean release;
        synchronized (lock) {
            sendQueue.removeHead();
            region.bindPending = false;
            lock.notifyAll();
            release = region.releaseWhenBound;
            region.releaseWhenBound = false;
            if (status != CompletionStatus.SUCCESS) {
                region.markRemotelyInvalidated();
            }
            if (status != CompletionStatus.SUCCESS && status != CompletionStatus.FLUSHED) {
                ending = endpoint.endOnFailedCompletionHeld(status, "the bind of memory window rkey 0x"
                        + Integer.toHexString(region.token()) + " completed with " + StatusMapper.wcStatusName(wcStatus)
                        + ": failed at this side (vendor_err 0x" + Integer.toHexString(vendorError) + ")", false);
            }
        }
        if (release) {
            registrations.released(region);
            String failed = region.release(backend);
            if (failed != null) {
                LOG.warn("{}: releasing {} after its bind failed: {}", endpoint, region, failed);
            }
        }
        if (ending != EndpointEnding.NOT_ENDING) {
            endpoint.afterEnding(ending == EndpointEnding.ENDING_QUEUE_PAIR_LIVE);
        }
        return true;
    }

    private void deliver(long wrId, WorkRequestType type, CompletionStatus status, int byteLength,
            boolean invalidated, int invalidatedToken, int vendorError) {
        if (endpoint.isClosed()) {
            return;
        }
        try {
            handler.onCompletion(completion.fill(wrId, type, status, byteLength, invalidated, invalidatedToken,
                    vendorError));
        } catch (RuntimeException e) {
            LOG.error("onCompletion handler of {} failed", endpoint, e);
        }
    }

    /** Group thread: runs the local invalidations that reached the head of the send queue. */
    void drainDeferred() {
        while (true) {
            VerbsMemoryRegion region;
            long wrId;
            synchronized (lock) {
                if (endpoint.stateHeld() == VerbsEndpoint.State.CLOSED || sendQueue.isEmpty()
                        || sendQueue.headInvalidation() == null) {
                    return;
                }
                region = sendQueue.headInvalidation();
                wrId = sendQueue.headWrId();
                sendQueue.removeHead();
            }
            CompletionStatus status = CompletionStatus.SUCCESS;
            if (region.claimDeregistration()) {
                registrations.invalidated(region);
                String failed = region.release(backend);
                if (failed != null) {
                    LOG.error("{}: local invalidate of {} (ibv_dealloc_mw / ibv_dereg_mr) failed: {}", endpoint,
                            region, failed);
                    status = CompletionStatus.GENERAL_ERROR;
                }
            }
            deliver(wrId, WorkRequestType.LOCAL_INVALIDATE, status, 0, false, 0, 0);
        }
    }
}
