package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.AcceptHandler;
import smbdirect.api.CloseReason;
import smbdirect.api.ListenerEvent;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;

/**
 * A listening endpoint of the engine (passive role, 3.1.7.2): admits connection requests within
 * the per-listener caps and the transport's receive-buffer budget and hands each to a new passive
 * {@link Connection}. Tells its own {@link ListenerEventHandler} and the engine's of every
 * acceptance, decline, refusal and failed negotiation, and keeps the last {@value #EVENTS} of them.
 *
 * <p>Thread-safe: counters are atomic, the state is volatile, the event history is guarded by itself.
 */
final class EngineListener implements SmbDirectListener, RdmaListenHandler {

    private static final Logger LOG = LoggerFactory.getLogger(EngineListener.class);

    /** Events kept for the DTO. */
    static final int EVENTS = 16;

    private final SmbDirectEngine engine;
    private final AcceptHandler acceptHandler;
    private final ListenerEventHandler events;
    private final ArrayDeque<ListenerEventDTO> recentEvents = new ArrayDeque<>();
    private volatile RdmaListener rdmaListener;
    private volatile String state = "OPEN";
    private volatile String stateDetail;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    final AtomicLong connectRequests = new AtomicLong();
    final AtomicLong accepted = new AtomicLong();
    final AtomicLong declined = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong negotiationFailures = new AtomicLong();
    final AtomicInteger negotiating = new AtomicInteger();
    final AtomicInteger connections = new AtomicInteger();
    /** Counters of this listener's closed connections, and connections opened (guarded by the engine). */
    final CountersDTO counted = Counters.zero();

    EngineListener(SmbDirectEngine engine, AcceptHandler acceptHandler, ListenerEventHandler events) {
        this.engine = engine;
        this.acceptHandler = acceptHandler;
        this.events = events;
    }

    SmbDirectEngine engine() {
        return engine;
    }

    void bound(RdmaListener listener) {
        this.rdmaListener = listener;
    }

    AcceptHandler acceptHandler() {
        return acceptHandler;
    }

    @Override
    public void onConnectRequest(RdmaConnectRequest request) {
        connectRequests.incrementAndGet();
        TransportSettings s = engine.settings();
        String refusal = null;
        ListenerEvent.Kind kind = ListenerEvent.Kind.REFUSED_CAP;
        if (!isOpen()) {
            refusal = "listener closed";
            kind = ListenerEvent.Kind.REFUSED_CLOSED;
        } else if (connections.get() + negotiating.get() >= s.maxConnectionsPerListener()) {
            refusal = "maxConnectionsPerListener=" + s.maxConnectionsPerListener() + " reached";
        } else if (negotiating.get() >= s.maxNegotiatingPerListener()) {
            refusal = "maxNegotiatingPerListener=" + s.maxNegotiatingPerListener() + " reached";
        }
        long budget = SmbDirectEngine.budgetFor(s);
        if (refusal == null && !engine.reserveBudget(budget)) {
            refusal = "receiveBufferBudget=" + s.receiveBufferBudget() + " would be exceeded";
            kind = ListenerEvent.Kind.REFUSED_BUDGET;
        }
        if (refusal != null) {
            refused.incrementAndGet();
            LOG.info("connection request from {} refused: {}", request.peerAddress(), refusal);
            request.reject(ByteBuffer.allocate(0));
            CloseReason reason = CloseReason.of(kind == ListenerEvent.Kind.REFUSED_CLOSED
                    ? CloseReason.Kind.LOCAL_CLOSE : CloseReason.Kind.RESOURCE_LIMIT, refusal);
            emit(kind, request.peerAddress(), 0, reason);
            return;
        }
        negotiating.incrementAndGet();
        Connection c = engine.newPassive(this, s, budget);
        c.startPassive(request);
    }

    /** A connection of this listener negotiated; the accept handler is asked next. */
    void onNegotiated(Connection c) {
        negotiating.decrementAndGet();
        connections.incrementAndGet();
    }

    /** The accept handler took the negotiated connection {@code c}. */
    void onAccepted(Connection c) {
        accepted.incrementAndGet();
        emit(ListenerEvent.Kind.ACCEPTED, c.peerAddress(), c.id, null);
    }

    /** The accept handler declined the negotiated connection {@code c} (returned null or threw). */
    void onDeclined(Connection c, CloseReason reason) {
        declined.incrementAndGet();
        emit(ListenerEvent.Kind.DECLINED, c.peerAddress(), c.id, reason);
    }

    /** A connection of this listener closed ({@code established}: it had negotiated). */
    void onClosed(Connection c, boolean established) {
        if (established) {
            connections.decrementAndGet();
        } else {
            negotiating.decrementAndGet();
            negotiationFailures.incrementAndGet();
            emit(engine.negotiationFailure(c));
        }
    }

    private void emit(ListenerEvent.Kind kind, InetSocketAddress peer, long connectionId, CloseReason reason) {
        emit(new ListenerEvent(kind, localAddress(), peer, engine.provider().name(), connectionId, reason,
                Instant.ofEpochMilli(engine.epochMillis())));
    }

    /** Records the event and tells this listener's handler and the engine's. */
    private void emit(ListenerEvent event) {
        ListenerEventDTO dto = SmbDirectEngine.eventDTO(event, "PASSIVE");
        synchronized (recentEvents) {
            recentEvents.addFirst(dto);
            while (recentEvents.size() > EVENTS) {
                recentEvents.removeLast();
            }
        }
        engine.tell(events, event);
        engine.listenerEvent(event);
    }

    @Override
    public void onListenerFailed(DisconnectCause cause, String detail) {
        state = "FAILED";
        stateDetail = cause + (detail == null || detail.isEmpty() ? "" : ": " + detail);
        LOG.warn("listener {} failed: {}", localAddress(), stateDetail);
        engine.onListenerClosed(this);
        closed.complete(null);
    }

    @Override
    public InetSocketAddress localAddress() {
        RdmaListener l = rdmaListener;
        return l == null ? null : l.localAddress();
    }

    @Override
    public String providerName() {
        return engine.provider().name();
    }

    @Override
    public boolean isOpen() {
        return "OPEN".equals(state);
    }

    @Override
    public ListenerDTO getListenerDTO() {
        ListenerDTO d = new ListenerDTO();
        InetSocketAddress a = localAddress();
        d.address = a == null ? null : a.getHostString() + ":" + a.getPort();
        d.provider = engine.provider().name();
        d.state = state;
        d.stateDetail = stateDetail;
        d.connectRequests = connectRequests.get();
        d.accepted = accepted.get();
        d.declined = declined.get();
        d.refused = refused.get();
        d.negotiationFailures = negotiationFailures.get();
        d.negotiating = negotiating.get();
        d.connections = connections.get();
        d.counters = engine.counters(this);
        synchronized (recentEvents) {
            d.events = recentEvents.toArray(new ListenerEventDTO[0]);
        }
        return d;
    }

    @Override
    public CompletionStage<Void> close() {
        if (isOpen()) {
            state = "CLOSED";
            RdmaListener l = rdmaListener;
            if (l != null) {
                l.close();
            }
            engine.onListenerClosed(this);
            closed.complete(null);
        }
        return closed;
    }
}
