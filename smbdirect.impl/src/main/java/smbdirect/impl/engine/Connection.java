package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ConnectionParameters;
import smbdirect.api.RdmaCompletionHandler;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SendCompletion;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/**
 * One SMB Direct connection in either role ([MS-SMBD] 3.1.1.1, "Per RDMA Transport Connection"):
 * its identity, its state machine (CONNECTING, NEGOTIATING, ESTABLISHED, CLOSING, CLOSED), the
 * serial context that owns all of its state, its endpoint, and the wiring of the concerns that carry
 * out the protocol, each owning its own state: {@link Negotiation} ({@link ActiveNegotiation},
 * {@link PassiveNegotiation}), {@link SendPath}, {@link ReceivePath}, {@link CreditManager},
 * {@link Timers}, {@link MemoryRegistrations}, {@link RdmaOperations} and {@link Closing} (the
 * package documentation shows which sections each carries out, how they are wired and how a message
 * travels). The constructor makes them in the order they need each other and gives each what it
 * uses; the two needs that point forward (the timers' of the send loop, every concern's of
 * {@link Closing}) are met by forwarders of the narrow {@link Timers.SendLoop} and
 * {@link ConnectionLoss}, made once here.
 *
 * <p><b>Threading.</b> Thread-safe as {@link SmbDirectConnection} requires: every public method hands
 * its work to the connection's {@link SerialExecutor}; all state changes there, one task at a time,
 * so the concerns need no locks. Provider callbacks run inline when the serial context is idle (no
 * copy, no allocation) and are copied and queued otherwise ({@link ProviderEvents}: re-entrant inline
 * completions). Nothing blocks. A work completion finds its concern by the kind encoded in the top
 * byte of its work request id ({@link #wr}).
 *
 * <p><b>DTO snapshot.</b> {@link #getConnectionDTO()} reads the serial-context fields without
 * synchronisation: each value is one the connection held, the set is not atomic.
 */
final class Connection implements SmbDirectConnection, RdmaEndpointHandler {

    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    private static final long KIND_SHIFT = 56;
    private static final long INDEX_MASK = (1L << KIND_SHIFT) - 1;
    /** Work request kinds: the initial receive, a negotiate Send from the initial region, ... */
    static final int K_INIT_RECV = 1;
    static final int K_NEG_SEND = 2;
    static final int K_RECV = 3;
    static final int K_SEND = 4;
    static final int K_RDMA = 5;
    static final int K_INVALIDATE = 6;

    /** Life-cycle states (ConnectionDTO.state). */
    enum State { CONNECTING, NEGOTIATING, ESTABLISHED, CLOSING, CLOSED }

    final SmbDirectEngine engine;
    final long id;
    final boolean initiator;
    final EngineListener listener;
    final SerialExecutor serial;
    private final ProviderEvents providerEvents;
    private final long createdMillis;
    private final long budget;

    // ---- state ----
    private volatile State state = State.CONNECTING;
    /** Why the connection closes (null while it is open). */
    private volatile CloseReason closeReason;
    private RdmaEndpoint endpoint;
    private boolean endpointStarted;
    private RdmaCapabilities caps;
    private ConnectionHandler handler;
    private InetSocketAddress peerAddress;
    private InetSocketAddress localAddress;

    // ---- the concerns ----
    final CreditManager credits;
    final Timers timers;
    final MemoryRegistrations registrations;
    final RdmaOperations rdma;
    final ReceivePath receivePath;
    final SendPath sendPath;
    final Closing closing;
    final Negotiation negotiation;
    /** A drain's look at this connection is queued on the serial context. */
    private final AtomicBoolean drainCheckQueued = new AtomicBoolean();

    Connection(SmbDirectEngine engine, long id, boolean initiator, EngineListener listener, TransportSettings settings,
            long budget) {
        this.engine = engine;
        this.id = id;
        this.initiator = initiator;
        this.listener = listener;
        this.budget = budget;
        this.serial = new SerialExecutor(serialRingCapacity(settings));
        this.providerEvents = new ProviderEvents(serial, new ProviderEvents.Sink() {
            @Override
            public void completion(long wrId, WorkRequestType type, CompletionStatus status, int length,
                    boolean invalidated, int token, int vendorError) {
                handleCompletion(wrId, type, status, length, invalidated, token, vendorError);
            }

            @Override
            public void established(ByteBuffer peerPrivateData) {
                negotiation.onEstablished(peerPrivateData);
            }

            @Override
            public void disconnected(DisconnectCause cause, String detail) {
                closing.endpointGone(cause, detail);
            }
        });
        this.createdMillis = engine.epochMillis();
        this.credits = new CreditManager(settings.sendCreditTarget(), settings.receiveCreditMax());
        // Closing is made last, with every concern it ends: the ones made before it reach it through this
        ConnectionLoss loss = new ConnectionLoss() {
            @Override
            public void closeAfterPostFailure(String what, RdmaException e) {
                closing.closeAfterPostFailure(what, e);
            }

            @Override
            public CloseReason providerError(String what, CompletionStatus status, int vendorError) {
                return closing.providerError(what, status, vendorError);
            }

            @Override
            public boolean deliversWhileClosing() {
                return closing.deliversWhileClosing();
            }
        };
        // the send path is made after the timers, which it uses: the timers reach it through this
        this.timers = new Timers(this, serial, engine.scheduler(), settings, credits, new Timers.SendLoop() {
            @Override
            public void pump() {
                sendPath.pump();
            }

            @Override
            public int queueDepth() {
                return sendPath.queueDepth();
            }
        });
        this.registrations = new MemoryRegistrations(this, serial, loss);
        this.rdma = new RdmaOperations(this, serial, registrations, loss);
        this.receivePath = new ReceivePath(this, engine, credits, timers, registrations, loss);
        this.sendPath = new SendPath(this, engine, serial, settings, credits, timers, receivePath, loss);
        this.negotiation = Negotiation.of(this, engine, serial, credits, timers, receivePath, sendPath, rdma, loss,
                settings, initiator);
        this.closing = new Closing(this, engine, serial, credits, timers, registrations, rdma, receivePath, sendPath,
                negotiation);
    }

    long budget() {
        return budget;
    }

    /**
     * Ring slots of the serial context: the work requests that can complete in one burst (the send
     * and receive queues as {@link Negotiation#endpointSettings()} sizes them at most, before any device limit)
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
    // Establishment (3.1.4.1, 3.1.7.2): the negotiation of the role does it
    // =====================================================================================

    /** Connecting to the Peer (3.1.4.1), from the upper layer's thread. */
    void startActive(InetSocketAddress peer, Duration timeout, ConnectionHandler connectionHandler,
            CompletableFuture<SmbDirectConnection> future) {
        ((ActiveNegotiation) negotiation).start(peer, timeout, connectionHandler, future);
    }

    /** Connection Arrival (3.1.7.2), from the listener's thread. */
    void startPassive(RdmaConnectRequest request) {
        ((PassiveNegotiation) negotiation).start(request);
    }

    /**
     * The engine drains (the transport stops or its provider is withdrawn): closes with
     * {@code reason} unless the connection is established and still has work in flight; with
     * {@code ranOut} (the drain time that ran out) it closes whatever it has, saying what was left.
     * From any thread; the check runs on the serial context, after the calls already handed over.
     */
    void drain(CloseReason reason, Duration ranOut) {
        if (ranOut == null && !drainCheckQueued.compareAndSet(false, true)) {
            return; // a look is already waiting its turn (the context is busy: a callback runs)
        }
        serial.execute(() -> {
            drainCheckQueued.set(false);
            drainNow(reason, ranOut);
        });
    }

    private void drainNow(CloseReason reason, Duration ranOut) {
        State s = state;
        if (s == State.CLOSING || s == State.CLOSED) {
            return;
        }
        if (ranOut == null && s == State.ESTABLISHED && serial.hasQueued()) {
            return; // work handed over behind this look (a send from a callback that ran before it): look again
        }
        String busy = s == State.ESTABLISHED ? workInFlight() : null;
        if (busy == null) {
            // idle, or not yet established: a connection still negotiating is a new one, refused
            close(reason);
        } else if (ranOut != null) {
            LOG.info("connection {}: the drain time of {} s ran out with {} in flight", id, ranOut.toSeconds(), busy);
            close(new CloseReason(reason.kind(), reason.rule(), reason.detail() + "; the drain time of "
                    + ranOut.toSeconds() + " s ran out with " + busy + " in flight"));
        }
    }

    /**
     * What this connection has in flight (serial context): messages the upper layer handed over and
     * not yet acknowledged, RDMA Reads and Writes requested and not completed, a fragmented message
     * partly received; null when nothing. A message being delivered is in flight as long as the
     * upper layer's callback runs, which is on this serial context too.
     */
    String workInFlight() {
        int sends = sendPath.inFlight();
        int rdmaWork = rdma.outstanding();
        boolean receiving = receivePath.receiving();
        if (sends == 0 && rdmaWork == 0 && !receiving) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        if (sends > 0) {
            b.append(sends).append(sends == 1 ? " message" : " messages").append(" to send");
        }
        if (rdmaWork > 0) {
            b.append(b.length() == 0 ? "" : ", ").append(rdmaWork).append(" RDMA work request(s)");
        }
        if (receiving) {
            b.append(b.length() == 0 ? "" : ", ").append("a message partly received");
        }
        return b.toString();
    }

    /** The transport's settings changed to {@code changed} (from any thread): timers follow at once. */
    void onSettingsChanged(TransportSettings changed) {
        sendPath.settingsChanged(changed);
        timers.settingsChanged(changed);
    }

    // =====================================================================================
    // The upper layer's calls (3.1.4.2 - 3.1.4.7)
    // =====================================================================================

    @Override
    public void send(ByteBuffer message, SendCompletion completion) {
        sendPath.submit(message, completion, false, 0);
    }

    @Override
    public void sendWithInvalidate(ByteBuffer message, int remoteToken, SendCompletion completion) {
        sendPath.submit(message, completion, true, remoteToken);
    }

    @Override
    public CompletionStage<RegisteredBuffer> register(ByteBuffer buffer, RemoteAccess access) {
        return registrations.register(buffer, access);
    }

    @Override
    public void rdmaWrite(RegisteredBuffer source, int sourceOffset, int length, List<BufferDescriptor> remote,
            long remoteOffset, RdmaCompletionHandler completion) {
        rdma.write(source, sourceOffset, length, remote, remoteOffset, completion);
    }

    @Override
    public void rdmaRead(RegisteredBuffer destination, int destinationOffset, int length,
            List<BufferDescriptor> remote, long remoteOffset, RdmaCompletionHandler completion) {
        rdma.read(destination, destinationOffset, length, remote, remoteOffset, completion);
    }

    @Override
    public CompletionStage<Void> close() {
        return closing.closeAsync(CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "closed by the upper layer"));
    }

    // =====================================================================================
    // Provider callbacks
    // =====================================================================================

    @Override
    public void onEstablished(ByteBuffer peerPrivateData) {
        ByteBuffer copy = ByteBuffer.allocate(peerPrivateData == null ? 0 : peerPrivateData.remaining());
        if (peerPrivateData != null) {
            copy.put(peerPrivateData.duplicate()).flip();
        }
        providerEvents.onEstablished(copy);
    }

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

    /** Serial context: a work completion goes to the concern that posted the work request. */
    void handleCompletion(long wrId, WorkRequestType type, CompletionStatus status, int length,
            boolean invalidated, int token, int vendorError) {
        int kind = (int) (wrId >>> KIND_SHIFT);
        long index = wrId & INDEX_MASK;
        switch (kind) {
            case K_INIT_RECV:
                negotiation.onInitialReceive(status, length, vendorError);
                break;
            case K_NEG_SEND:
                negotiation.onInitialSendCompleted(status, vendorError);
                break;
            case K_RECV:
                if (receivePath.onCompleted((int) index, status, length, invalidated, token, vendorError)) {
                    sendPath.pump(); // R-3.1.5.8-08, -09, -14: what the message granted and asked for goes out
                }
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

    @Override
    public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        providerEvents.onDisconnected(cause, detail == null ? "" : detail);
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

    /** The id of a work request of {@code kind} for the concern's {@code index}. */
    static long wr(int kind, long index) {
        return ((long) kind << KIND_SHIFT) | index;
    }

    // =====================================================================================
    // State machine (serial context)
    // =====================================================================================

    State state() {
        return state;
    }

    /** Whether the connection is connecting or negotiating. */
    boolean isNegotiating() {
        State s = state;
        return s == State.CONNECTING || s == State.NEGOTIATING;
    }

    /**
     * Whether the connection is closing with a provisional reason, the endpoint's own on its way
     * ({@link Closing#reasonProvisional}): a request handed over now fails with the final reason
     * when the connection finishes, not at once with the provisional one (serial context).
     */
    boolean closeReasonProvisional() {
        return closing.reasonProvisional();
    }

    /** Whether the connection is established (negotiated and not closing). */
    boolean isEstablished() {
        return state == State.ESTABLISHED;
    }

    /** Active: the upper layer connects to {@code peer} and will be told through {@code h}. */
    void connecting(InetSocketAddress peer, ConnectionHandler h) {
        this.peerAddress = peer;
        this.handler = h;
    }

    /** Passive: a connection request arrived; negotiation begins with it. */
    void arrived(InetSocketAddress local, InetSocketAddress peer) {
        this.localAddress = local;
        this.peerAddress = peer;
        state = State.NEGOTIATING;
    }

    /** Active: the RDMA connection is established; the Negotiate Request goes out. */
    void negotiating() {
        state = State.NEGOTIATING;
    }

    /** Negotiation completed. */
    void established() {
        state = State.ESTABLISHED;
        engine.onEstablished(this);
    }

    /** Passive: the upper layer accepted the negotiated connection with {@code h}. */
    void accepted(ConnectionHandler h) {
        this.handler = h;
    }

    /** Closes with {@code reason} unless the connection closes already (3.1.7.1). */
    void close(CloseReason reason) {
        closing.close(reason);
    }

    /**
     * The connection begins to close with {@code reason}.
     *
     * @return the state it closes from, or null when it closes already
     */
    State beginClosing(CloseReason reason) {
        State from = state;
        if (from == State.CLOSING || from == State.CLOSED) {
            return null;
        }
        closeReason = reason;
        state = State.CLOSING;
        return from;
    }

    /** A better reason than the one it closes with became known (the endpoint's disconnect cause). */
    void replaceCloseReason(CloseReason reason) {
        closeReason = reason;
    }

    /**
     * The connection is released.
     *
     * @return false when it was already
     */
    boolean closed() {
        if (state == State.CLOSED) {
            return false;
        }
        state = State.CLOSED;
        return true;
    }

    /** Why the connection closes (null while it is open). */
    CloseReason closeReason() {
        return closeReason;
    }

    /**
     * Serial context: a callback of the upper layer ({@code callback}, e.g.
     * {@code ConnectionHandler.onMessage}) threw. An open connection closes with
     * {@link CloseReason.Kind#HANDLER_FAILED} naming the callback and the exception, which becomes the
     * cause of every pending operation's failure; a closing one keeps its reason. Either way the
     * exception is logged and reported to the engine's callback-failure handler.
     */
    void callbackFailed(String callback, Throwable failure) {
        boolean open = isOpen();
        LOG.error(open ? "connection {}: {} threw; the connection closes" : "connection {}: {} threw", id, callback,
                failure);
        if (open) {
            closing.closeForCallbackFailure(callback, failure);
        }
        engine.callbackFailed(callback, id, failure);
    }

    /** The failure of an operation that needs an established connection. */
    SmbDirectException notEstablished() {
        CloseReason r = closeReason;
        return SmbDirectException.closed(r != null ? r
                : CloseReason.of(CloseReason.Kind.LOCAL_CLOSE, "connection not established"));
    }

    // =====================================================================================
    // The endpoint
    // =====================================================================================

    /** The capabilities the queue pair is sized by before the endpoint exists (the provider's). */
    void useCapabilities(RdmaCapabilities capabilities) {
        this.caps = capabilities;
    }

    /** The endpoint was created: its capabilities apply from now on. */
    void attach(RdmaEndpoint created) {
        this.endpoint = created;
        this.caps = created.capabilities();
    }

    /** Connect or accept is called on the endpoint now (it reports a disconnect from then on). */
    void endpointStarted() {
        endpointStarted = true;
    }

    boolean isEndpointStarted() {
        return endpointStarted;
    }

    /** The endpoint is connected: its addresses are known. */
    void endpointEstablished() {
        localAddress = endpoint.localAddress();
        if (endpoint.peerAddress() != null) {
            peerAddress = endpoint.peerAddress();
        }
    }

    /** The endpoint (null before it was created). */
    RdmaEndpoint endpoint() {
        return endpoint;
    }

    /** The endpoint's capabilities (the provider's before the endpoint exists). */
    RdmaCapabilities capabilities() {
        return caps;
    }

    /** The upper layer's handler of this connection (null before it was accepted or connected). */
    ConnectionHandler handler() {
        return handler;
    }

    // =====================================================================================
    // Queries
    // =====================================================================================

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
        Negotiation n = negotiation;
        return new ConnectionParameters(n.maxSendSize(), n.maxFragmentedSendSize(), n.maxReceiveSize(),
                n.maxFragmentedRecvSize(), n.maxReadWriteSize(), engine.settings().keepaliveInterval(),
                n.inboundReadDepth(), n.outboundReadDepth(), caps != null && caps.sendWithInvalidate(),
                caps != null && caps.remoteInvalidation());
    }

    @Override
    public ConnectionDTO getConnectionDTO() {
        ConnectionDTO d = new ConnectionDTO();
        d.id = id;
        d.role = initiator ? "ACTIVE" : "PASSIVE";
        d.state = state.name();
        d.provider = engine.provider().name();
        RdmaEndpoint e = endpoint;
        d.providerDetail = e == null ? null : e.describeConnection();
        d.localAddress = text(localAddress);
        d.peerAddress = text(peerAddress);
        d.createdMillis = createdMillis;
        negotiation.describeTo(d);
        d.keepaliveIntervalMillis = engine.settings().keepaliveInterval().toMillis();
        credits.describeTo(d);
        d.registrations = registrations.count();
        timers.describeTo(d);
        sendPath.describeTo(d);
        receivePath.describeTo(d);
        rdma.describeTo(d);
        CloseReason r = closeReason;
        d.closeReason = r == null ? null : r.toString();
        d.closedMillis = closing.closedMillis();
        return d;
    }

    /**
     * Adds this connection's traffic counters (messages, bytes, RDMA, credit stalls) to {@code into};
     * asks the provider nothing, so it works after the provider left.
     */
    void addTrafficTo(CountersDTO into) {
        ConnectionDTO d = new ConnectionDTO();
        timers.describeTo(d);
        sendPath.describeTo(d);
        receivePath.describeTo(d);
        rdma.describeTo(d);
        Counters.addTraffic(into, d);
    }

    static String text(InetSocketAddress a) {
        return a == null ? null : a.getHostString() + ":" + a.getPort();
    }

    /** The log line of an established connection. */
    String describeNegotiated() {
        return "connection " + id + " " + (initiator ? "ACTIVE" : "PASSIVE") + " peer " + peerAddress
                + " established: " + negotiation.describeNegotiated() + " " + credits;
    }

    @Override
    public String toString() {
        return "Connection[" + id + ", " + (initiator ? "ACTIVE" : "PASSIVE") + ", " + state + ", peer " + peerAddress
                + "]";
    }
}
