package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ConnectionParameters;
import smbdirect.api.RdmaCompletion;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointConfig;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.impl.wire.IrdOrdHeader;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.SmbdWire;
import smbdirect.impl.wire.Violation;

/**
 * One SMB Direct connection in either role: the [MS-SMBD] 3.1.1.1 ADM plus the state machine of
 * 3.1.4.1, 3.1.5.x, 3.1.6 and 3.1.7.
 *
 * <p><b>Threading.</b> Thread-safe as {@link SmbDirectConnection} requires: every public method hands
 * its work to the connection's {@link SerialExecutor}; all ADM state changes there, one task at a
 * time. Provider callbacks run inline when the serial context is idle (no copy, no allocation) and
 * are copied and queued otherwise (re-entrant inline completions). Nothing blocks.
 *
 * <p><b>Buffers.</b> An initial region holds the initial 512-byte receive (and, on the passive side,
 * room for a negotiate failure response); it is deregistered as soon as negotiation succeeded. The
 * send buffers ({@link SendBuffers}: slots of MaxSendSize) start with a few slots, registered before
 * the Negotiate Request (active) or Response (passive) goes out from one of them, and grow by
 * registered chunks when a send waits for a slot, up to the usable send credits + 1. After
 * negotiation one receive region ((ReceiveCreditMax + 1) x MaxReceiveSize) is registered once and
 * sliced. A message sent is copied once into send slots; a single-fragment message received is
 * handed up as a view of its receive slot.
 *
 * <p><b>DTO snapshot.</b> {@link #getConnectionDTO()} reads the serial-context fields without
 * synchronisation: each value is one the connection held, the set is not atomic.
 */
final class Connection implements SmbDirectConnection, RdmaEndpointHandler {

    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    private static final long KIND_SHIFT = 56;
    private static final long INDEX_MASK = (1L << KIND_SHIFT) - 1;
    static final int K_INIT_RECV = 1;
    static final int K_NEG_SEND = 2;
    static final int K_RECV = 3;
    static final int K_SEND = 4;
    static final int K_RDMA = 5;
    static final int K_INVALIDATE = 6;

    /** The initial region of the passive side: the initial receive and a negotiate failure response. */
    private static final int INITIAL_REGION = 1024;
    private static final int NEG_SEND_OFFSET = 512;
    /** How long a closing connection waits for the provider's disconnect report before releasing. */
    static final long CLOSE_DEADLINE_NANOS = 30_000_000_000L;

    /** Life-cycle states (ConnectionDTO.state). */
    enum State { CONNECTING, NEGOTIATING, ESTABLISHED, CLOSING, CLOSED }

    final SmbDirectEngine engine;
    final long id;
    final boolean initiator;
    final EngineListener listener;
    final SerialExecutor serial;
    private final ProviderEvents providerEvents;
    private final ProviderEvents.Sink providerSink = new ProviderEvents.Sink() {
        @Override
        public void completion(long wrId, WorkRequestType type, CompletionStatus status, int length,
                boolean invalidated, int token, int vendorError) {
            handleCompletion(wrId, type, status, length, invalidated, token, vendorError);
        }

        @Override
        public void established() {
            Connection.this.established(establishedData);
        }

        @Override
        public void disconnected() {
            endpointGone(goneCause, goneDetail);
        }
    };
    /** The peer's private data of onEstablished, kept until the serial context takes the event. */
    private ByteBuffer establishedData;
    /** The cause of onDisconnected, kept until the serial context takes the event. */
    private DisconnectCause goneCause;
    private String goneDetail;
    private final TransportSettings initial;
    private final long createdMillis;
    private final long budget;

    // ---- ADM (3.1.1.1) ----
    Role role;
    int protocol;
    int maxSendSize;
    int maxReceiveSize;
    long maxFragmentedSendSize;
    int maxFragmentedRecvSize;
    int maxReadWriteSize;
    final CreditManager credits;

    // ---- state ----
    volatile State state = State.CONNECTING;
    private RdmaEndpoint endpoint;
    private boolean endpointStarted;
    private RdmaConnectRequest request;
    private ConnectionHandler handler;
    private CompletableFuture<SmbDirectConnection> connectFuture;
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    volatile CloseReason closeReason;
    private CloseReason pendingClose;
    private boolean provisionalReason;
    private State closedFrom;
    private InetSocketAddress peerAddress;
    private InetSocketAddress localAddress;
    private RdmaCapabilities caps;
    int inboundReadDepth;
    int outboundReadDepth;

    // ---- buffers ----
    private ByteBuffer initBuf;
    private MemoryRegion initRegion;

    private long closedMillis;

    // ---- the concerns ----
    final Timers timers;
    final MemoryRegistrations registrations;
    final RdmaOperations rdma;
    final ReceivePath receivePath;
    final SendPath sendPath;
    private final Runnable pumpTask;

    Connection(SmbDirectEngine engine, long id, boolean initiator, EngineListener listener, TransportSettings settings,
            long budget) {
        this.engine = engine;
        this.id = id;
        this.initiator = initiator;
        this.listener = listener;
        this.initial = settings;
        this.budget = budget;
        this.serial = new SerialExecutor(serialRingCapacity(settings));
        this.providerEvents = new ProviderEvents(serial, providerSink);
        this.createdMillis = engine.epochMillis();
        // R-3.1.4.1-04..09 / R-3.1.7.2-07..10: initial values
        this.role = initiator ? Role.ACTIVE : Role.PASSIVE;
        this.maxSendSize = settings.maxSendSize();
        this.maxReceiveSize = settings.maxReceiveSize();
        this.maxFragmentedRecvSize = settings.maxFragmentedRecvSize();
        this.maxReadWriteSize = initiator ? 0 : settings.maxReadWriteSize();
        this.credits = new CreditManager(settings.sendCreditTarget(), settings.receiveCreditMax());
        this.timers = new Timers(this, engine.scheduler());
        this.registrations = new MemoryRegistrations(this);
        this.rdma = new RdmaOperations(this, registrations);
        this.receivePath = new ReceivePath(this, credits, timers, registrations);
        this.sendPath = new SendPath(this, credits, timers, receivePath);
        receivePath.sendPath(sendPath);
        this.pumpTask = sendPath::pump;
    }

    long budget() {
        return budget;
    }

    /**
     * Ring slots of the serial context: the work requests that can complete in one burst (the send
     * and receive queues as {@link #endpointConfig()} sizes them at most, before any device limit)
     * plus room for timers, provider events and the upper layer's tasks, as a power of two within
     * [64, {@link SerialExecutor#DEFAULT_CAPACITY}]. A connection with few credits does not carry the
     * ring of one with 255.
     */
    static int serialRingCapacity(TransportSettings settings) {
        long sendQueue = Math.min(settings.sendCreditTarget(), 255) + 1L + 1 + settings.outboundReadDepth()
                + RdmaOperations.WRITE_BUDGET + MemoryRegistrations.INVALIDATE_BUDGET;
        long receiveQueue = settings.receiveCreditMax() + 2L;
        long work = sendQueue + receiveQueue + 16;
        if (work >= SerialExecutor.DEFAULT_CAPACITY) {
            return SerialExecutor.DEFAULT_CAPACITY;
        }
        return Math.max(64, Integer.highestOneBit((int) work - 1) << 1);
    }

    // =====================================================================================
    // Establishment, active side (3.1.4.1)
    // =====================================================================================

    void startActive(InetSocketAddress peer, Duration timeout, ConnectionHandler connectionHandler,
            CompletableFuture<SmbDirectConnection> future) {
        this.peerAddress = peer;
        this.handler = connectionHandler;
        this.connectFuture = future;
        serial.execute(() -> {
            // R-3.1.4.1-10: the Negotiation Timer covers connect and negotiation
            timers.startNegotiationTimer(timeout.toNanos());
            try {
                caps = engine.provider().capabilities();
                endpoint = engine.provider().createEndpoint(endpointConfig(), this); // R-3.1.4.1-03
                caps = endpoint.capabilities();
                setUpInitialRegion();
                // the Negotiate Request goes out from a send slot: the initial region is then free
                // as soon as the response arrived in it
                sendPath.setUpBuffers(maxSendSize); // MaxSendSize as it stands: negotiation only lowers it
                // R-3.1.4.1-11: one receive of at least 512 bytes before connecting
                endpoint.postReceive(initRegion, 0, SmbdWire.INITIAL_RECEIVE_SIZE, wr(K_INIT_RECV, 0));
                inboundReadDepth = Math.min(initial.inboundReadDepth(), caps.maxInboundReadDepth());
                outboundReadDepth = Math.min(initial.outboundReadDepth(), caps.maxOutboundReadDepth());
                ByteBuffer priv = ByteBuffer.allocate(0);
                if (engine.provider().transportType() == TransportType.IWARP) {
                    // R-6.1-01: the IRD/ORD header leads the connect private data on iWARP
                    priv = ByteBuffer.allocate(SmbdWire.IRD_ORD_HEADER_SIZE);
                    IrdOrdHeader.encode(priv, 0, inboundReadDepth, outboundReadDepth);
                }
                endpointStarted = true;
                endpoint.connect(peer, new ConnectParameters(priv, Math.max(1, inboundReadDepth),
                        Math.max(1, outboundReadDepth))); // R-3.1.4.1-12
            } catch (RdmaException | RuntimeException e) {
                // R-3.1.4.1-13: the lower layer's error goes back to the upper layer
                close(CloseReason.of(CloseReason.Kind.CONNECT_FAILED, "connect to " + peer + " failed: " + e.getMessage()));
            }
        });
    }

    // =====================================================================================
    // Establishment, passive side (3.1.7.2)
    // =====================================================================================

    void startPassive(RdmaConnectRequest connectRequest) {
        serial.execute(() -> {
            this.request = connectRequest;
            this.peerAddress = connectRequest.peerAddress();
            this.localAddress = connectRequest.localAddress();
            state = State.NEGOTIATING;
            // R-3.1.7.2-03: Negotiation Timer from arrival
            timers.startNegotiationTimer(engine.settings().passiveNegotiationTimeout().toNanos());
            try {
                caps = engine.provider().capabilities();
                int ird = Math.min(initial.inboundReadDepth(), caps.maxInboundReadDepth());
                int ord = Math.min(initial.outboundReadDepth(), caps.maxOutboundReadDepth());
                int peerIrd = connectRequest.peerInboundReadDepth();
                int peerOrd = connectRequest.peerOutboundReadDepth();
                ByteBuffer priv = connectRequest.privateData();
                boolean header = false;
                if (engine.provider().transportType() == TransportType.IWARP
                        && priv.remaining() >= SmbdWire.IRD_ORD_HEADER_SIZE
                        && IrdOrdHeader.check(priv, priv.position(), priv.remaining()) == null) {
                    // R-6.2-01: the requester's IRD/ORD header
                    peerIrd = (int) IrdOrdHeader.ird(priv, priv.position());
                    peerOrd = (int) IrdOrdHeader.ord(priv, priv.position());
                    header = true;
                }
                // R-6.2-02: our IRD bounded by the peer's ORD and vice versa
                if (peerOrd > 0) {
                    ird = Math.min(ird, peerOrd);
                }
                if (peerIrd > 0) {
                    ord = Math.min(ord, peerIrd);
                }
                if (ird <= 0 || ord <= 0) {
                    // R-6.2-03
                    refuse(CloseReason.of(CloseReason.Kind.CONNECT_FAILED,
                            "IRD/ORD negotiated to 0 (IRD " + ird + ", ORD " + ord + ") (R-6.2-03)"));
                    return;
                }
                inboundReadDepth = ird;
                outboundReadDepth = ord;
                endpoint = connectRequest.createEndpoint(endpointConfig(), this); // R-3.1.7.2-04
                caps = endpoint.capabilities();
                setUpInitialRegion();
                try {
                    // R-3.1.7.2-05: at least one receive of at least 512 bytes
                    endpoint.postReceive(initRegion, 0, SmbdWire.INITIAL_RECEIVE_SIZE, wr(K_INIT_RECV, 0));
                } catch (RdmaException e) {
                    // R-3.1.7.2-06
                    refuse(CloseReason.of(CloseReason.Kind.RESOURCE_LIMIT,
                            "posting the initial receive failed (R-3.1.7.2-06): " + e.getMessage()));
                    return;
                }
                ByteBuffer reply = ByteBuffer.allocate(0);
                if (header) {
                    reply = ByteBuffer.allocate(SmbdWire.IRD_ORD_HEADER_SIZE);
                    IrdOrdHeader.encode(reply, 0, ird, ord); // R-6.2-01: echo a header
                }
                endpointStarted = true;
                endpoint.accept(new ConnectParameters(reply, ird, ord));
            } catch (RdmaException | RuntimeException e) {
                refuse(CloseReason.of(CloseReason.Kind.RESOURCE_LIMIT, "accepting failed: " + e.getMessage()));
            }
        });
    }

    /** Refuses the request before accepting it: {@link #finish()} rejects it and releases the endpoint. */
    private void refuse(CloseReason reason) {
        close(reason);
    }

    /**
     * Queue-pair sizing within the device's limits: the receive queue holds ReceiveCreditMax + 1
     * data receives plus the initial one (ReceiveCreditMax is lowered to fit, peer-lessons 17); the
     * send queue holds the send slots, the negotiate message, ORD reads, the RDMA Write and local
     * invalidate budgets (send slots are lowered to fit).
     */
    private EndpointConfig endpointConfig() {
        int rq = Math.min(caps.maxReceiveWorkRequests(), initial.receiveCreditMax() + 2);
        credits.limitReceiveCreditMax(Math.max(1, rq - 2));
        int fixed = 1 + initial.outboundReadDepth() + RdmaOperations.WRITE_BUDGET + MemoryRegistrations.INVALIDATE_BUDGET;
        int sendSlots = Math.max(1, Math.min(Math.min(initial.sendCreditTarget(), 255) + 1,
                caps.maxSendWorkRequests() - fixed));
        sendPath.limitSlots(sendSlots);
        int sq = Math.min(caps.maxSendWorkRequests(), sendSlots + fixed);
        return new EndpointConfig(Math.max(1, sq), Math.max(3, rq));
    }

    private void setUpInitialRegion() throws RdmaException {
        // the active side sends nothing from it (its Negotiate Request goes out from a send slot)
        initBuf = ByteBuffer.allocateDirect(initiator ? SmbdWire.INITIAL_RECEIVE_SIZE : INITIAL_REGION)
                .order(ByteOrder.LITTLE_ENDIAN);
        initRegion = endpoint.register(initBuf, EnumSet.of(MemoryAccess.LOCAL_WRITE));
    }

    /**
     * Negotiation succeeded and the initial receive completed: the initial region is not needed any
     * more (nothing was sent from it: the negotiate messages of a success go out from send slots).
     */
    private void releaseInitialRegion() {
        MemoryRegion r = initRegion;
        initRegion = null;
        initBuf = null;
        if (r != null) {
            try {
                endpoint.deregister(r);
            } catch (RdmaException | RuntimeException e) {
                // still released with the endpoint
                LOG.debug("connection {}: deregistering the initial region failed", id, e);
            }
        }
    }

    /** Whether the initial negotiation region is still registered (tests). */
    boolean holdsInitialRegion() {
        return initRegion != null;
    }

    @Override
    public void onEstablished(ByteBuffer peerPrivateData) {
        ByteBuffer copy = ByteBuffer.allocate(peerPrivateData == null ? 0 : peerPrivateData.remaining());
        if (peerPrivateData != null) {
            copy.put(peerPrivateData.duplicate()).flip();
        }
        if (serial.tryEnterIdle()) {
            try {
                if (providerEvents.isEmpty()) {
                    established(copy);
                } else {
                    establishedData = copy;
                    providerEvents.established();
                }
            } finally {
                serial.exit();
            }
        } else {
            establishedData = copy;
            providerEvents.established();
        }
    }

    private void established(ByteBuffer peerPrivateData) {
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        localAddress = endpoint.localAddress();
        if (endpoint.peerAddress() != null) {
            peerAddress = endpoint.peerAddress();
        }
        if (!initiator) {
            return; // the passive side waits for the Negotiate Request (3.1.5.5)
        }
        state = State.NEGOTIATING;
        if (engine.provider().transportType() == TransportType.IWARP
                && peerPrivateData.remaining() >= SmbdWire.IRD_ORD_HEADER_SIZE
                && IrdOrdHeader.check(peerPrivateData, 0, peerPrivateData.remaining()) == null) {
            // R-6.2-05: program the values the acceptor returned
            long peerIrd = IrdOrdHeader.ird(peerPrivateData, 0);
            long peerOrd = IrdOrdHeader.ord(peerPrivateData, 0);
            outboundReadDepth = (int) Math.min(outboundReadDepth, peerIrd);
            inboundReadDepth = (int) Math.min(inboundReadDepth, peerOrd);
        }
        if (endpoint.outboundReadDepth() > 0) {
            outboundReadDepth = Math.min(outboundReadDepth, endpoint.outboundReadDepth());
        }
        if (endpoint.inboundReadDepth() > 0) {
            inboundReadDepth = Math.min(inboundReadDepth, endpoint.inboundReadDepth());
        }
        // R-3.1.4.1-14, 3.1.5.2: the first message is the Negotiate Request (from a send slot, owner none)
        int slot = sendPath.takeNegotiateSlot();
        NegotiateRequest.encode(sendPath.slotBuffer(slot), sendPath.slotOffset(slot), SmbdWire.PROTOCOL_V1,
                SmbdWire.PROTOCOL_V1, credits.sendCreditTarget(), maxSendSize, maxReceiveSize, maxFragmentedRecvSize);
        try {
            sendPath.postNegotiate(slot, SmbdWire.NEGOTIATE_REQUEST_SIZE);
        } catch (RdmaException e) {
            close(CloseReason.of(CloseReason.Kind.CONNECT_FAILED, "posting the Negotiate Request failed: " + e.getMessage()));
        }
    }

    // =====================================================================================
    // Negotiation messages (3.1.5.5 - 3.1.5.7)
    // =====================================================================================

    private void onNegotiationMessage(int length) {
        engine.trace(this, false, initBuf, 0, length);
        if (role == Role.PASSIVE) {
            onNegotiateRequest(length); // R-3.1.5.5-01
        } else if (role == Role.ACTIVE) {
            onNegotiateResponse(length); // R-3.1.5.5-02
        }
    }

    private void onNegotiateRequest(int length) {
        Violation v = NegotiateRequest.check(initBuf, 0, length);
        if (v != null) {
            CloseReason reason = new CloseReason(CloseReason.Kind.NEGOTIATION_FAILED, v.rule(), describe(v));
            if (v.action() == Violation.Action.FAIL_RESPONSE) {
                // R-3.1.5.6-04: failure response, then graceful termination (R-3.1.5.3-08)
                sendFailureResponse(v.status(), reason);
            } else {
                close(reason); // R-3.1.5.6-02, -09: terminate without a response
            }
            return;
        }
        long preferredSendSize = NegotiateRequest.preferredSendSize(initBuf, 0);
        long peerMaxReceiveSize = NegotiateRequest.maxReceiveSize(initBuf, 0);
        long peerMaxFragmented = NegotiateRequest.maxFragmentedSize(initBuf, 0);
        long creditsRequested = NegotiateRequest.creditsRequested(initBuf, 0);
        // R-3.1.5.6-10, -11
        maxReceiveSize = (int) Math.max(SmbdWire.MIN_RECEIVE_SIZE, Math.min(maxReceiveSize, preferredSendSize));
        protocol = SmbdWire.PROTOCOL_V1; // R-3.1.5.6-12
        credits.onCreditsRequested((int) creditsRequested); // R-3.1.5.6-13
        maxSendSize = (int) Math.min(maxSendSize, peerMaxReceiveSize); // R-3.1.5.6-14
        maxFragmentedSendSize = peerMaxFragmented; // R-3.1.5.6-15
        // R-3.1.5.6-16: receives and receive credits through 3.1.5.9
        try {
            setUpDataRegions();
            receivePath.postNegotiationReceives();
        } catch (RdmaException e) {
            LOG.debug("connection {}: receive set-up failed", id, e);
        }
        if (credits.noReceivePosted()) {
            // R-3.1.5.6-17: failure response with an error status
            sendFailureResponse(SmbdWire.STATUS_INSUFFICIENT_RESOURCES,
                    new CloseReason(CloseReason.Kind.RESOURCE_LIMIT, "R-3.1.5.6-17",
                            "no receive could be posted for the peer"));
            return;
        }
        int granted = credits.takeGrant();
        // R-3.1.5.6-18, 3.1.5.3: the success response
        // (from a send slot, owner none: the initial region is free once it is posted)
        int slot = sendPath.takeNegotiateSlot();
        NegotiateResponse.encode(sendPath.slotBuffer(slot), sendPath.slotOffset(slot), SmbdWire.PROTOCOL_V1,
                SmbdWire.PROTOCOL_V1, protocol, credits.sendCreditTarget(), granted, SmbdWire.STATUS_SUCCESS,
                maxReadWriteSize, maxSendSize, maxReceiveSize, maxFragmentedRecvSize);
        try {
            sendPath.postNegotiate(slot, SmbdWire.NEGOTIATE_RESPONSE_SIZE);
        } catch (RdmaException e) {
            close(CloseReason.of(CloseReason.Kind.PROVIDER_ERROR, "posting the Negotiate Response failed: " + e.getMessage()));
            return;
        }
        releaseInitialRegion(); // its receive completed (the request); nothing else uses it
        // R-3.1.5.6-20..22 (the upper layer is told right after, A-41)
        timers.negotiated(); // R-3.1.5.6-20, -21
        sendPath.open(maxSendSize, maxFragmentedSendSize);
        role = Role.ESTABLISHED;
        state = State.ESTABLISHED;
        engine.onEstablished(this);
        // R-3.1.5.6-19, A-41: indicate the negotiated connection to the upper layer
        ConnectionHandler h = null;
        try {
            h = listener.acceptHandler().accepted(this);
        } catch (RuntimeException e) {
            LOG.warn("connection {}: accept handler failed", id, e);
            close(CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "accept handler failed: " + e));
            return;
        }
        if (h == null) {
            close(CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "the accept handler declined the connection"));
            return;
        }
        handler = h;
        serial.execute(pumpTask);
    }

    private void sendFailureResponse(int status, CloseReason reason) {
        // R-3.1.5.3-02..07: versions 0x0100, status, every other field 0
        NegotiateResponse.encodeFailure(initBuf, NEG_SEND_OFFSET, status);
        pendingClose = reason;
        try {
            endpoint.postSend(initRegion, NEG_SEND_OFFSET, SmbdWire.NEGOTIATE_RESPONSE_SIZE, wr(K_NEG_SEND, 0));
            engine.trace(this, true, initBuf, NEG_SEND_OFFSET, SmbdWire.NEGOTIATE_RESPONSE_SIZE);
        } catch (RdmaException e) {
            close(reason);
        }
    }

    private void onNegotiateResponse(int length) {
        Violation v = NegotiateResponse.check(initBuf, 0, length, maxReceiveSize);
        if (v != null) {
            // R-3.1.5.7-09: terminate and fail the connect
            close(new CloseReason(CloseReason.Kind.NEGOTIATION_FAILED, v.rule(), describe(v)));
            return;
        }
        protocol = SmbdWire.PROTOCOL_V1; // R-3.1.5.7-10
        credits.onCreditsRequested(NegotiateResponse.creditsRequested(initBuf, 0)); // R-3.1.5.7-11
        long preferred = NegotiateResponse.preferredSendSize(initBuf, 0);
        maxReceiveSize = (int) Math.max(SmbdWire.MIN_RECEIVE_SIZE, Math.min(maxReceiveSize, preferred)); // -12, -13
        maxSendSize = (int) Math.min(maxSendSize, NegotiateResponse.maxReceiveSize(initBuf, 0)); // -14
        maxReadWriteSize = (int) Math.min(initial.maxReadWriteSize(),
                NegotiateResponse.maxReadWriteSize(initBuf, 0)); // -15
        credits.addSendCredits(NegotiateResponse.creditsGranted(initBuf, 0)); // -16
        maxFragmentedSendSize = NegotiateResponse.maxFragmentedSize(initBuf, 0); // -17
        releaseInitialRegion(); // its receive completed (the response); the request went from a send slot
        try {
            setUpDataRegions();
            receivePath.postNegotiationReceives(); // R-3.1.5.7-18
        } catch (RdmaException e) {
            LOG.debug("connection {}: receive set-up failed", id, e);
        }
        if (credits.noReceivePosted()) {
            close(new CloseReason(CloseReason.Kind.RESOURCE_LIMIT, "R-3.1.5.7-19", "no receive could be posted"));
            return;
        }
        timers.negotiated(); // -20, -21
        sendPath.open(maxSendSize, maxFragmentedSendSize);
        role = Role.ESTABLISHED; // -22
        state = State.ESTABLISHED;
        engine.onEstablished(this);
        CompletableFuture<SmbDirectConnection> f = connectFuture;
        connectFuture = null;
        f.complete(this); // -23
        // the upper layer's first message (queued by its completion stage) carries the grant
        serial.execute(pumpTask);
    }

    static String describe(Violation v) {
        return v.field() + "=" + v.value() + (v.detail() == null || v.detail().isEmpty() ? "" : ": " + v.detail());
    }

    private void setUpDataRegions() throws RdmaException {
        receivePath.setUp(maxReceiveSize, maxFragmentedRecvSize);
        if (!sendPath.hasBuffers()) {
            // passive (the active side registered them before its Negotiate Request)
            sendPath.setUpBuffers(maxSendSize);
        }
    }

    /** The transport's settings changed: timers follow at once. */
    void onSettingsChanged() {
        serial.execute(timers::settingsChanged);
    }

    // =====================================================================================
    // Sending (3.1.4.2)
    // =====================================================================================

    @Override
    public void send(ByteBuffer message, SendCompletion completion) {
        sendPath.submit(message, completion, false, 0);
    }

    @Override
    public void sendWithInvalidate(ByteBuffer message, int remoteToken, SendCompletion completion) {
        sendPath.submit(message, completion, true, remoteToken);
    }

    /** The send loop (3.1.5.1) runs: a grant, keepalive or reply may be due. */
    void pump() {
        sendPath.pump();
    }

    /**
     * From inside a task of the serial context: handles the work completions that have arrived and
     * wait for it, now (see {@link ProviderEvents#takeCompletions()}).
     *
     * @return how many were handled
     */
    int takeArrivedCompletions() {
        return providerEvents.takeCompletions();
    }

    // =====================================================================================
    // Provider callbacks
    // =====================================================================================

    @Override
    public void onCompletion(WorkCompletion wc) {
        if (serial.tryEnterIdle()) {
            try {
                if (providerEvents.isEmpty()) {
                    handleCompletion(wc.wrId(), wc.type(), wc.status(), wc.byteLength(), wc.hasInvalidatedToken(),
                            wc.invalidatedToken(), wc.vendorError());
                } else {
                    providerEvents.completion(wc); // behind the earlier ones, taken before exit() returns
                }
            } finally {
                serial.exit();
            }
        } else {
            providerEvents.completion(wc);
        }
    }

    void handleCompletion(long wrId, WorkRequestType type, CompletionStatus status, int length,
            boolean invalidated, int token, int vendorError) {
        int kind = (int) (wrId >>> KIND_SHIFT);
        long index = wrId & INDEX_MASK;
        switch (kind) {
            case K_INIT_RECV:
                if (status == CompletionStatus.SUCCESS) {
                    if (state == State.NEGOTIATING || state == State.CONNECTING) {
                        onNegotiationMessage(length);
                    }
                } else if (status != CompletionStatus.FLUSHED) {
                    close(providerError("initial receive", status, vendorError));
                }
                break;
            case K_NEG_SEND:
                if (status == CompletionStatus.FLUSHED) {
                    break;
                }
                if (status != CompletionStatus.SUCCESS) {
                    close(providerError("negotiate Send", status, vendorError));
                } else if (pendingClose != null) {
                    close(pendingClose); // graceful termination after a failure response (R-3.1.5.3-08)
                }
                break;
            case K_RECV:
                receivePath.onCompleted((int) index, status, length, invalidated, token, vendorError);
                break;
            case K_SEND:
                sendPath.onCompleted((int) index, status, vendorError);
                break;
            case K_RDMA:
                rdma.onCompleted(index, status, vendorError);
                break;
            case K_INVALIDATE:
                registrations.onInvalidateCompleted(index, status, vendorError);
                break;
            default:
                LOG.warn("connection {}: completion with unknown wrId {}", id, Long.toHexString(wrId));
        }
    }

    /**
     * 3.1.7.1, nothing lost silently: a message the peer sent completely before the connection
     * broke (its receive completed successfully) is still handed to the upper layer before
     * {@code onDisconnected}, unless the peer violated the protocol (its data is not trusted any
     * more) or this side chose to close (local close, shutdown).
     */
    boolean deliversWhileClosing() {
        if (state != State.CLOSING || closedFrom != State.ESTABLISHED) {
            return false;
        }
        CloseReason.Kind kind = closeReason.kind();
        return kind != CloseReason.Kind.PROTOCOL_VIOLATION && kind != CloseReason.Kind.LOCAL_CLOSE
                && kind != CloseReason.Kind.SHUTDOWN;
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

    CloseReason providerError(String what, CompletionStatus status, int vendorError) {
        String detail;
        switch (status) {
            case RECEIVER_NOT_READY:
                detail = what + " failed: RECEIVER_NOT_READY (the peer had no receive posted; sending without a credit)";
                break;
            case LOCAL_LENGTH_ERROR:
                detail = what + " failed: LOCAL_LENGTH_ERROR (a message longer than MaxReceiveSize "
                        + maxReceiveSize + " arrived)";
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
        return CloseReason.of(state == State.ESTABLISHED || state == State.CLOSING ? CloseReason.Kind.PROVIDER_ERROR
                : CloseReason.Kind.CONNECT_FAILED, detail);
    }

    @Override
    public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        String d = detail == null ? "" : detail;
        if (serial.tryEnterIdle()) {
            try {
                if (providerEvents.isEmpty()) {
                    endpointGone(cause, d);
                } else {
                    goneCause = cause;
                    goneDetail = d;
                    providerEvents.disconnected();
                }
            } finally {
                serial.exit();
            }
        } else {
            goneCause = cause;
            goneDetail = d;
            providerEvents.disconnected();
        }
    }

    private void endpointGone(DisconnectCause cause, String detail) {
        if (state == State.CLOSED) {
            return;
        }
        if (state != State.CLOSING) {
            close(reasonFor(cause, detail, state == State.ESTABLISHED));
        } else if (provisionalReason && cause != DisconnectCause.LOCAL) {
            // the refused post was a symptom: the endpoint's own cause is the reason
            closeReason = reasonFor(cause, detail, closedFrom == State.ESTABLISHED);
        }
        finish();
    }

    private CloseReason reasonFor(DisconnectCause cause, String detail, boolean up) {
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

    // =====================================================================================
    // Connection loss (3.1.7.1)
    // =====================================================================================

    @Override
    public CompletionStage<Void> close() {
        closeAsync(CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "closed by the upper layer"));
        return closedFuture;
    }

    /** Closes from any thread with {@code reason}. */
    CompletionStage<Void> closeAsync(CloseReason reason) {
        serial.execute(() -> close(reason));
        return closedFuture;
    }

    CompletableFuture<Void> closedFuture() {
        return closedFuture;
    }

    /**
     * Serial context: starts the connection loss (3.1.7.1) once, whatever the cause. Queued work
     * fails now; work in flight fails as the provider flushes it; {@link #finish()} runs when the
     * endpoint reported its disconnect (its last callback).
     */
    void close(CloseReason reason) {
        if (state == State.CLOSING || state == State.CLOSED) {
            return;
        }
        closedFrom = state;
        closeReason = reason;
        state = State.CLOSING;
        timers.cancelAll();
        SmbDirectException failure = SmbDirectException.closed(reason);
        sendPath.failQueued(failure);
        rdma.failQueued(failure);
        if (endpoint != null && endpointStarted) {
            endpoint.disconnect(); // the endpoint reports onDisconnected after flushing every request
            if (state == State.CLOSING) {
                // peer-lessons 22: bounded shutdown even when the provider never reports the disconnect
                engine.scheduler().schedule(() -> serial.execute(this::finishOverdue), CLOSE_DEADLINE_NANOS);
            }
        } else {
            finish();
        }
    }

    private void finishOverdue() {
        if (state == State.CLOSING) {
            LOG.warn("connection {}: the provider did not report the disconnect within {} s; releasing anyway", id,
                    CLOSE_DEADLINE_NANOS / 1_000_000_000L);
            finish();
        }
    }

    /** Serial context: the endpoint is quiet; release everything and tell the upper layer once. */
    private void finish() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        closedMillis = engine.epochMillis();
        CloseReason reason = closeReason;
        SmbDirectException failure = SmbDirectException.closed(reason);
        sendPath.failInFlight(failure);
        rdma.failInFlight(failure);
        registrations.releaseAll();
        if (!endpointStarted && request != null) {
            request.reject(ByteBuffer.allocate(0)); // also releases an endpoint created from it
        }
        if (endpoint != null) {
            try {
                endpoint.close(); // releases the queue pair and every region registered on it
            } catch (RuntimeException e) {
                LOG.debug("connection {}: endpoint close failed", id, e);
            }
        }
        engine.onClosed(this, closedFrom);
        LOG.info("connection {} {} peer {} closed from {}: {}; {}", id, initiator ? "ACTIVE" : "PASSIVE", peerAddress,
                closedFrom, reason, credits);
        CompletableFuture<SmbDirectConnection> f = connectFuture;
        connectFuture = null;
        if (f != null) {
            f.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.CONNECT_FAILED,
                    "connect to " + peerAddress + " failed: " + reason, reason, null));
        } else if (handler != null) {
            try {
                handler.onDisconnected(this, reason);
            } catch (RuntimeException e) {
                LOG.warn("connection {}: disconnect handler threw", id, e);
            }
        }
        closedFuture.complete(null);
    }

    // =====================================================================================
    // Memory registration and RDMA (3.1.4.3 - 3.1.4.6)
    // =====================================================================================

    @Override
    public CompletionStage<RegisteredBuffer> register(ByteBuffer buffer, RemoteAccess access) {
        return registrations.register(buffer, access);
    }

    @Override
    public void rdmaWrite(RegisteredBuffer source, int sourceOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletion completion) {
        rdma.write(source, sourceOffset, length, remote, remoteOffset, completion);
    }

    @Override
    public void rdmaRead(RegisteredBuffer destination, int destinationOffset, int length,
            List<BufferDescriptor> remote, long remoteOffset, RdmaCompletion completion) {
        rdma.read(destination, destinationOffset, length, remote, remoteOffset, completion);
    }

    // =====================================================================================
    // Queries
    // =====================================================================================

    /** Whether the connection is connecting or negotiating. */
    boolean isNegotiating() {
        State s = state;
        return s == State.CONNECTING || s == State.NEGOTIATING;
    }

    /** Messages in Connection.SendQueue. */
    int sendQueueDepth() {
        return sendPath.queueDepth();
    }

    /** Whether the connection is established (negotiated and not closing). */
    boolean isEstablished() {
        return state == State.ESTABLISHED;
    }

    /** The failure of an operation that needs an established connection. */
    SmbDirectException notEstablished() {
        CloseReason r = closeReason;
        return SmbDirectException.closed(r != null ? r
                : CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "connection not established"));
    }

    /** The upper layer's handler of this connection (null before it was accepted or connected). */
    ConnectionHandler handler() {
        return handler;
    }

    /** The endpoint (null before it was created). */
    RdmaEndpoint endpoint() {
        return endpoint;
    }

    /** The endpoint's capabilities (the provider's before the endpoint exists). */
    RdmaCapabilities capabilities() {
        return caps;
    }

    static long wr(int kind, long index) {
        return ((long) kind << KIND_SHIFT) | index;
    }

    @Override
    public long id() {
        return id;
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
    public String providerName() {
        return engine.provider().name();
    }

    @Override
    public boolean isInitiator() {
        return initiator;
    }

    @Override
    public boolean isOpen() {
        State s = state;
        return s != State.CLOSING && s != State.CLOSED;
    }

    @Override
    public ConnectionParameters parameters() {
        // R-3.1.4.7-01
        return new ConnectionParameters(maxSendSize, maxFragmentedSendSize, maxReceiveSize, maxFragmentedRecvSize,
                maxReadWriteSize, engine.settings().keepaliveInterval(), inboundReadDepth, outboundReadDepth,
                caps != null && caps.sendWithInvalidate());
    }

    @Override
    public ConnectionDTO getConnectionDTO() {
        ConnectionDTO d = new ConnectionDTO();
        d.id = id;
        d.role = initiator ? "ACTIVE" : "PASSIVE";
        d.state = state.name();
        d.provider = engine.provider().name();
        d.localAddress = text(localAddress);
        d.peerAddress = text(peerAddress);
        d.createdMillis = createdMillis;
        d.protocol = protocol;
        d.maxSendSize = maxSendSize;
        d.maxReceiveSize = maxReceiveSize;
        d.maxFragmentedSendSize = maxFragmentedSendSize;
        d.maxFragmentedRecvSize = maxFragmentedRecvSize;
        d.maxReadWriteSize = maxReadWriteSize;
        d.keepaliveIntervalMillis = engine.settings().keepaliveInterval().toMillis();
        d.inboundReadDepth = inboundReadDepth;
        d.outboundReadDepth = outboundReadDepth;
        credits.describeTo(d);
        d.registrations = registrations.count();
        timers.describeTo(d);
        sendPath.describeTo(d);
        receivePath.describeTo(d);
        rdma.describeTo(d);
        CloseReason r = closeReason;
        d.closeReason = r == null ? null : r.toString();
        d.closedMillis = closedMillis;
        return d;
    }

    private static String text(InetSocketAddress a) {
        return a == null ? null : a.getHostString() + ":" + a.getPort();
    }

    /** The log line of an established connection. */
    String describeNegotiated() {
        return "connection " + id + " " + (initiator ? "ACTIVE" : "PASSIVE") + " peer " + peerAddress
                + " established: MaxSendSize=" + maxSendSize + " MaxReceiveSize=" + maxReceiveSize
                + " MaxFragmentedSendSize=" + maxFragmentedSendSize + " MaxFragmentedRecvSize=" + maxFragmentedRecvSize
                + " MaxReadWriteSize=" + maxReadWriteSize + " IRD=" + inboundReadDepth + " ORD=" + outboundReadDepth
                + " " + credits;
    }

    @Override
    public String toString() {
        return "Connection[" + id + ", " + (initiator ? "ACTIVE" : "PASSIVE") + ", " + state + ", peer " + peerAddress
                + "]";
    }
}
