package smbdirect.rdma.verbs.internal;

import java.io.IOException;

import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

/**
 * Posting onto one {@link VerbsEndpoint}'s queue pair: receives, sends (with and without
 * invalidation), RDMA Writes and Reads, memory window binds, and the local invalidations that run
 * when the send queue reaches them. Each post takes the endpoint's lock, and only it: under it the
 * state and the room are checked, the request is recorded in its {@link OutstandingRequests} ring
 * (the caller's wr_id is kept there; the queue pair sees the endpoint key plus a queue flag), the
 * one reused {@link SendRequest} is filled and the backend posts it (the backend takes no lock of its
 * own: the endpoint's lock serializes the posts of its queue pair). Allocates nothing. With the queue
 * pair in the error state nothing reaches it: the request is recorded and flushed at once on the
 * group thread, handed to it after the lock is left ({@link VerbsEndpoint#watchNow}; waking a
 * completion thread that waits in the device may take the completion queue's own short lock there,
 * never nested in the endpoint's).
 */
final class EndpointPosting {

    private final VerbsEndpoint endpoint;
    private final Object lock;
    private final VerbsBackend backend;
    private final VerbsBackend.QueuePair qp;
    private final OutstandingRequests sendQueue;
    private final OutstandingRequests receiveQueue;
    private final long sendWrId;
    private final long receiveWrId;
    /** The send request every post refills; guarded by the endpoint's lock. */
    private final SendRequest sendRequest = new SendRequest();

    EndpointPosting(VerbsEndpoint endpoint, VerbsBackend backend, VerbsBackend.QueuePair qp,
            OutstandingRequests sendQueue, OutstandingRequests receiveQueue, long sendWrId, long receiveWrId) {
        this.endpoint = endpoint;
        this.lock = endpoint.lock;
        this.backend = backend;
        this.qp = qp;
        this.sendQueue = sendQueue;
        this.receiveQueue = receiveQueue;
        this.sendWrId = sendWrId;
        this.receiveWrId = receiveWrId;
    }

    void postReceive(VerbsMemoryRegion r, int offset, int length, long wrId) throws RdmaException {
        synchronized (lock) {
            VerbsEndpoint.State state = endpoint.stateHeld();
            if (state == VerbsEndpoint.State.DISCONNECTING || state == VerbsEndpoint.State.DISCONNECTED
                    || state == VerbsEndpoint.State.CLOSED) {
                throw endpoint.notPostable("postReceive");
            }
            if (receiveQueue.isFull()) {
                throw new RdmaException("postReceive: receive queue full (" + receiveQueue.capacity()
                        + " outstanding = EndpointSettings.receiveQueueDepth)");
            }
            receiveQueue.add(wrId, WorkRequestType.RECEIVE, length, null);
            if (endpoint.queuePairErrorHeld() == null) {
                try {
                    backend.postRecv(qp, receiveWrId, r.address() + offset, length, r.localKey());
                } catch (IOException e) {
                    receiveQueue.removeLast();
                    throw new RdmaException("ibv_post_recv failed: " + e.getMessage(), e);
                }
                return;
            }
        }
        endpoint.watchNow(); // the queue pair is in error: flushed at once, on the group thread
    }

    void post(int opcode, WorkRequestType type, VerbsMemoryRegion r, int offset, int length, long remoteAddress,
            int remoteToken, int invalidateToken, long wrId, String operation) throws RdmaException {
        synchronized (lock) {
            if (endpoint.stateHeld() != VerbsEndpoint.State.ESTABLISHED) {
                throw endpoint.notPostable(operation);
            }
            if (sendQueue.isFull()) {
                throw new RdmaException(operation + ": send queue full (" + sendQueue.capacity()
                        + " outstanding = EndpointSettings.sendQueueDepth)");
            }
            boolean invalidates = opcode == VerbsConstants.WR_SEND_WITH_INV;
            sendQueue.add(wrId, type, length, null, invalidates ? invalidateToken : remoteToken, invalidates);
            SendRequest request = sendRequest;
            request.clear();
            request.opcode = opcode;
            request.wrId = sendWrId;
            request.sendFlags = VerbsConstants.SEND_SIGNALED;
            request.sgeAddress = r.address() + offset;
            request.sgeLength = length;
            request.sgeLocalKey = r.localKey();
            request.remoteAddress = remoteAddress;
            request.remoteKey = remoteToken;
            request.invalidateKey = invalidateToken;
            if (endpoint.queuePairErrorHeld() == null) {
                try {
                    backend.postSend(qp, request);
                } catch (IOException e) {
                    sendQueue.removeLast();
                    throw new RdmaException("ibv_post_send (" + operation + ") failed: " + e.getMessage(), e);
                }
                return;
            }
        }
        endpoint.watchNow(); // the queue pair is in error: flushed at once, on the group thread
    }

    /**
     * Records a local invalidation of {@code r} in the send queue (run by the group thread when it
     * reaches the head); true when it is at the head already.
     */
    boolean postLocalInvalidate(VerbsMemoryRegion r, long wrId) throws RdmaException {
        synchronized (lock) {
            if (endpoint.stateHeld() != VerbsEndpoint.State.ESTABLISHED) {
                throw endpoint.notPostable("postLocalInvalidate");
            }
            if (sendQueue.isFull()) {
                throw new RdmaException("postLocalInvalidate: send queue full (" + sendQueue.capacity()
                        + " outstanding = EndpointSettings.sendQueueDepth)");
            }
            sendQueue.add(wrId, WorkRequestType.LOCAL_INVALIDATE, 0, r);
            return sendQueue.size() == 1;
        }
    }

    /**
     * Posts the bind of {@code window} over {@code memory} with the remote rights of {@code flags}
     * ({@code IBV_WR_BIND_MW}) ahead of anything posted later; returns why it was refused, else null.
     */
    String postBind(VerbsMemoryRegion region, VerbsBackend.RegisteredMemory memory, VerbsBackend.MemoryWindow window,
            int windowKey, int flags) {
        synchronized (lock) {
            String refused = endpoint.stateHeld() != VerbsEndpoint.State.ESTABLISHED
                    ? endpoint.notPostable("register").getMessage()
                    : sendQueue.bindsFull() ? "register: " + sendQueue.capacity()
                            + " memory window binds in flight (as many as EndpointSettings.sendQueueDepth)" : null;
            if (refused == null) {
                sendQueue.addBind(region);
                SendRequest request = sendRequest;
                request.clear();
                request.opcode = VerbsConstants.WR_BIND_MW;
                request.wrId = sendWrId;
                request.sendFlags = VerbsConstants.SEND_SIGNALED;
                request.bindWindow = window;
                request.bindKey = windowKey;
                request.bindRegion = memory;
                request.bindAddress = memory.address();
                request.bindLength = memory.length();
                request.bindAccess = flags & (VerbsConstants.ACCESS_REMOTE_READ | VerbsConstants.ACCESS_REMOTE_WRITE);
                try {
                    backend.postSend(qp, request);
                } catch (IOException e) {
                    sendQueue.removeLast();
                    refused = "ibv_post_send (bind of a memory window) failed: " + e.getMessage();
                }
                request.clear();
            }
            return refused;
        }
    }
}
