package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

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
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;
import smbdirect.rdma.iwarp.internal.wire.Rdmap;

/**
 * One iWARP queue pair on one TCP connection: the SPI endpoint, its state, and in RDMA mode its
 * {@link Transmitter} and {@link Receiver}. The MPA connection setup before RDMA mode is
 * {@link ActiveSetup}'s (connect) or {@link PassiveSetup}'s (accept); each owns the channel until it
 * calls {@link #establish}.
 *
 * <p>Threading: SPI methods may be called from any thread. Posting fills a pooled work request
 * under {@code lock} and hands the endpoint to its {@link IoLoop} without allocating. Everything
 * else runs on the loop's thread, which is also the only thread that calls the handler, never while
 * holding {@code lock}: callbacks of one endpoint are never concurrent, and a callback may post (the
 * post is picked up after the callback returns). Completions leave each queue in post order, each
 * exactly once; when the connection ends every outstanding request is completed (FLUSHED unless it
 * failed) before {@code onDisconnected}, which is the last callback.
 */
final class EndpointImpl implements RdmaEndpoint, IoHandler {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointImpl.class);

    enum State {
        /** Active, created; receives may be posted. */
        IDLE,
        /** Active: TCP connect, MPA Request, waiting for the Reply. */
        CONNECTING,
        /** Passive: created from a request that is neither accepted nor rejected. */
        REQUESTED,
        /** Passive: the request was rejected; the endpoint gets no callback. */
        REJECTED,
        /** Passive: accept() called, the Reply is being written. */
        ACCEPTING,
        /** RDMA mode. */
        ESTABLISHED,
        /** Ended: everything flushed, onDisconnected delivered (or never to be). */
        ERROR,
        /** close() was called: no callbacks, nothing usable. */
        CLOSED
    }

    final ProviderImpl provider;
    final IoLoop loop;
    final IwarpSettings settings;
    final WorkRing<SendWr> sq;
    final WorkRing<RecvWr> rq;
    final RegionTable regions;
    final Termination termination;
    final Invalidation invalidation;
    final AtomicBoolean scheduled = new AtomicBoolean();
    /** The loop's work list link (written before the list's CAS publishes it). */
    EndpointImpl nextScheduled;

    private final RdmaEndpointHandler handler;
    private final boolean passive;
    /** The responder's MPA setup (passive), else null. */
    private final PassiveSetup setup;
    /** The initiator's MPA setup (active), else null. */
    private final ActiveSetup active;
    private final Object lock = new Object();
    private final WorkCompletionImpl completion = new WorkCompletionImpl();
    private final ByteBuffer empty = ByteBuffer.allocate(0).asReadOnlyBuffer();

    private volatile State state;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress peerAddress;
    private volatile int inboundReadDepth;
    private volatile int outboundReadDepth;
    /** Guarded by lock. */
    private boolean disconnectRequested;

    // I/O thread
    private Channel channel;
    private Transmitter tx;
    private Receiver rx;
    private boolean ended;
    private boolean completionsReady;

    /** An active endpoint. */
    EndpointImpl(ProviderImpl provider, IoLoop loop, EndpointConfig config, RdmaEndpointHandler handler) {
        this(provider, loop, config, handler, null);
    }

    /** A passive endpoint created from {@code setup}'s request (on the request's loop). */
    EndpointImpl(ProviderImpl provider, IoLoop loop, EndpointConfig config, RdmaEndpointHandler handler,
            PassiveSetup setup) {
        this.provider = provider;
        this.loop = loop;
        this.settings = provider.settings();
        this.handler = Objects.requireNonNull(handler, "handler");
        this.setup = setup;
        this.passive = setup != null;
        this.active = passive ? null : new ActiveSetup(this);
        this.sq = new WorkRing<>(config.sendQueueDepth(), SendWr::new);
        this.rq = new WorkRing<>(config.receiveQueueDepth(), RecvWr::new);
        this.regions = new RegionTable(provider.random());
        this.termination = new Termination(this);
        this.invalidation = new Invalidation(this, regions);
        this.state = passive ? State.REQUESTED : State.IDLE;
        if (passive) {
            this.localAddress = setup.localAddress();
            this.peerAddress = setup.peerAddress();
        }
    }

    State state() {
        return state;
    }

    // ------------------------------------------------------------------ connection management

    @Override
    public void connect(InetSocketAddress peer, ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(parameters, "parameters");
        provider.checkOpen("connect");
        if (peer.isUnresolved()) {
            throw new RdmaException("connect: " + peer + " is not resolved");
        }
        ActiveSetup.checkPrivateData(settings, parameters.privateData());
        synchronized (lock) {
            if (passive) {
                throw new RdmaException("connect: the endpoint was created from a connection request; use accept");
            }
            if (state != State.IDLE) {
                throw new RdmaException("connect: the endpoint is " + state + ", not IDLE");
            }
            if (!provider.tryOpenConnection()) {
                throw new RdmaException("connect: the provider holds maxConnections = "
                        + settings.maxConnections() + " connections");
            }
            state = State.CONNECTING;
            peerAddress = peer;
            active.request(parameters);
        }
        loop.execute(active::start);
    }

    @Override
    public void accept(ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(parameters, "parameters");
        provider.checkOpen("accept");
        synchronized (lock) {
            if (!passive) {
                throw new RdmaException("accept: the endpoint is active (created by the provider); use connect");
            }
            setup.checkPrivateData(parameters.privateData());
            if (state != State.REQUESTED) {
                throw new RdmaException("accept: the endpoint is " + state
                        + (state == State.REJECTED ? " (its request was rejected)" : ""));
            }
            if (!setup.decideAccept()) {
                state = State.REJECTED;
                throw new RdmaException("accept: the connection request was rejected");
            }
            state = State.ACCEPTING;
            setup.accepted(parameters);
        }
        loop.execute(this::sendReply);
    }

    /** Passive, loop task after {@code accept}: the setup writes the Reply, then calls {@link #establish}. */
    private void sendReply() {
        if (state != State.ACCEPTING || ended) {
            return;
        }
        channel = setup.channel();
        setup.sendReply(this);
    }

    /** Active, I/O thread: the setup's channel, from its creation on (so that {@link #end} closes it). */
    void attach(Channel c) {
        channel = c;
    }

    /** Active, I/O thread: the TCP connection is up. */
    void connectedFrom(InetSocketAddress local) {
        localAddress = local;
    }

    /**
     * I/O thread, called by the setup once the MPA exchange agreed and the channel is ours: enters
     * RDMA mode (RFC 5044 §7.1.2): the initiator may send at once, the responder after the first FPDU.
     */
    void establish(boolean crc, int ird, int ord, RtrMode rtr, ByteBuffer peerData) {
        termination.rdmaMode(crc);
        InboundReads inbound = new InboundReads(ird);
        OutboundReads outbound = new OutboundReads(rtr == RtrMode.READ ? Math.max(1, ord) : ord);
        int fpduSize = PathFpdu.resolve(settings.maxFpduSize(), channel.socket);
        tx = new Transmitter(this, channel.socket, crc, fpduSize, sq, inbound, outbound);
        rx = new Receiver(this, channel.socket, crc, rq, regions, inbound, outbound);
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.ESTABLISHED;
            inboundReadDepth = ird;
            outboundReadDepth = ord;
        }
        try {
            if (localAddress == null || !passive) {
                localAddress = (InetSocketAddress) channel.socket.getLocalAddress();
            }
        } catch (IOException e) {
            LOG.debug("{}: local address unavailable: {}", this, e.toString());
        }
        channel.interest(SelectionKey.OP_READ);
        if (!passive) {
            active.established(rtr);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: RDMA mode, CRC {}, FPDUs up to {} B, IRD {}, ORD {}, RTR {}", this, crc ? "on" : "off",
                    fpduSize, ird, ord, rtr);
        }
        if (state != State.CLOSED) {
            try {
                handler.onEstablished(peerData);
            } catch (RuntimeException e) {
                LOG.error("onEstablished handler of {} failed", this, e);
            }
        }
        runScheduled();
    }

    Transmitter transmitter() {
        return tx;
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
        return inboundReadDepth;
    }

    @Override
    public int outboundReadDepth() {
        return outboundReadDepth;
    }

    @Override
    public RdmaCapabilities capabilities() {
        return provider.capabilities();
    }

    // ------------------------------------------------------------------ memory

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(access, "access");
        provider.checkOpen("register");
        if (!buffer.isDirect()) {
            throw new RdmaException("register: the buffer must be direct (the provider reads and writes it in place): "
                    + buffer);
        }
        if (!buffer.hasRemaining()) {
            throw new RdmaException("register: nothing to register (position == limit == " + buffer.position() + ")");
        }
        boolean localWrite = access.contains(MemoryAccess.LOCAL_WRITE);
        if (access.contains(MemoryAccess.REMOTE_WRITE) && !localWrite) {
            throw new RdmaException("register: access " + access + ": REMOTE_WRITE requires LOCAL_WRITE");
        }
        if (buffer.isReadOnly() && (localWrite || access.contains(MemoryAccess.REMOTE_WRITE))) {
            throw new RdmaException("register: a read-only buffer cannot be registered with " + access);
        }
        if (state == State.CLOSED) {
            throw new RdmaException("register: the endpoint is closed");
        }
        RegionImpl r = regions.register(this, buffer, access);
        if (state == State.CLOSED) {
            regions.remove(r);
            r.registered = false;
            r.valid = false;
            throw new RdmaException("register: the endpoint is closed");
        }
        return r;
    }

    @Override
    public void deregister(MemoryRegion region) throws RdmaException {
        RegionImpl r = own(region, "deregister");
        if (state == State.CLOSED) {
            return;
        }
        if (!regions.remove(r)) {
            throw new RdmaException("deregister: " + r + " is already deregistered");
        }
        r.registered = false;
        r.valid = false;
    }

    private RegionImpl own(MemoryRegion region, String operation) throws RdmaException {
        Objects.requireNonNull(region, "region");
        if (!(region instanceof RegionImpl r) || r.owner != this) {
            throw new RdmaException(operation + ": " + region + " is not registered on this endpoint");
        }
        return r;
    }

    private RegionImpl usable(MemoryRegion region, int offset, int length, String operation) throws RdmaException {
        RegionImpl r = own(region, operation);
        if (!r.registered) {
            throw new RdmaException(operation + ": " + r + " is deregistered");
        }
        if (offset < 0 || length < 0 || (long) offset + length > r.length) {
            throw new RdmaException(operation + ": offset " + offset + " + length " + length
                    + " is outside the region of " + r.length + " bytes");
        }
        return r;
    }

    // ------------------------------------------------------------------ posting

    @Override
    public void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        RegionImpl r = usable(region, offset, length, "postReceive");
        if (!r.localWrite) {
            throw new RdmaException("postReceive: " + r + " lacks LOCAL_WRITE");
        }
        synchronized (lock) {
            State s = state;
            if (s == State.ERROR || s == State.CLOSED || s == State.REJECTED) {
                throw notPostable("postReceive");
            }
            if (rq.isFull()) {
                throw new RdmaException("postReceive: the receive queue is full (" + rq.depth
                        + " = EndpointConfig.receiveQueueDepth)");
            }
            RecvWr w = rq.next();
            w.region = r;
            w.offset = offset;
            w.length = length;
            w.wrId = wrId;
            rq.publish();
        }
    }

    @Override
    public void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        RegionImpl r = usable(region, offset, length, "postSend");
        post(WorkRequestType.SEND, Rdmap.SEND, r, offset, length, 0, 0, 0, wrId, "postSend");
    }

    @Override
    public void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException {
        RegionImpl r = usable(region, offset, length, "postSendWithInvalidate");
        post(WorkRequestType.SEND, Rdmap.SEND_INVALIDATE, r, offset, length, 0, 0, remoteToken, wrId,
                "postSendWithInvalidate");
    }

    @Override
    public void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        RegionImpl r = usable(local, localOffset, length, "postRdmaWrite");
        post(WorkRequestType.RDMA_WRITE, Rdmap.RDMA_WRITE, r, localOffset, length, remoteAddress, remoteToken, 0,
                wrId, "postRdmaWrite");
    }

    @Override
    public void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        RegionImpl r = usable(local, localOffset, length, "postRdmaRead");
        if (!r.localWrite) {
            throw new RdmaException("postRdmaRead: the sink " + r + " lacks LOCAL_WRITE");
        }
        post(WorkRequestType.RDMA_READ, Rdmap.READ_REQUEST, r, localOffset, length, remoteAddress, remoteToken, 0,
                wrId, "postRdmaRead");
    }

    @Override
    public void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException {
        RegionImpl r = own(region, "postLocalInvalidate");
        if (!r.registered) {
            throw new RdmaException("postLocalInvalidate: " + r + " is deregistered");
        }
        post(WorkRequestType.LOCAL_INVALIDATE, -1, r, 0, 0, 0, 0, 0, wrId, "postLocalInvalidate");
    }

    private void post(WorkRequestType type, int opcode, RegionImpl r, int offset, int length, long remoteAddress,
            int remoteToken, int invalidateToken, long wrId, String operation) throws RdmaException {
        synchronized (lock) {
            if (state != State.ESTABLISHED) {
                throw notPostable(operation);
            }
            if (type == WorkRequestType.RDMA_READ && outboundReadDepth == 0) {
                throw new RdmaException(operation + ": the negotiated ORD is 0 (the peer grants no RDMA Read)");
            }
            if (sq.isFull()) {
                throw new RdmaException(operation + ": the send queue is full (" + sq.depth
                        + " = EndpointConfig.sendQueueDepth)");
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
        loop.schedule(this);
    }

    private RdmaException notPostable(String operation) {
        return new RdmaException(operation + ": the endpoint is " + state);
    }

    @Override
    public void disconnect() {
        synchronized (lock) {
            State s = state;
            if (disconnectRequested || s == State.IDLE || s == State.REQUESTED || s == State.REJECTED
                    || s == State.ERROR || s == State.CLOSED) {
                return;
            }
            disconnectRequested = true;
        }
        loop.execute(() -> end(DisconnectCause.LOCAL, "disconnect() called", null, null));
    }

    @Override
    public void close() {
        State previous;
        synchronized (lock) {
            previous = state;
            if (previous == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        for (RegionImpl r : regions.removeAll()) {
            r.registered = false;
            r.valid = false;
        }
        provider.forget(this);
        if (previous == State.REQUESTED) {
            setup.releaseByClose();
        }
        loop.execute(this::closeOnLoop);
    }

    private void closeOnLoop() {
        if (active != null) {
            active.stop();
        }
        if (ended) {
            return;
        }
        ended = true;
        closeChannel(null);
    }

    /** The request this passive endpoint was created from was rejected: no callback, accept refused. */
    void requestRejected() {
        synchronized (lock) {
            if (state == State.REQUESTED) {
                state = State.REJECTED;
            }
        }
    }

    /** Provider shutdown: ends the endpoint with PROVIDER_SHUTDOWN (loop thread). */
    void shutdown(String detail) {
        State s = state;
        if (s == State.REQUESTED || s == State.REJECTED) {
            ended = true;
            return; // the request's channel belongs to the setup
        }
        end(DisconnectCause.PROVIDER_SHUTDOWN, detail, null, null);
    }

    // ------------------------------------------------------------------ I/O thread

    @Override
    public void onReady(SelectionKey key, int readyOps) {
        try {
            switch (state) {
                case ESTABLISHED -> {
                    if ((readyOps & SelectionKey.OP_READ) != 0) {
                        rx.onReadable();
                    }
                    if (!ended && (readyOps & SelectionKey.OP_WRITE) != 0) {
                        tx.pump();
                    }
                    if (completionsReady) {
                        deliverCompletions();
                    }
                }
                default -> channel.interest(0);
            }
        } catch (IOException e) {
            ioFailure(e);
        }
    }

    /** An internal error on the I/O thread (the setups report theirs here once the endpoint exists). */
    @Override
    public void onCrash(Throwable failure) {
        LOG.error("{}: internal error; ending the connection", this, failure);
        end(DisconnectCause.QP_ERROR, "internal error of the iWARP provider: " + failure,
                state == State.ESTABLISHED ? termination.localCatastrophic() : null, null);
    }

    /** I/O thread: new work requests, or the transmitter may continue (ORD freed, IRD work, gate opened). */
    void runScheduled() {
        if (state == State.ESTABLISHED && !ended) {
            try {
                tx.pump();
            } catch (IOException e) {
                ioFailure(e);
            }
        }
        if (completionsReady) {
            deliverCompletions();
        }
    }

    /** I/O thread: an I/O call failed (a setup's own failures of the TCP connect are ended by the setup). */
    void ioFailure(IOException e) {
        State s = state;
        if (s == State.CONNECTING || s == State.ACCEPTING) {
            end(DisconnectCause.CONNECT_ERROR, "connection setup with " + peerAddress + " failed: " + e, null, null);
        } else {
            String text = String.valueOf(e.getMessage());
            DisconnectCause cause = text.contains("timed out") || e instanceof NoRouteToHostException
                    ? DisconnectCause.PEER_LOST : DisconnectCause.PEER;
            end(cause, "the TCP connection failed: " + e, null, null);
        }
    }

    /** Receiver: the peer's FIN. */
    void peerClosed(boolean midFpdu) {
        end(DisconnectCause.PEER, midFpdu ? "the peer closed the TCP connection in the middle of an FPDU"
                : "the peer closed the connection", null, null);
    }

    boolean isReceiving() {
        return !ended;
    }

    /** Transmitter and receiver: completions are waiting to be delivered. */
    void completionsReady() {
        completionsReady = true;
    }

    /** Receiver: the transmitter has work (a Read Request arrived, an ORD slot was freed). */
    void kickTransmit() {
        loop.schedule(this);
    }

    void wantWrite(boolean write) {
        channel.interest(write ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    /** Receiver: the first FPDU of the initiator arrived, so the responder may send (RFC 5044 §7.1.2). */
    void firstFpduReceived() {
        if (passive) {
            tx.openGate();
            loop.schedule(this);
        }
    }

    /**
     * The receive side's counters: {FPDUs received, socket reads, bytes sent through the spill
     * buffer}; zeros before RDMA mode. Read on the I/O thread (bounded wait), for tests and
     * diagnostics.
     */
    long[] receiveCounters() {
        long[] out = new long[3];
        loop.runAndWait(() -> {
            if (rx != null) {
                out[0] = rx.fpdusReceived();
                out[1] = rx.socketReads();
                out[2] = rx.spilledBytes();
            }
        }, 5_000);
        return out;
    }

    // ------------------------------------------------------------------ completions and the end

    /** Delivers the completions at the head of both queues in post order (I/O thread, no lock held). */
    private void deliverCompletions() {
        completionsReady = false;
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
        if (state == State.CLOSED) {
            return;
        }
        try {
            handler.onCompletion(completion.fill(wrId, type, status, bytes, invalidated, stag));
        } catch (RuntimeException e) {
            LOG.error("onCompletion handler of {} failed", this, e);
        }
    }

    /**
     * I/O thread: the connection ends (or never comes) with {@code cause}; the first end wins. Sends
     * {@code terminate} after the rest of a partly written FPDU, closes the TCP connection gracefully,
     * completes every outstanding request (FLUSHED unless it already failed), then calls
     * {@code onDisconnected} once. An endpoint created from a request that was never accepted gets
     * no callback.
     */
    void end(DisconnectCause cause, String detail, ByteBuffer terminate, ByteBuffer rejectData) {
        if (ended) {
            return;
        }
        ended = true;
        State previous;
        synchronized (lock) {
            previous = state;
            if (previous != State.CLOSED) {
                state = State.ERROR;
            }
        }
        if (active != null) {
            active.stop();
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} ends: {}: {}", this, cause, detail);
        }
        closeChannel(terminate);
        if (previous == State.CLOSED || previous == State.REQUESTED || previous == State.REJECTED) {
            return;
        }
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
        deliverCompletions();
        if (state != State.CLOSED) {
            try {
                handler.onDisconnected(cause, detail, rejectData == null ? empty : rejectData);
            } catch (RuntimeException e) {
                LOG.error("onDisconnected handler of {} failed", this, e);
            }
        }
    }

    private void closeChannel(ByteBuffer terminate) {
        if (channel == null) {
            return;
        }
        if (tx != null) {
            int to = tx.abort(terminate);
            channel.closeGracefully(tx.pendingBuffers(), tx.pendingFrom(), to);
        } else if (terminate != null) {
            channel.closeGracefully(new ByteBuffer[] {terminate}, 0, 1);
        } else {
            channel.closeGracefully(null, 0, 0);
        }
    }

    @Override
    public String toString() {
        return "IwarpEndpoint[" + (passive ? "passive " : "active ") + localAddress + " -> " + peerAddress + ", "
                + state + "]";
    }
}
