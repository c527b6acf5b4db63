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

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;

/**
 * One iWARP queue pair on one TCP connection: the SPI endpoint, its state, and the I/O dispatch of
 * RDMA mode. Each concern of the endpoint is a class of its own, created with it:
 * <ul>
 * <li>{@link ActiveSetup} (connect) or {@link PassiveSetup} (accept): the MPA connection setup;
 * each owns the channel until it calls {@link #establish};</li>
 * <li>{@link RegionTable}: the registrations; {@link SendAndReceiveQueues}: posting, flushing and the
 * delivery of completions in post order;</li>
 * <li>{@link Transmitter} and {@link Receiver}, created by {@link #establish}: RDMA mode;</li>
 * <li>{@link Termination}: the Terminates; {@link Invalidation}: invalidation and the check of a
 * request's own region;</li>
 * <li>{@link IwarpTeardown}: the end, once, for any cause.</li>
 * </ul>
 *
 * <p>Threading: SPI methods may be called from any thread. {@code lock} guards every change of the
 * state (here and in {@link IwarpTeardown}) and a post's check of the state together with the filling of
 * its ring slot ({@link SendAndReceiveQueues}), so no post lands after the end has flushed the queues; the
 * state is volatile, so the I/O thread reads it without the lock. While it is held no handler or
 * other consumer code runs, and the only other monitor taken is the {@link PassiveSetup}'s, by
 * {@code accept} (this lock first, never the reverse). Posting fills a pooled work request under
 * the lock and hands the endpoint to its {@link IoLoop} without allocating. Everything else runs on
 * the loop's thread, which is also the only thread that calls the handler, never while holding the
 * lock: callbacks of one endpoint are never concurrent, and a callback may post (the post is picked
 * up after the callback returns). Completions leave each queue in post order, each exactly once;
 * when the connection ends every outstanding request is completed (FLUSHED unless it failed) before
 * {@code onDisconnected}, which is the last callback.
 */
final class IwarpEndpoint implements RdmaEndpoint, IoHandler {

    private static final Logger LOG = LoggerFactory.getLogger(IwarpEndpoint.class);

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

    final IwarpDevice provider;
    final IoLoop loop;
    final IwarpSettings settings;
    final RegionTable regions;
    final SendAndReceiveQueues queues;
    final Termination termination;
    final Invalidation invalidation;
    private final IwarpTeardown teardown;
    final AtomicBoolean scheduled = new AtomicBoolean();
    /** The loop's work list link (written before the list's CAS publishes it). */
    IwarpEndpoint nextScheduled;

    private final RdmaEndpointHandler handler;
    private final boolean passive;
    /** The responder's MPA setup (passive), else null. */
    private final PassiveSetup setup;
    /** The initiator's MPA setup (active), else null. */
    private final ActiveSetup active;
    private final Object lock = new Object();

    private volatile State state;
    private volatile InetSocketAddress localAddress;
    private volatile InetSocketAddress peerAddress;
    private volatile int inboundReadDepth;
    private volatile int outboundReadDepth;
    /** {@link #describeConnection()}, once in RDMA mode. */
    private volatile String description;

    // I/O thread
    private Channel channel;
    private Transmitter tx;
    private Receiver rx;
    private boolean ended;

    /** An active endpoint. */
    IwarpEndpoint(IwarpDevice provider, IoLoop loop, EndpointSettings config, RdmaEndpointHandler handler) {
        this(provider, loop, config, handler, null);
    }

    /** A passive endpoint created from {@code setup}'s request (on the request's loop). */
    IwarpEndpoint(IwarpDevice provider, IoLoop loop, EndpointSettings config, RdmaEndpointHandler handler,
            PassiveSetup setup) {
        this.provider = provider;
        this.loop = loop;
        this.settings = provider.settings();
        this.handler = Objects.requireNonNull(handler, "handler");
        this.setup = setup;
        this.passive = setup != null;
        this.active = passive ? null : new ActiveSetup(this);
        this.regions = new RegionTable(this, provider.random());
        this.queues = new SendAndReceiveQueues(this, lock, config, regions, this.handler);
        this.termination = new Termination(this);
        this.invalidation = new Invalidation(this, regions);
        this.teardown = new IwarpTeardown(this, lock, this.handler);
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
        tx = new Transmitter(this, channel.socket, crc, fpduSize, queues.sq, inbound, outbound);
        rx = new Receiver(this, channel.socket, crc, queues.rq, regions, inbound, outbound);
        synchronized (lock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.ESTABLISHED;
            inboundReadDepth = ird;
            outboundReadDepth = ord;
        }
        description = Words.connection(crc, fpduSize, settings.maxFpduSize() == IwarpSettings.FPDU_SIZE_OF_PATH, ird,
                ord);
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

    @Override
    public String describeConnection() {
        return description;
    }

    // ------------------------------------------------------------------ memory and posting

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        return regions.register(buffer, access);
    }

    @Override
    public void deregister(MemoryRegion region) throws RdmaException {
        regions.deregister(region);
    }

    @Override
    public void postReceive(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        queues.postReceive(region, offset, length, wrId);
    }

    @Override
    public void postSend(MemoryRegion region, int offset, int length, long wrId) throws RdmaException {
        queues.postSend(region, offset, length, wrId);
    }

    @Override
    public void postSendWithInvalidate(MemoryRegion region, int offset, int length, int remoteToken, long wrId)
            throws RdmaException {
        queues.postSendWithInvalidate(region, offset, length, remoteToken, wrId);
    }

    @Override
    public void postRdmaWrite(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        queues.postRdmaWrite(local, localOffset, length, remoteAddress, remoteToken, wrId);
    }

    @Override
    public void postRdmaRead(MemoryRegion local, int localOffset, int length, long remoteAddress, int remoteToken,
            long wrId) throws RdmaException {
        queues.postRdmaRead(local, localOffset, length, remoteAddress, remoteToken, wrId);
    }

    @Override
    public void postLocalInvalidate(MemoryRegion region, long wrId) throws RdmaException {
        queues.postLocalInvalidate(region, wrId);
    }

    @Override
    public void disconnect() {
        teardown.disconnect();
    }

    @Override
    public void close() {
        teardown.close();
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
        teardown.shutdown(detail);
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
                    if (queues.hasReady()) {
                        queues.deliver();
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
        if (queues.hasReady()) {
            queues.deliver();
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
        queues.completionsReady();
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
     * buffer, bytes read through the staging buffer, bytes read, the largest FPDU of the peer};
     * zeros before RDMA mode. Read on the I/O thread (bounded wait), for tests and diagnostics.
     */
    long[] receiveCounters() {
        long[] out = new long[6];
        loop.runAndWait(() -> {
            if (rx != null) {
                out[0] = rx.fpdusReceived();
                out[1] = rx.socketReads();
                out[2] = rx.spilledBytes();
                out[3] = rx.stagedBytes();
                out[4] = rx.bytesRead();
                out[5] = rx.peerFpdu();
            }
        }, 5_000);
        return out;
    }

    /** Tests: the FPDU slots of the transmitter's batch (0 before RDMA mode), read on the I/O thread. */
    int transmitBatchSlots() {
        int[] out = new int[1];
        loop.runAndWait(() -> {
            if (tx != null) {
                out[0] = tx.batchSlots();
            }
        }, 5_000);
        return out[0];
    }

    /**
     * Tests and measurements: the receiver stages peer FPDUs of at most {@code limit} bytes from now
     * on (0: never; see {@code Receiver.staging}). False before RDMA mode.
     */
    boolean receiveStagingLimit(int limit) {
        boolean[] set = new boolean[1];
        loop.runAndWait(() -> {
            if (rx != null) {
                rx.stagingLimit(limit);
                set[0] = true;
            }
        }, 5_000);
        return set[0];
    }

    // ------------------------------------------------------------------ the end

    /** I/O thread: the connection ends (or never comes) with {@code cause}; see {@link IwarpTeardown#end}. */
    void end(DisconnectCause cause, String detail, ByteBuffer terminate, ByteBuffer rejectData) {
        teardown.end(cause, detail, terminate, rejectData);
    }

    /** I/O thread: the endpoint ends now (nothing is received or sent after); false when it had ended already. */
    boolean markEnded() {
        if (ended) {
            return false;
        }
        ended = true;
        return true;
    }

    /** The lock held: the endpoint's state becomes {@code next}. */
    void state(State next) {
        state = next;
    }

    /** I/O thread: the connection ends: the setup's timers stop. */
    void stopSetup() {
        if (active != null) {
            active.stop();
        }
    }

    Channel channel() {
        return channel;
    }

    PassiveSetup passiveSetup() {
        return setup;
    }

    @Override
    public String toString() {
        return "IwarpEndpoint[" + (passive ? "passive " : "active ") + localAddress + " -> " + peerAddress + ", "
                + state + "]";
    }
}
