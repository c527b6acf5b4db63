package smbdirect.rdma.iwarp.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.MutableWorkCompletion;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.internal.IwarpEndpoint.State;
import smbdirect.rdma.iwarp.internal.wire.Rdmap;

/**
 * The send queue and the receive queue of one endpoint, from post to completion. A post (any
 * thread) checks its arguments, then, holding the endpoint's lock, the endpoint's state and the
 * queue's room, fills the next pooled work request of the ring and publishes it; a send-queue post
 * then puts the endpoint on its loop's work list. The {@link Transmitter} and {@link Receiver} mark
 * requests done on the I/O thread and say so ({@link #completionsReady}); {@link #deliver} then hands
 * the completions at the head of both queues to the handler in post order, freeing each slot first so
 * that a callback may post again at once. When the connection ends, {@link #flush} completes
 * everything not done yet with FLUSHED.
 *
 * <p>Allocation-free: the work requests are pooled in the rings and the completion is one reused
 * flyweight. The handler is called on the I/O thread only, never while the lock is held.
 */
final class SendAndReceiveQueues {

    private static final Logger LOG = LoggerFactory.getLogger(SendAndReceiveQueues.class);

    final WorkRequestRing<SendWr> sq;
    final WorkRequestRing<RecvWr> rq;
    private final IwarpEndpoint ep;
    /** The endpoint's lock: a post and a change of the endpoint's state exclude each other. */
    private final Object lock;
    private final RegionTable regions;
    private final RdmaEndpointHandler handler;
    private final MutableWorkCompletion completion = new MutableWorkCompletion();
    /** I/O thread: some request is done and not yet delivered. */
    private boolean ready;

    SendAndReceiveQueues(IwarpEndpoint ep, Object lock, EndpointSettings config, RegionTable regions, RdmaEndpointHandler handler) {
        this.ep = ep;
        this.lock = lock;
        this.regions = regions;
        this.handler = handler;
        this.sq = new WorkRequestRing<>(config.sendQueueDepth(), SendWr::new);
        this.rq = new WorkRequestRing<>(config.receiveQueueDepth(), RecvWr::new);
    }

    // ------------------------------------------------------------------ posting (any thread)

    void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        IwarpRegion r = regions.usable(region, offset, length, "postReceive");
        if (!r.localWrite) {
            throw new RdmaException("postReceive: " + r + " lacks LOCAL_WRITE");
        }
        synchronized (lock) {
            State s = ep.state();
            if (s == State.ERROR || s == State.CLOSED || s == State.REJECTED) {
                throw notPostable("postReceive");
            }
            if (rq.isFull()) {
                throw new RdmaException("postReceive: the receive queue is full (" + rq.depth
                        + " = EndpointSettings.receiveQueueDepth)");
            }
            RecvWr w = rq.next();
            w.region = r;
            w.offset = offset;
            w.length = length;
            w.wrId = wrId;
            rq.publish();
        }
    }

    void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        IwarpRegion r = regions.usable(region, offset, length, "postSend");
        post(WorkRequestType.SEND, Rdmap.SEND, r, offset, length, 0, 0, 0, wrId, "postSend");
    }

    void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException {
        IwarpRegion r = regions.usable(region, offset, length, "postSendWithInvalidate");
        post(WorkRequestType.SEND, Rdmap.SEND_INVALIDATE, r, offset, length, 0, 0, remoteToken, wrId,
                "postSendWithInvalidate");
    }

    void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        IwarpRegion r = regions.usable(local, localOffset, length, "postRdmaWrite");
        post(WorkRequestType.RDMA_WRITE, Rdmap.RDMA_WRITE, r, localOffset, length, remoteAddress, remoteToken, 0,
                wrId, "postRdmaWrite");
    }

    void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        IwarpRegion r = regions.usable(local, localOffset, length, "postRdmaRead");
        if (!r.localWrite) {
            throw new RdmaException("postRdmaRead: the sink " + r + " lacks LOCAL_WRITE");
        }
        post(WorkRequestType.RDMA_READ, Rdmap.READ_REQUEST, r, localOffset, length, remoteAddress, remoteToken, 0,
                wrId, "postRdmaRead");
    }

    void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException {
        IwarpRegion r = regions.own(region, "postLocalInvalidate");
        if (!r.registered) {
            throw new RdmaException("postLocalInvalidate: " + r + " is deregistered");
        }
        post(WorkRequestType.LOCAL_INVALIDATE, -1, r, 0, 0, 0, 0, 0, wrId, "postLocalInvalidate");
    }

    private void post(WorkRequestType type, int opcode, IwarpRegion r, int offset, int length, long remoteAddress,
            int remoteToken, int invalidateToken, long wrId, String operation) throws RdmaException {
        synchronized (lock) {
            if (ep.state() != State.ESTABLISHED) {
                throw notPostable(operation);
            }
            if (type == WorkRequestType.RDMA_READ && ep.outboundReadDepth() == 0) {
                throw new RdmaException(operation + ": the negotiated ORD is 0 (the peer grants no RDMA Read)");
            }
            if (sq.isFull()) {
                throw new RdmaException(operation + ": the send queue is full (" + sq.depth
                        + " = EndpointSettings.sendQueueDepth)");
            }
            SendWr w = sq.next();
            w.type = type;
            w.opcode = opcode;
            w.region = r;
            w.offset = offset;
            w.length = length;
            w.remoteAddress = remoteAddress;
            w.remoteToken = remoteToken;
            w.invalidateToken = invalidateToken;
            w.wrId = wrId;
            w.internal = false;
            sq.publish();
        }
        ep.loop.schedule(ep);
    }

    private RdmaException notPostable(String operation) {
        return new RdmaException(operation + ": the endpoint is " + ep.state());
    }

    // ------------------------------------------------------------------ completions (I/O thread)

    /** Transmitter, receiver, invalidation, termination: completions are waiting to be delivered. */
    void completionsReady() {
        ready = true;
    }

    boolean hasReady() {
        return ready;
    }

    /** The connection ended: every request not done completes with FLUSHED (delivered by {@link #deliver}). */
    void flush() {
        for (long s = sq.head(); s < sq.tail(); s++) {
            SendWr w = sq.at(s);
            if (!w.done) {
                w.complete(CompletionStatus.FLUSHED, 0);
            }
        }
        for (long s = rq.head(); s < rq.tail(); s++) {
            RecvWr w = rq.at(s);
            if (!w.done) {
                w.complete(CompletionStatus.FLUSHED, 0);
            }
        }
    }

    /** Delivers the completions at the head of both queues in post order (I/O thread, no lock held). */
    void deliver() {
        ready = false;
        while (true) {
            long h = sq.head();
            if (h < sq.tail()) {
                SendWr w = sq.at(h);
                if (w.done) {
                    long wrId = w.wrId;
                    WorkRequestType type = w.type;
                    CompletionStatus status = w.status;
                    int bytes = w.byteLength;
                    w.region = null;
                    sq.freeHead();
                    deliver(wrId, type, status, bytes, false, 0);
                    continue;
                }
            }
            long r = rq.head();
            if (r < rq.tail()) {
                RecvWr w = rq.at(r);
                if (w.done) {
                    long wrId = w.wrId;
                    CompletionStatus status = w.status;
                    int bytes = w.byteLength;
                    boolean invalidated = w.invalidated;
                    int stag = w.invalidatedStag;
                    w.region = null;
                    rq.freeHead();
                    deliver(wrId, WorkRequestType.RECEIVE, status, bytes, invalidated, stag);
                    continue;
                }
            }
            return;
        }
    }

    private void deliver(long wrId, WorkRequestType type, CompletionStatus status, int bytes, boolean invalidated,
            int stag) {
        if (ep.state() == State.CLOSED) {
            return;
        }
        try {
            handler.onCompletion(completion.fill(wrId, type, status, bytes, invalidated, stag, 0));
        } catch (RuntimeException e) {
            LOG.error("onCompletion handler of {} failed", ep, e);
        }
    }
}
