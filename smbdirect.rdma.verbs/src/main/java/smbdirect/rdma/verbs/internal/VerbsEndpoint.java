package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointConfig;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;

/**
 * One RC queue pair with its RDMA CM identifier: translates SPI calls into verbs work requests and
 * CM calls, and verbs completions and CM events into SPI callbacks.
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
 * is kept in the {@link WorkQueue} ring), and the send request fields go through one reused
 * {@link SendRequest}.
 */
final class VerbsEndpoint implements RdmaEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);
    /** Handed to handlers where there is no private data (per instance: no shared mutable state). */
    private final ByteBuffer empty = ByteBuffer.allocate(0).asReadOnlyBuffer();
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
    private final VerbsBackend.Features features;
    private final CompletionGroup group;
    private final VerbsSettings settings;
    private final VerbsBackend.CmId id;
    private final VerbsBackend.QueuePair qp;
    private final EndpointConfig config;
    private final RdmaEndpointHandler handler;
    private final boolean passive;
    private final int key;
    private final long sendWrId;
    private final long receiveWrId;
    private final Object lock = new Object();
    private final WorkQueue sendQueue;
    private final WorkQueue receiveQueue;
    private final SendRequest sendRequest = new SendRequest();
    /** Every live registration of this endpoint. */
    private final Set<VerbsMemoryRegion> regions = ConcurrentHashMap.newKeySet();
    /**
     * The registrations a peer can name, by rkey (for Send with Invalidate). Only those: a device
     * may give every local-only registration the same rkey (rxe gives them 0).
     */
    private final ConcurrentHashMap<Integer, VerbsMemoryRegion> remoteRegions = new ConcurrentHashMap<>();
    /** Used only on the group thread. */
    private final VerbsWorkCompletion completion = new VerbsWorkCompletion();

    // guarded by lock
    private State state;
    private boolean disconnectRequested;
    private DisconnectCause cause;
    private String detail;
    private ByteBuffer connectPrivateData = empty;
    /** The private data of the REJECTED event that ended the connection (read-only), else empty. */
    private ByteBuffer disconnectPrivateData = empty;
    private int inboundReadDepth;
    private int outboundReadDepth;
    /** Passive side: the peer's IRD from its request (0: unknown), bounding the ORD we accept with. */
    private int peerInboundReadDepth;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress peerAddress;
    /** Group thread only. */
    private long drainDeadline;
    /** Group thread only: onEstablished was delivered. */
    private boolean establishedSeen;

    VerbsEndpoint(VerbsRdmaProvider provider, CompletionGroup group, VerbsBackend.CmId id,
            VerbsBackend.QueuePair qp, int key, EndpointConfig config, RdmaEndpointHandler handler, boolean passive,
            InetSocketAddress localAddress, InetSocketAddress peerAddress) {
        this.provider = provider;
        this.backend = provider.backend();
        this.features = backend.features();
        this.settings = provider.settings();
        this.group = group;
        this.id = id;
        this.qp = qp;
        this.key = key;
        this.config = config;
        this.handler = handler;
        this.passive = passive;
        this.sendWrId = ((long) key) << 32;
        this.receiveWrId = sendWrId | RECEIVE_FLAG;
        this.sendQueue = new WorkQueue("send", config.sendQueueDepth());
        this.receiveQueue = new WorkQueue("receive", config.receiveQueueDepth());
        this.state = passive ? State.REQUESTED : State.IDLE;
        this.localAddress = localAddress;
        this.peerAddress = peerAddress;
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
        return config.sendQueueDepth() + config.receiveQueueDepth();
    }

    State state() {
        synchronized (lock) {
            return state;
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
        return regions.size();
    }

    // ------------------------------------------------------------------ connection management

    @Override
    public void connect(InetSocketAddress peer, ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(parameters, "parameters");
        if (peer.isUnresolved()) {
            throw new RdmaException("connect: peer " + peer + " is not resolved to an address");
        }
        if (!(peer.getAddress() instanceof Inet4Address) && !features.ipv6()) {
            throw new RdmaException("connect: peer " + peer + " is not an IPv4 address (the " + features.name()
                    + " backend passes sockaddr_in only; IPv6 is not supported)");
        }
        ByteBuffer privateData = parameters.privateData();
        if (privateData.remaining() > VerbsConstants.MAX_CONNECT_PRIVATE_DATA) {
            throw new RdmaException("connect: private data of " + privateData.remaining() + " bytes exceeds "
                    + VerbsConstants.MAX_CONNECT_PRIVATE_DATA + " (rdma_connect limit on InfiniBand)");
        }
        synchronized (lock) {
            if (passive) {
                throw new RdmaException("connect: endpoint was created from a connection request; use accept");
            }
            if (state != State.IDLE) {
                throw new RdmaException("connect: endpoint is " + state + ", not IDLE");
            }
            ByteBuffer copy = ByteBuffer.allocateDirect(privateData.remaining());
            copy.put(privateData.duplicate()).flip();
            connectPrivateData = copy;
            inboundReadDepth = Math.min(parameters.inboundReadDepth(), provider.capabilities().maxInboundReadDepth());
            outboundReadDepth = Math.min(parameters.outboundReadDepth(),
                    provider.capabilities().maxOutboundReadDepth());
            peerAddress = peer;
            state = State.RESOLVING_ADDRESS;
            try {
                backend.resolveAddr(id, peer, settings.resolveTimeoutMillis());
            } catch (IOException e) {
                state = State.IDLE;
                throw new RdmaException("rdma_resolve_addr to " + peer + " failed: " + e.getMessage(), e);
            }
        }
    }

    /** Passive side, before accept: the peer's IRD as its request carried it (0: unknown). */
    void peerInboundReadDepth(int ird) {
        synchronized (lock) {
            peerInboundReadDepth = ird;
        }
    }

    @Override
    public void accept(ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(parameters, "parameters");
        ByteBuffer privateData = parameters.privateData();
        if (features.privateData() && privateData.remaining() > VerbsConstants.MAX_ACCEPT_PRIVATE_DATA) {
            throw new RdmaException("accept: private data of " + privateData.remaining() + " bytes exceeds "
                    + VerbsConstants.MAX_ACCEPT_PRIVATE_DATA + " (rdma_accept limit on InfiniBand)");
        }
        synchronized (lock) {
            if (!passive) {
                throw new RdmaException("accept: endpoint is active (created by the provider); use connect");
            }
            if (state != State.REQUESTED) {
                throw new RdmaException("accept: endpoint is " + state + ", not REQUESTED");
            }
            inboundReadDepth = Math.min(parameters.inboundReadDepth(), provider.capabilities().maxInboundReadDepth());
            outboundReadDepth = Math.min(parameters.outboundReadDepth(),
                    provider.capabilities().maxOutboundReadDepth());
            if (features.negotiatesReadDepth() && peerInboundReadDepth > 0) {
                // rdma_accept(3): initiator_depth at most the responder resources the request offered
                outboundReadDepth = Math.min(outboundReadDepth, peerInboundReadDepth);
            }
            state = State.ACCEPTING;
            try {
                backend.accept(id, new VerbsBackend.ConnectionParameters(privateData.duplicate(), inboundReadDepth,
                        outboundReadDepth, settings.retryCount(), settings.rnrRetryCount()));
            } catch (IOException e) {
                state = State.REQUESTED;
                throw new RdmaException("rdma_accept from " + peerAddress + " failed: " + e.getMessage(), e);
            }
        }
        if (privateData.hasRemaining() && !features.privateData()) {
            LOG.warn("accept from {}: {} bytes of private data not sent (the {} backend's rdma_accept carries no "
                    + "private data)", peerAddress, privateData.remaining(), features.name());
        }
    }

    /** Group thread: a CM event for this endpoint's identifier. */
    void onCmEvent(VerbsBackend.CmEvent event) {
        int type = event.type();
        switch (type) {
            case VerbsConstants.CM_EVENT_ADDR_RESOLVED:
                onAddressResolved();
                return;
            case VerbsConstants.CM_EVENT_ROUTE_RESOLVED:
                onRouteResolved();
                return;
            case VerbsConstants.CM_EVENT_ESTABLISHED:
                onEstablished(event);
                return;
            case VerbsConstants.CM_EVENT_CONNECT_RESPONSE:
            case VerbsConstants.CM_EVENT_TIMEWAIT_EXIT:
            case VerbsConstants.CM_EVENT_ADDR_CHANGE:
                LOG.debug("{} on {}", StatusMapper.cmEventName(type), this);
                return;
            default:
                DisconnectCause ending = StatusMapper.disconnectCause(type, event.status(), provider.transportType());
                if (ending != null) {
                    if (type == VerbsConstants.CM_EVENT_REJECTED && features.privateData()
                            && event.privateData().length > 0) {
                        synchronized (lock) {
                            if (state != State.DISCONNECTING && state != State.DISCONNECTED && state != State.CLOSED) {
                                disconnectPrivateData = ByteBuffer.wrap(event.privateData()).asReadOnlyBuffer();
                            }
                        }
                    }
                    endOnGroup(ending, StatusMapper.describeCmEvent(type, event.status(), provider.transportType()));
                } else {
                    LOG.debug("ignoring {} on {}", StatusMapper.cmEventName(type), this);
                }
        }
    }

    private void onAddressResolved() {
        String failure = null;
        synchronized (lock) {
            if (state != State.RESOLVING_ADDRESS) {
                return;
            }
            state = State.RESOLVING_ROUTE;
            try {
                backend.resolveRoute(id, settings.resolveTimeoutMillis());
            } catch (IOException e) {
                failure = "rdma_resolve_route failed: " + e.getMessage();
            }
        }
        if (failure != null) {
            endOnGroup(DisconnectCause.UNREACHABLE, failure);
        }
    }

    private void onRouteResolved() {
        String failure = null;
        boolean refused = false;
        synchronized (lock) {
            if (state != State.RESOLVING_ROUTE) {
                return;
            }
            state = State.CONNECTING;
            try {
                backend.connect(id, new VerbsBackend.ConnectionParameters(connectPrivateData.duplicate(),
                        inboundReadDepth, outboundReadDepth, settings.retryCount(), settings.rnrRetryCount()));
            } catch (IOException e) {
                failure = e.getMessage().startsWith("rdma_connect") ? e.getMessage()
                        : "rdma_connect failed: " + e.getMessage();
                // an iWARP connect is a TCP connect: no listener on the port refuses it at once
                refused = e instanceof NativeCallException n && n.errno() == NativeCallException.ECONNREFUSED;
            }
        }
        if (failure != null) {
            endOnGroup(refused ? DisconnectCause.UNREACHABLE : DisconnectCause.CONNECT_ERROR, failure);
        }
    }

    private void onEstablished(VerbsBackend.CmEvent event) {
        synchronized (lock) {
            if (state != State.CONNECTING && state != State.ACCEPTING) {
                return;
            }
            if (event != null && features.negotiatesReadDepth() && !passive) {
                // the accept's values as the CM reports them to us: initiator_depth is the peer's
                // responder resources (bounds our ORD), responder_resources its initiator depth
                if (event.initiatorDepth() > 0) {
                    outboundReadDepth = Math.min(outboundReadDepth, event.initiatorDepth());
                }
                if (event.responderResources() > 0) {
                    inboundReadDepth = Math.min(inboundReadDepth, event.responderResources());
                }
            }
            state = State.ESTABLISHED;
        }
        establishedSeen = true;
        try {
            localAddress = backend.localAddress(id);
            peerAddress = backend.peerAddress(id);
        } catch (IOException e) {
            LOG.debug("addresses of {} unavailable: {}", this, e.getMessage());
        }
        if (!isClosed()) {
            try {
                // the peer's accept private data (active side); DiSNI 2.0 surfaces none
                handler.onEstablished(event == null || passive || !features.privateData()
                        || event.privateData().length == 0 ? empty
                                : ByteBuffer.wrap(event.privateData()).asReadOnlyBuffer());
            } catch (RuntimeException e) {
                LOG.error("onEstablished handler of {} failed", this, e);
            }
        }
    }

    @Override
    public void disconnect() {
        synchronized (lock) {
            if (disconnectRequested || state == State.DISCONNECTING || state == State.DISCONNECTED
                    || state == State.CLOSED) {
                return;
            }
            if (state == State.IDLE) {
                return; // never connected: harmless, no callback (the SPI); close() releases what is posted
            }
            disconnectRequested = true;
        }
        group.execute(() -> endOnGroup(DisconnectCause.LOCAL, "disconnect() called"));
    }

    /**
     * Group thread: the connection ends (or never comes) with {@code why}; the first cause wins.
     * Moves the queue pair to the error state (rdma_disconnect) so the device flushes what is
     * outstanding, or, if the queue pair never left INIT, completes the outstanding receives as
     * FLUSHED right away.
     */
    void endOnGroup(DisconnectCause why, String text) {
        boolean queuePairLive;
        synchronized (lock) {
            if (state == State.DISCONNECTING || state == State.DISCONNECTED || state == State.CLOSED) {
                return;
            }
            queuePairLive = state == State.CONNECTING || state == State.ACCEPTING || state == State.ESTABLISHED;
            state = State.DISCONNECTING;
            cause = why;
            detail = text;
        }
        LOG.debug("{} ending: {} ({})", this, why, text);
        afterEnding(queuePairLive);
    }

    private void afterEnding(boolean queuePairLive) {
        if (queuePairLive) {
            int rc = backend.disconnect(id);
            if (rc != 0) {
                LOG.debug("rdma_disconnect of {} returned {}", this, rc);
            }
            drainDeadline = group.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.flushTimeoutMillis());
            group.watchDrain(this);
        } else {
            flushOutstanding();
        }
        maybeFinish();
    }

    /**
     * Group thread: called each round while DISCONNECTING; returns true when the endpoint no
     * longer needs watching.
     */
    boolean checkDrain(long now) {
        synchronized (lock) {
            if (state != State.DISCONNECTING) {
                return true;
            }
        }
        if (now - drainDeadline < 0) {
            return false;
        }
        LOG.warn("{}: {} sends and {} receives not flushed by the device within {} ms; completing them as FLUSHED",
                this, outstandingSends(), outstandingReceives(), settings.flushTimeoutMillis());
        flushOutstanding();
        maybeFinish();
        return true;
    }

    /** Group thread: completes everything still recorded as FLUSHED, in post order per queue. */
    private void flushOutstanding() {
        drainDeferred();
        while (completeHead(false, VerbsConstants.WC_WR_FLUSH_ERR, 0, 0, 0, 0)) {
            drainDeferred();
        }
        while (completeHead(true, VerbsConstants.WC_WR_FLUSH_ERR, 0, 0, 0, 0)) {
            // next
        }
    }

    private void maybeFinish() {
        DisconnectCause why;
        String text;
        ByteBuffer data;
        synchronized (lock) {
            if (state != State.DISCONNECTING || !sendQueue.isEmpty() || !receiveQueue.isEmpty()) {
                return;
            }
            state = State.DISCONNECTED;
            why = cause;
            text = detail;
            data = why == DisconnectCause.REJECTED ? disconnectPrivateData : empty;
        }
        LOG.debug("{} disconnected: {} ({})", this, why, text);
        try {
            handler.onDisconnected(why, text, data);
        } catch (RuntimeException e) {
            LOG.error("onDisconnected handler of {} failed", this, e);
        }
    }

    @Override
    public void close() {
        State before;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            before = state;
            state = State.CLOSED;
        }
        if (before == State.CONNECTING || before == State.ACCEPTING || before == State.ESTABLISHED
                || before == State.DISCONNECTING) {
            backend.disconnect(id);
        }
        provider.forget(this);
        backend.destroyQp(id, qp);
        for (VerbsMemoryRegion region : regions) {
            if (region.claimDeregistration()) {
                try {
                    backend.deregister(region.memory());
                } catch (IOException e) {
                    LOG.warn("ibv_dereg_mr of {} failed while closing {}: {}", region, this, e.getMessage());
                }
            }
        }
        regions.clear();
        remoteRegions.clear();
        backend.destroyId(id);
        group.detach(key, completionEntries());
    }

    private boolean isClosed() {
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
        synchronized (lock) {
            return inboundReadDepth;
        }
    }

    @Override
    public int outboundReadDepth() {
        synchronized (lock) {
            return outboundReadDepth;
        }
    }

    @Override
    public RdmaCapabilities capabilities() {
        return provider.capabilities();
    }

    /** The passive side's reject of a created, not accepted endpoint: {@code rdma_reject}, then {@link #close}. */
    void reject(ByteBuffer privateData) {
        if (features.privateData()) {
            try {
                backend.reject(id, privateData);
            } catch (IOException e) {
                LOG.warn("rdma_reject of {} failed ({}); destroying the identifier rejects it", this, e.getMessage());
            }
        }
        close();
    }

    // ------------------------------------------------------------------ memory

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(access, "access");
        if (!buffer.isDirect()) {
            throw new RdmaException("register: buffer must be a direct ByteBuffer (ibv_reg_mr needs a native address)");
        }
        int length = buffer.remaining();
        if (length == 0) {
            throw new RdmaException("register: nothing to register (position == limit == " + buffer.position() + ")");
        }
        if (length > settings.maxRegionSize()) {
            throw new RdmaException("register: " + length + " bytes exceed maxRegionSize " + settings.maxRegionSize());
        }
        int flags;
        try {
            flags = StatusMapper.accessFlags(access);
        } catch (IllegalArgumentException e) {
            throw new RdmaException("register: " + e.getMessage());
        }
        if (isClosed()) {
            throw new RdmaException("register: endpoint is closed");
        }
        ByteBuffer view = buffer.slice();
        VerbsBackend.RegisteredMemory memory;
        try {
            memory = backend.register(group.pd(), view, flags);
        } catch (IOException e) {
            throw new RdmaException("ibv_reg_mr of " + length + " bytes with access " + access + " failed: "
                    + e.getMessage(), e);
        }
        VerbsMemoryRegion region = new VerbsMemoryRegion(this, memory, view, access);
        regions.add(region);
        if (access.contains(MemoryAccess.REMOTE_READ) || access.contains(MemoryAccess.REMOTE_WRITE)) {
            remoteRegions.put(memory.remoteKey(), region);
        }
        return region;
    }

    @Override
    public void deregister(MemoryRegion region) throws RdmaException {
        VerbsMemoryRegion r = own(region, "deregister");
        regions.remove(r);
        remoteRegions.remove(r.token(), r);
        if (r.claimDeregistration()) {
            try {
                backend.deregister(r.memory());
            } catch (IOException e) {
                throw new RdmaException("ibv_dereg_mr of " + r + " failed: " + e.getMessage(), e);
            }
        }
    }

    private VerbsMemoryRegion own(MemoryRegion region, String operation) throws RdmaException {
        Objects.requireNonNull(region, "region");
        if (!(region instanceof VerbsMemoryRegion r) || r.owner() != this) {
            throw new RdmaException(operation + ": " + region + " is not registered on this endpoint");
        }
        return r;
    }

    private VerbsMemoryRegion usable(MemoryRegion region, int offset, int length, String operation)
            throws RdmaException {
        VerbsMemoryRegion r = own(region, operation);
        if (!r.isRegistered()) {
            throw new RdmaException(operation + ": " + r + " is deregistered");
        }
        if (offset < 0 || length < 0 || (long) offset + length > r.length()) {
            throw new RdmaException(operation + ": offset " + offset + " + length " + length
                    + " outside the region of " + r.length() + " bytes");
        }
        return r;
    }

    // ------------------------------------------------------------------ posting

    @Override
    public void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        VerbsMemoryRegion r = usable(region, offset, length, "postReceive");
        synchronized (lock) {
            if (state == State.DISCONNECTING || state == State.DISCONNECTED || state == State.CLOSED) {
                throw notPostable("postReceive");
            }
            if (receiveQueue.isFull()) {
                throw new RdmaException("postReceive: receive queue full (" + receiveQueue.capacity()
                        + " outstanding = EndpointConfig.receiveQueueDepth)");
            }
            receiveQueue.add(wrId, WorkRequestType.RECEIVE, length, null);
            try {
                backend.postRecv(qp, receiveWrId, r.address() + offset, length, r.localKey());
            } catch (IOException e) {
                receiveQueue.removeLast();
                throw new RdmaException("ibv_post_recv failed: " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        VerbsMemoryRegion r = usable(region, offset, length, "postSend");
        post(VerbsConstants.WR_SEND, WorkRequestType.SEND, r, offset, length, 0, 0, 0, wrId, "postSend");
    }

    @Override
    public void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException {
        if (!settings.sendWithInvalidate()) {
            throw new RdmaException("postSendWithInvalidate: Send with Invalidate is off (capability "
                    + "sendWithInvalidate=false; enable smbdirect.rdma.verbs sendWithInvalidate, unverified without hardware)");
        }
        VerbsMemoryRegion r = usable(region, offset, length, "postSendWithInvalidate");
        post(VerbsConstants.WR_SEND_WITH_INV, WorkRequestType.SEND, r, offset, length, 0, 0, remoteToken, wrId,
                "postSendWithInvalidate");
    }

    @Override
    public void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        VerbsMemoryRegion r = usable(local, localOffset, length, "postRdmaWrite");
        post(VerbsConstants.WR_RDMA_WRITE, WorkRequestType.RDMA_WRITE, r, localOffset, length, remoteAddress,
                remoteToken, 0, wrId, "postRdmaWrite");
    }

    @Override
    public void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        VerbsMemoryRegion r = usable(local, localOffset, length, "postRdmaRead");
        post(VerbsConstants.WR_RDMA_READ, WorkRequestType.RDMA_READ, r, localOffset, length, remoteAddress,
                remoteToken, 0, wrId, "postRdmaRead");
    }

    private void post(int opcode, WorkRequestType type, VerbsMemoryRegion r, int offset, int length,
            long remoteAddress, int remoteToken, int invalidateToken, long wrId, String operation)
            throws RdmaException {
        synchronized (lock) {
            if (state != State.ESTABLISHED) {
                throw notPostable(operation);
            }
            if (sendQueue.isFull()) {
                throw new RdmaException(operation + ": send queue full (" + sendQueue.capacity()
                        + " outstanding = EndpointConfig.sendQueueDepth)");
            }
            sendQueue.add(wrId, type, length, null);
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
            try {
                backend.postSend(qp, request);
            } catch (IOException e) {
                sendQueue.removeLast();
                throw new RdmaException("ibv_post_send (" + operation + ") failed: " + e.getMessage(), e);
            }
        }
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
        VerbsMemoryRegion r = own(region, "postLocalInvalidate");
        boolean atHead;
        synchronized (lock) {
            if (state != State.ESTABLISHED) {
                throw notPostable("postLocalInvalidate");
            }
            if (sendQueue.isFull()) {
                throw new RdmaException("postLocalInvalidate: send queue full (" + sendQueue.capacity()
                        + " outstanding = EndpointConfig.sendQueueDepth)");
            }
            sendQueue.add(wrId, WorkRequestType.LOCAL_INVALIDATE, 0, r);
            atHead = sendQueue.size() == 1;
        }
        if (atHead) {
            group.execute(this::drainDeferredAndFinish);
        }
    }

    private RdmaException notPostable(String operation) {
        return new RdmaException(operation + ": endpoint is " + state
                + (cause != null ? " (" + cause + ": " + detail + ")" : ""));
    }

    // ------------------------------------------------------------------ completions (group thread)

    /** Group thread: completion {@code i} of {@code batch} belongs to this endpoint. */
    void onWorkCompletion(CompletionBatch batch, int i) {
        if (!establishedSeen && batch.status(i) == VerbsConstants.WC_SUCCESS) {
            // Data can arrive before RDMA_CM_EVENT_ESTABLISHED (the passive side's event comes with
            // the RTU, which may be late): a successful completion proves the connection is up
            // (IB_EVENT_COMM_EST), so onEstablished comes first; the late CM event is then ignored.
            onEstablished(null);
        }
        boolean receive = (batch.wrId(i) & RECEIVE_FLAG) != 0;
        if (!receive) {
            drainDeferred();
        }
        completeHead(receive, batch.status(i), batch.byteLength(i), batch.vendorError(i), batch.wcFlags(i),
                batch.immData(i));
        if (!receive) {
            drainDeferred();
        }
        maybeFinish();
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
        boolean startEnding = false;
        boolean queuePairLive = false;
        synchronized (lock) {
            if (state == State.CLOSED) {
                return false;
            }
            WorkQueue queue = receive ? receiveQueue : sendQueue;
            if (queue.isEmpty()) {
                if (wcStatus != VerbsConstants.WC_WR_FLUSH_ERR || LOG.isDebugEnabled()) {
                    LOG.warn("{}: a {} completion ({}) with no request outstanding", this, queue.name(),
                            StatusMapper.wcStatusName(wcStatus));
                }
                return false;
            }
            wrId = queue.headWrId();
            type = queue.headType();
            requested = queue.headLength();
            queue.removeHead();
            if (status != CompletionStatus.SUCCESS && status != CompletionStatus.FLUSHED
                    && state != State.DISCONNECTING && state != State.DISCONNECTED) {
                queuePairLive = state == State.CONNECTING || state == State.ACCEPTING || state == State.ESTABLISHED;
                state = State.DISCONNECTING;
                cause = StatusMapper.causeOfFailedCompletion(status);
                detail = type + " completed with " + StatusMapper.wcStatusName(wcStatus) + " (vendor_err 0x"
                        + Integer.toHexString(vendorError) + ")";
                startEnding = true;
            }
        }
        int byteLength = 0;
        boolean invalidated = false;
        int invalidatedToken = 0;
        if (status == CompletionStatus.SUCCESS) {
            if (type == WorkRequestType.RECEIVE) {
                byteLength = wcByteLength;
                if ((wcFlags & VerbsConstants.WC_WITH_INV) != 0) {
                    invalidated = true;
                    invalidatedToken = immData;
                    VerbsMemoryRegion region = remoteRegions.get(immData);
                    if (region != null) {
                        region.markRemotelyInvalidated();
                    }
                }
            } else if (type == WorkRequestType.RDMA_READ || type == WorkRequestType.RDMA_WRITE) {
                byteLength = requested;
            }
        }
        deliver(wrId, type, status, byteLength, invalidated, invalidatedToken, vendorError);
        if (startEnding) {
            afterEnding(queuePairLive);
        }
        return true;
    }

    private void deliver(long wrId, WorkRequestType type, CompletionStatus status, int byteLength,
            boolean invalidated, int invalidatedToken, int vendorError) {
        if (isClosed()) {
            return;
        }
        try {
            handler.onCompletion(completion.fill(wrId, type, status, byteLength, invalidated, invalidatedToken,
                    vendorError));
        } catch (RuntimeException e) {
            LOG.error("onCompletion handler of {} failed", this, e);
        }
    }

    private void drainDeferredAndFinish() {
        drainDeferred();
        maybeFinish();
    }

    /** Group thread: runs the local invalidations that reached the head of the send queue. */
    private void drainDeferred() {
        while (true) {
            VerbsMemoryRegion region;
            long wrId;
            synchronized (lock) {
                if (state == State.CLOSED || sendQueue.isEmpty() || sendQueue.headInvalidation() == null) {
                    return;
                }
                region = sendQueue.headInvalidation();
                wrId = sendQueue.headWrId();
                sendQueue.removeHead();
            }
            CompletionStatus status = CompletionStatus.SUCCESS;
            if (region.claimDeregistration()) {
                try {
                    backend.deregister(region.memory());
                } catch (IOException e) {
                    LOG.error("{}: local invalidate of {} (ibv_dereg_mr) failed: {}", this, region, e.getMessage());
                    status = CompletionStatus.GENERAL_ERROR;
                }
            }
            deliver(wrId, WorkRequestType.LOCAL_INVALIDATE, status, 0, false, 0, 0);
        }
    }

    @Override
    public String toString() {
        return "VerbsEndpoint[" + (passive ? "passive" : "active") + " key=0x" + Integer.toHexString(key) + " "
                + localAddress + " -> " + peerAddress + "]";
    }
}
