package smbdirect.rdma.verbs.internal;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

/**
 * One RC queue pair with its RDMA CM identifier: translates SPI calls into verbs work requests and
 * CM calls, and verbs completions and CM events into SPI callbacks. This class holds the state and
 * its lock, and hands each CM event to its concern; its connection setup is {@link EndpointSetup},
 * its registrations {@link EndpointRegistrations}, its posting {@link EndpointPosting}, its
 * completions {@link EndpointCompletions}, its deadline watch {@link EndpointDeadlines}, the end of
 * its connection for any cause, {@code disconnect} and {@code close} {@link EndpointEnding}.
 *
 * <p>Threading: SPI methods may be called from any thread; their state checks, the work-queue
 * records and the reused {@link SendRequest} are guarded by {@code lock}, which is never held while
 * a handler runs. Every handler callback runs on the {@link CompletionGroup} thread of the
 * endpoint's device (methods named {@code ...OnGroup} / {@code on...}), so callbacks are never
 * concurrent. {@code onDisconnected} is delivered after both work queues are empty: after
 * {@code rdma_disconnect} the device flushes what is outstanding; if the flushes do not arrive
 * within {@code flushTimeoutMillis}, the endpoint completes the remaining requests as FLUSHED
 * itself.
 *
 * <p>Posting allocates nothing: wr_ids are the endpoint key plus a queue flag (the caller's wrId
 * is kept in the {@link OutstandingRequests} ring), and the send request fields go through one reused
 * {@link SendRequest}.
 */
final class VerbsEndpoint implements RdmaEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);
    /** Handed to handlers where there is no private data (per instance: no shared mutable state). */
    final ByteBuffer empty = ByteBuffer.allocate(0).asReadOnlyBuffer();
    /** Low-half flag of a receive wr_id. */
    static final long RECEIVE_FLAG = 1L << 31;

    enum State {
        /** Active endpoint, created, not connecting. */
        IDLE,
        RESOLVING_ADDRESS,
        RESOLVING_ROUTE,
        CONNECTING,
        /** Passive endpoint created from a connection request, not accepted yet. */
        REQUESTED,
        ACCEPTING,
        ESTABLISHED,
        /** Ending: waiting until both work queues are empty. */
        DISCONNECTING,
        DISCONNECTED,
        CLOSED
    }

    private final VerbsRdmaProvider provider;
    private final VerbsBackend backend;
    private final CompletionGroup group;
    private final VerbsBackend.CmId id;
    private final VerbsBackend.QueuePair qp;
    private final EndpointSettings config;
    private final RdmaEndpointHandler handler;
    private final boolean passive;
    private final int key;
    private final long sendWrId;
    private final long receiveWrId;
    /** Guards the state, the work-queue records and the reused send request (package-private: the registrations wait on it). */
    final Object lock = new Object();
    private final OutstandingRequests sendQueue;
    private final OutstandingRequests receiveQueue;
    /** The registrations of this endpoint and the look-up of those a peer can name. */
    private final EndpointRegistrations registrations;
    /** Posting onto the queue pair, under {@link #lock}. */
    private final EndpointPosting posting;
    /** The completions, on the group thread. */
    private final EndpointCompletions completions;
    /** Connect, accept and the read depths. */
    private final EndpointSetup setup;
    /** The deadline watch, on the group thread. */
    private final EndpointDeadlines deadlines;
    /** The end of the connection for any cause, disconnect, close; its fields under {@link #lock}. */
    private final EndpointEnding ending;

    // guarded by lock
    private State state;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress peerAddress;
    /**
     * Why the queue pair is known to be in the error state (an asynchronous QP error event, a work
     * completion with an error or flush status, the CM's DISCONNECTED), {@code null} while it is not.
     * From then on nothing more is handed to the device: what is posted, and what is outstanding
     * when the connection ends, completes as FLUSHED at once (a device may never flush work posted to
     * a queue pair already in error: siw does not).
     */
    private String queuePairError;
    /**
     * The provider ends an address or route resolution the kernel has not answered within this many
     * times {@code resolveTimeoutMillis} (the kernel's own time for it, after which it reports an error).
     */
    static final int RESOLVE_BACKSTOP_FACTOR = 2;

    /** Hands this endpoint to the group's deadline watch (preallocated: used on posting paths). */
    private final Runnable watchOnGroup = this::watchOnGroup;

    VerbsEndpoint(VerbsRdmaProvider provider, CompletionGroup group, VerbsBackend.CmId id,
            VerbsBackend.QueuePair qp, int key, EndpointSettings config, RdmaEndpointHandler handler, boolean passive,
            InetSocketAddress localAddress, InetSocketAddress peerAddress) {
        this.provider = provider;
        this.backend = provider.backend();
        this.group = group;
        this.id = id;
        this.qp = qp;
        this.key = key;
        this.config = config;
        this.handler = handler;
        this.passive = passive;
        this.sendWrId = ((long) key) << 32;
        this.receiveWrId = sendWrId | RECEIVE_FLAG;
        this.sendQueue = new OutstandingRequests("send", config.sendQueueDepth(), windowBinds(provider, config));
        this.receiveQueue = new OutstandingRequests("receive", config.receiveQueueDepth());
        this.state = passive ? State.REQUESTED : State.IDLE;
        this.localAddress = localAddress;
        this.peerAddress = peerAddress;
        this.registrations = new EndpointRegistrations(this, provider, group);
        this.posting = new EndpointPosting(this, backend, qp, sendQueue, receiveQueue, sendWrId, receiveWrId);
        this.setup = new EndpointSetup(this, provider, group, id, qp, handler, passive);
        this.deadlines = new EndpointDeadlines(this, setup, provider.settings(), group);
        this.completions = new EndpointCompletions(this, provider, handler, registrations, sendQueue, receiveQueue);
        this.ending = new EndpointEnding(this, provider, group, id, qp, handler, sendQueue, receiveQueue, setup,
                registrations, deadlines, completions);
    }

    /**
     * The memory window binds an endpoint may have in flight beside its own send queue depth: as
     * many again when the provider exposes memory through windows, else none.
     */
    static int windowBinds(VerbsRdmaProvider provider, EndpointSettings config) {
        return provider.memoryWindows() ? config.sendQueueDepth() : 0;
    }

    int key() {
        return key;
    }

    VerbsBackend.CmId cmId() {
        return id;
    }

    CompletionGroup group() {
        return group;
    }

    VerbsBackend.QueuePair queuePair() {
        return qp;
    }

    int completionEntries() {
        return config.sendQueueDepth() + windowBinds(provider, config) + config.receiveQueueDepth();
    }

    State state() {
        synchronized (lock) {
            return state;
        }
    }

    /** Whether this endpoint is on its way to a connection or has one (resolving, connecting, requested, accepting, established). */
    boolean connectingOrConnected() {
        synchronized (lock) {
            return state.compareTo(State.RESOLVING_ADDRESS) >= 0 && state.compareTo(State.ESTABLISHED) <= 0;
        }
    }

    int outstandingSends() {
        synchronized (lock) {
            return sendQueue.size();
        }
    }

    int outstandingReceives() {
        synchronized (lock) {
            return receiveQueue.size();
        }
    }

    int registeredRegions() {
        return registrations.count();
    }

    // ------------------------------------------------------------------ connection management

    @Override
    public void connect(InetSocketAddress peer, ConnectParameters parameters) throws RdmaException {
        setup.connect(peer, parameters);
    }

    /** Group thread: the group checks this endpoint's deadlines ({@link #checkDeadline}) each round. */
    private void watchOnGroup() {
        group.watchDrain(this);
    }

    /** Passive side, before accept: the peer's IRD as its request carried it (0: unknown). */
    void peerInboundReadDepth(int ird) {
        setup.peerInboundReadDepth(ird);
    }

    @Override
    public void accept(ConnectParameters parameters) throws RdmaException {
        setup.accept(parameters);
    }

    /** Group thread: a CM event for this endpoint's identifier. */
    void onCmEvent(VerbsBackend.CmEvent event) {
        int type = event.type();
        switch (type) {
            case VerbsConstants.CM_EVENT_ADDR_RESOLVED:
                setup.onAddressResolved();
                return;
            case VerbsConstants.CM_EVENT_ROUTE_RESOLVED:
                setup.onRouteResolved();
                return;
            case VerbsConstants.CM_EVENT_ESTABLISHED:
                setup.onEstablished(event);
                return;
            case VerbsConstants.CM_EVENT_CONNECT_RESPONSE:
            case VerbsConstants.CM_EVENT_TIMEWAIT_EXIT:
            case VerbsConstants.CM_EVENT_ADDR_CHANGE:
                LOG.debug("{} on {}", StatusMapper.cmEventName(type), this);
                return;
            default:
                ending.onCmEvent(event);
        }
    }

    @Override
    public void disconnect() {
        ending.disconnect();
    }

    /** Group thread: the connection ends (or never comes) with {@code why}; the first cause wins. */
    void endOnGroup(DisconnectCause why, String text) {
        ending.endOnGroup(why, text, false);
    }

    /**
     * As {@link #endOnGroup(DisconnectCause, String)}; with {@code completionsLost} (the completion
     * queue or the device failed) no flush will come: what is outstanding completes as FLUSHED now.
     */
    void endOnGroup(DisconnectCause why, String text, boolean completionsLost) {
        ending.endOnGroup(why, text, completionsLost);
    }

    /** Group thread: an asynchronous event of this endpoint's queue pair ({@link EndpointEnding#onAsyncEvent}). */
    void onAsyncEvent(int type) {
        ending.onAsyncEvent(type);
    }

    /** After a connection began ending: rdma_disconnect and the drain watch, or the flush at once; then maybe the end. */
    void afterEnding(boolean queuePairLive) {
        ending.afterEnding(queuePairLive);
    }

    /** Group thread: the device's port went down ({@link EndpointEnding#endForPortDown}). */
    void endForPortDown(String text) {
        ending.endForPortDown(text);
    }

    /** The device's port is up again (or the provider stops): what waited for it runs now, on this thread. */
    void portUp() {
        setup.releaseForPort();
    }

    /** Records that the queue pair is in the error state (the first evidence is kept). */
    void queuePairInError(String evidence) {
        synchronized (lock) {
            if (queuePairError == null) {
                queuePairError = evidence;
            }
        }
    }

    /**
     * Group thread, each round while the group watches this endpoint: its deadlines
     * ({@link EndpointDeadlines}); true when it no longer needs watching.
     */
    boolean checkDeadline(long now) {
        return deadlines.check(now);
    }

    /** Group thread: completes everything still recorded as FLUSHED, in post order per queue. */
    void flushOutstanding() {
        completions.flushOutstanding();
    }

    /** The end once both work queues are empty: DISCONNECTED and {@code onDisconnected}. */
    void maybeFinish() {
        ending.maybeFinish();
    }

    @Override
    public void close() {
        ending.close();
    }

    boolean isClosed() {
        synchronized (lock) {
            return state == State.CLOSED;
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peerAddress;
    }

    @Override
    public int inboundReadDepth() {
        return setup.inboundReadDepth();
    }

    @Override
    public int outboundReadDepth() {
        return setup.outboundReadDepth();
    }

    @Override
    public RdmaCapabilities capabilities() {
        return provider.capabilities();
    }

    /** The passive side's reject of a created, not accepted endpoint: {@code rdma_reject}, then {@link #close}. */
    void reject(ByteBuffer privateData) {
        ending.reject(privateData);
    }

    // ------------------------------------------------------------------ memory

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        return registrations.register(buffer, access);
    }

    @Override
    public void deregister(MemoryRegion region) throws RdmaException {
        registrations.deregister(region);
    }

    // ------------------------------------------------------------------ posting

    @Override
    public void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        posting.postReceive(registrations.usable(region, offset, length, "postReceive"), offset, length, wrId);
    }

    @Override
    public void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        VerbsMemoryRegion r = registrations.usable(region, offset, length, "postSend");
        posting.post(VerbsConstants.WR_SEND, WorkRequestType.SEND, r, offset, length, 0, 0, 0, wrId, "postSend");
    }

    @Override
    public void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException {
        if (!provider.capabilities().sendWithInvalidate()) {
            throw new RdmaException("postSendWithInvalidate: Send with Invalidate is off (capability "
                    + "sendWithInvalidate=false: " + provider.sendWithInvalidateReason() + ")");
        }
        VerbsMemoryRegion r = registrations.usable(region, offset, length, "postSendWithInvalidate");
        posting.post(VerbsConstants.WR_SEND_WITH_INV, WorkRequestType.SEND, r, offset, length, 0, 0, remoteToken,
                wrId, "postSendWithInvalidate");
    }

    @Override
    public void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        VerbsMemoryRegion r = registrations.usable(local, localOffset, length, "postRdmaWrite");
        posting.post(VerbsConstants.WR_RDMA_WRITE, WorkRequestType.RDMA_WRITE, r, localOffset, length, remoteAddress,
                remoteToken, 0, wrId, "postRdmaWrite");
    }

    @Override
    public void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        VerbsMemoryRegion r = registrations.usable(local, localOffset, length, "postRdmaRead");
        posting.post(VerbsConstants.WR_RDMA_READ, WorkRequestType.RDMA_READ, r, localOffset, length, remoteAddress,
                remoteToken, 0, wrId, "postRdmaRead");
    }

    /**
     * DiSNI has no IBV_WR_LOCAL_INV and {@code ibv_reg_mr} regions cannot be invalidated by a work
     * request anyway. The provider therefore runs the invalidation as {@code ibv_dereg_mr} at the
     * point where the send queue reaches it (every earlier send-queue request has completed): the
     * rkey is dead when the LOCAL_INVALIDATE completion is delivered, and a later
     * {@link #deregister} only drops the bookkeeping.
     */
    @Override
    public void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException {
        if (posting.postLocalInvalidate(registrations.own(region, "postLocalInvalidate"), wrId)) {
            group.execute(this::drainDeferredAndFinish);
        }
    }

    /** Binds a memory window over a registration ({@link EndpointPosting#postBind}); why refused, else null. */
    String postBind(VerbsMemoryRegion region, VerbsBackend.RegisteredMemory memory, VerbsBackend.MemoryWindow window,
            int windowKey, int flags) {
        return posting.postBind(region, memory, window, windowKey, flags);
    }

    /** Under {@link #lock}: the state. */
    State stateHeld() {
        return state;
    }

    /** Under {@link #lock}: the state becomes {@code next} (connection setup). */
    void stateHeld(State next) {
        state = next;
    }

    /** Connection setup: the peer connected to. */
    void peerAddress(InetSocketAddress peer) {
        peerAddress = peer;
    }

    /** Connection setup, once established: the local address the identifier is bound to. */
    void localAddress(InetSocketAddress local) {
        localAddress = local;
    }

    /** Under {@link #lock}: the first evidence that the queue pair is in the error state, else null. */
    String queuePairErrorHeld() {
        return queuePairError;
    }

    /** Has the group thread look at this endpoint now (its queue pair is in error: flushed at once). */
    void watchNow() {
        group.execute(watchOnGroup);
    }

    /** Under {@link #lock}: why {@code operation} cannot be posted in this state. */
    RdmaException notPostable(String operation) {
        return ending.notPostableHeld(operation);
    }

    // ------------------------------------------------------------------ completions (group thread)

    /** Group thread: completion {@code i} of {@code batch} belongs to this endpoint ({@link EndpointCompletions}). */
    void onWorkCompletion(CompletionBatch batch, int i) {
        completions.onWorkCompletion(batch, i);
    }

    /** Group thread: a successful completion proves the connection is up; onEstablished first if not yet. */
    void establishedByCompletion() {
        setup.establishedByCompletion();
    }

    /**
     * Under {@link #lock}: a completion failed (not flushed) with {@code status}
     * ({@link EndpointEnding#endOnFailedCompletionHeld}); the caller runs {@link #afterEnding} after
     * it left the lock and delivered the completion.
     */
    int endOnFailedCompletionHeld(CompletionStatus status, String failure, boolean refine) {
        return ending.endOnFailedCompletionHeld(status, failure, refine);
    }

    /** Under {@link #lock}: records the first evidence that the queue pair is in the error state. */
    void queuePairErrorHeld(String evidence) {
        if (queuePairError == null) {
            queuePairError = evidence;
        }
    }

    private void drainDeferredAndFinish() {
        completions.drainDeferred();
        maybeFinish();
    }

    @Override
    public String toString() {
        return "VerbsEndpoint[" + (passive ? "passive" : "active") + " key=0x" + Integer.toHexString(key) + " "
                + localAddress + " -> " + peerAddress + "]";
    }
}
