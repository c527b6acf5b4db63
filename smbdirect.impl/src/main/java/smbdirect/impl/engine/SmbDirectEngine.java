package smbdirect.impl.engine;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.AcceptHandler;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEvent;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.ListenerEventDTO;
import smbdirect.api.dto.ProviderDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.trace.TraceSink;

/**
 * The [MS-SMBD] protocol engine over one {@link RdmaProvider}: opens listeners (passive role) and
 * connections (active role) and runs every connection's state machine.
 *
 * <p>No threads and no clock of its own: time and timers come from the injected {@link Scheduler},
 * work runs on the threads that call in (upper layer, provider completions, timer) through each
 * connection's serial context. No OSGi dependency.
 *
 * <p>Thread-safe. Settings are replaced atomically by {@link #updateSettings}: new connections
 * negotiate with the new values, live connections keep their negotiated sizes and credits and
 * apply the new timer values at once.
 */
public final class SmbDirectEngine implements SmbDirectTransport {

    private static final Logger LOG = LoggerFactory.getLogger(SmbDirectEngine.class);
    private static final int HISTORY = 32;
    private static final int FAILURE_EVENTS = 16;

    private final RdmaProvider provider;
    private final Scheduler scheduler;
    private volatile TransportSettings settings;
    private volatile TraceSink traceSink = TraceSink.NONE;
    private volatile ListenerEventHandler listenerEvents;
    private volatile CallbackFailureHandler callbackFailures;
    private final long epochMillisAtStart;
    private final long nanosAtStart;
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong budgetUsed = new AtomicLong();
    private final AtomicLong negotiationFailures = new AtomicLong();
    private volatile String lastNegotiationFailure;
    private final ConcurrentHashMap<Long, Connection> connections = new ConcurrentHashMap<>();
    private final Set<EngineListener> listeners = ConcurrentHashMap.newKeySet();
    private final ArrayDeque<ConnectionDTO> recentlyClosed = new ArrayDeque<>();
    private final ArrayDeque<ListenerEventDTO> failureEvents = new ArrayDeque<>();
    private volatile CloseReason shutdownReason;
    /**
     * Guards {@link #counted} and every listener's: a connection leaves {@link #connections} and
     * its final counters are added in one step, so that a snapshot counts it once.
     */
    private final Object countersLock = new Object();
    /** Connections opened, closed by reason, and the traffic of the closed ones. */
    private final CountersDTO counted = Counters.zero();

    /**
     * @param provider the RDMA provider every connection and listener of this engine uses
     * @param settings the initial settings
     * @param scheduler time and timers
     */
    public SmbDirectEngine(RdmaProvider provider, TransportSettings settings, Scheduler scheduler) {
        this.provider = Objects.requireNonNull(provider, "provider");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.epochMillisAtStart = System.currentTimeMillis();
        this.nanosAtStart = scheduler.nanoTime();
    }

    /** The provider this engine runs over. */
    public RdmaProvider provider() {
        return provider;
    }

    /** The settings new connections negotiate with. */
    public TransportSettings settings() {
        return settings;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Milliseconds since the epoch on the scheduler's clock (for DTOs only). */
    long epochMillis() {
        return epochMillisAtStart + (scheduler.nanoTime() - nanosAtStart) / 1_000_000L;
    }

    /**
     * Replaces the settings: new connections negotiate with them; live connections keep their
     * negotiated values and re-arm their timers with the new timer values at once. Calls are taken
     * one at a time, so that every live connection ends with the settings of the last call.
     */
    public synchronized void updateSettings(TransportSettings newSettings) {
        this.settings = Objects.requireNonNull(newSettings, "settings");
        for (Connection c : connections.values()) {
            c.onSettingsChanged(newSettings);
        }
    }

    /**
     * Installs the sink told of every SMBD message sent and received ({@link TraceSink#NONE} turns
     * tracing off; the off state costs one volatile read per message).
     */
    public void setTraceSink(TraceSink sink) {
        this.traceSink = sink == null ? TraceSink.NONE : sink;
    }

    /**
     * Installs the handler told of the events of every listener of this engine, in addition to each
     * listener's own ({@code null}: none).
     */
    public void setListenerEventHandler(ListenerEventHandler handler) {
        this.listenerEvents = handler;
    }

    void listenerEvent(ListenerEvent event) {
        tell(listenerEvents, event);
    }

    /**
     * Tells {@code handler} (if any) of {@code event}; what it throws is logged and reported to the
     * callback-failure handler, and changes nothing else.
     */
    void tell(ListenerEventHandler handler, ListenerEvent event) {
        if (handler != null) {
            try {
                handler.onEvent(event);
            } catch (Throwable e) {
                LOG.error("listener event handler failed on {}", event, e);
                callbackFailed("ListenerEventHandler.onEvent", event.connectionId(), e);
            }
        }
    }

    /**
     * Installs the handler told of every callback of the upper layer that threw, after the engine
     * logged it and closed the connection concerned ({@code null}: none).
     */
    public void setCallbackFailureHandler(CallbackFailureHandler handler) {
        this.callbackFailures = handler;
    }

    /** A callback of the upper layer threw: the callback-failure handler (if any) is told. */
    void callbackFailed(String callback, long connectionId, Throwable failure) {
        CallbackFailureHandler h = callbackFailures;
        if (h != null) {
            try {
                h.callbackFailed(callback, connectionId, failure);
            } catch (RuntimeException e) {
                LOG.warn("callback-failure handler failed", e);
            }
        }
    }

    static ListenerEventDTO eventDTO(ListenerEvent e, String role) {
        ListenerEventDTO d = new ListenerEventDTO();
        d.kind = e.kind().name();
        d.role = role;
        d.listener = Connection.text(e.listenerAddress());
        d.peerAddress = Connection.text(e.peerAddress());
        d.provider = e.provider();
        d.connectionId = e.connectionId();
        if (e.reason() != null) {
            d.reasonKind = e.reason().kind().name();
            d.rule = e.reason().rule();
            d.detail = e.reason().detail();
        }
        d.timestampMillis = e.timestamp().toEpochMilli();
        return d;
    }

    void trace(Connection c, boolean outbound, ByteBuffer buffer, int offset, int length) {
        TraceSink t = traceSink;
        if (t != TraceSink.NONE) {
            try {
                ByteBuffer view = buffer.duplicate();
                view.clear();
                view.position(offset);
                view.limit(offset + length);
                long micros = epochMillisAtStart * 1000L + (scheduler.nanoTime() - nanosAtStart) / 1000L;
                t.record(c.initiator == outbound, view, micros);
            } catch (RuntimeException e) {
                LOG.debug("trace sink failed", e);
            }
        }
        if (LOG.isTraceEnabled()) {
            LOG.trace("connection {} {} {} bytes", c.id, outbound ? "sent" : "received", length);
        }
    }

    /**
     * Closes every connection and listener of this engine with {@code reason} at once (for example
     * {@link CloseReason.Kind#PROVIDER_GONE} when the provider leaves); later operations fail with it.
     * {@link #drain} with no drain time.
     *
     * @return completes when every connection is released
     */
    public CompletionStage<Void> shutdown(CloseReason reason) {
        return drain(reason, Duration.ZERO);
    }

    /**
     * Drains this engine and closes it with {@code reason}: its listeners close and new connections
     * (incoming, outgoing, and those still negotiating) are refused at once; each established
     * connection goes on finishing what is in flight ({@link Connection#workInFlight}), the upper
     * layer's new sends included, and closes with {@code reason} as soon as it has nothing in
     * flight; when {@code timeout} runs out the rest close with {@code reason}, its detail saying
     * what was left. {@link Duration#ZERO} closes everything at once. Later operations fail with
     * {@code reason}.
     *
     * @return completes when every connection is released
     */
    public CompletionStage<Void> drain(CloseReason reason, Duration timeout) {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(timeout, "timeout");
        shutdownReason = reason;
        for (EngineListener l : List.copyOf(listeners)) {
            l.close();
        }
        if (timeout.isZero() || timeout.isNegative()) {
            for (Connection c : List.copyOf(connections.values())) {
                c.closing.closeAsync(reason);
            }
            return released(reason);
        }
        if (!connections.isEmpty()) {
            LOG.info("{}: draining {} connection(s) for up to {} s: {}", provider.name(), connections.size(),
                    timeout.toSeconds(), reason);
        }
        CompletableFuture<Void> done = released(reason);
        drainStep(reason, timeout, scheduler.nanoTime() + timeout.toNanos(), done);
        return done;
    }

    /** How often a drain looks again at the connections with work in flight. */
    private static final long DRAIN_CHECK_NANOS = 20_000_000L;

    private void drainStep(CloseReason reason, Duration timeout, long deadline, CompletableFuture<Void> done) {
        if (done.isDone()) {
            return;
        }
        long left = deadline - scheduler.nanoTime();
        Duration ranOut = left <= 0 ? timeout : null;
        for (Connection c : List.copyOf(connections.values())) {
            c.drain(reason, ranOut);
        }
        if (ranOut == null) {
            scheduler.schedule(() -> drainStep(reason, timeout, deadline, done), Math.min(left, DRAIN_CHECK_NANOS));
        }
    }

    /**
     * Completes when every connection live now is released, and any that arrived meanwhile (a
     * request the closing listener was handling), which is closed with {@code reason}.
     */
    private CompletableFuture<Void> released(CloseReason reason) {
        List<Connection> live = List.copyOf(connections.values());
        if (live.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(live.stream().map(c -> c.closing.closedFuture())
                .toArray(CompletableFuture<?>[]::new)).thenCompose(v -> {
                    for (Connection late : List.copyOf(connections.values())) {
                        late.closing.closeAsync(reason);
                    }
                    return released(reason);
                });
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler)
            throws SmbDirectException {
        return listen(bindAddress, acceptHandler, null);
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
            ListenerEventHandler events) throws SmbDirectException {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(acceptHandler, "acceptHandler");
        CloseReason down = shutdownReason;
        if (down != null) {
            throw new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER, "the transport is shut down: " + down,
                    down, null);
        }
        EngineListener l = new EngineListener(this, acceptHandler, events);
        try {
            RdmaListener rl = provider.listen(bindAddress, l);
            l.bound(rl);
        } catch (RdmaException e) {
            throw new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR,
                    "cannot listen on " + bindAddress + ": " + e.getMessage(), null, e);
        }
        listeners.add(l);
        LOG.info("listening on {} ({})", l.localAddress(), provider.name());
        return l;
    }

    @Override
    public CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
            ConnectionHandler handler) {
        CompletableFuture<SmbDirectConnection> result = new CompletableFuture<>();
        if (peer == null || handler == null) {
            result.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT,
                    "peer and handler are required"));
            return result;
        }
        Duration t = timeout == null ? settings.activeNegotiationTimeout() : timeout;
        if (t.isZero() || t.isNegative()) {
            result.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT,
                    "timeout must be positive: " + t));
            return result;
        }
        CloseReason down = shutdownReason;
        if (down != null) {
            result.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER,
                    "the transport is shut down: " + down, down, null));
            return result;
        }
        TransportSettings s = settings;
        long budget = budgetFor(s);
        if (!reserveBudget(budget)) {
            CloseReason r = CloseReason.of(CloseReason.Kind.RESOURCE_LIMIT,
                    "receiveBufferBudget=" + s.receiveBufferBudget() + " would be exceeded");
            result.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.RESOURCE, r.detail(), r, null));
            return result;
        }
        Connection c = new Connection(this, ids.incrementAndGet(), true, null, s, budget);
        connections.put(c.id, c);
        settingsChangedMeanwhile(c, s);
        c.startActive(peer, t, handler, result);
        return result;
    }

    Connection newPassive(EngineListener listener, TransportSettings s, long budget) {
        Connection c = new Connection(this, ids.incrementAndGet(), false, listener, s, budget);
        connections.put(c.id, c);
        settingsChangedMeanwhile(c, s);
        return c;
    }

    /**
     * A new connection {@code c}, made with {@code s}, is now among the live ones: settings replaced
     * meanwhile (by an {@link #updateSettings} that did not find it yet) are given to it now, so its
     * timers follow the settings as they stand, as those of every live connection do.
     */
    private void settingsChangedMeanwhile(Connection c, TransportSettings s) {
        TransportSettings now = settings;
        if (now != s) {
            c.onSettingsChanged(now);
        }
    }

    /** Receive memory one connection may hold: (ReceiveCreditMax + 1) receives plus the initial one. */
    static long budgetFor(TransportSettings s) {
        return (long) (s.receiveCreditMax() + 1) * s.maxReceiveSize() + 512;
    }

    boolean reserveBudget(long bytes) {
        long limit = settings.receiveBufferBudget();
        for (;;) {
            long used = budgetUsed.get();
            if (used + bytes > limit) {
                return false;
            }
            if (budgetUsed.compareAndSet(used, used + bytes)) {
                return true;
            }
        }
    }

    /** Bytes of the receive-buffer budget in use. */
    long budgetUsed() {
        return budgetUsed.get();
    }

    void onEstablished(Connection c) {
        synchronized (countersLock) {
            counted.connectionsOpened++;
            if (c.listener != null) {
                c.listener.counted.connectionsOpened++;
            }
        }
        if (c.listener != null) {
            c.listener.onNegotiated(c);
        }
        LOG.info(c.describeNegotiated());
    }

    void onClosed(Connection c, Connection.State from) {
        synchronized (countersLock) {
            connections.remove(c.id);
            c.addTrafficTo(counted);
            Counters.addClose(counted, c.closeReason());
            if (c.listener != null) {
                c.addTrafficTo(c.listener.counted);
                Counters.addClose(c.listener.counted, c.closeReason());
            }
        }
        budgetUsed.addAndGet(-c.budget());
        boolean established = from == Connection.State.ESTABLISHED;
        if (c.listener != null) {
            c.listener.onClosed(c, established);
        }
        CloseReason.Kind kind = c.closeReason() == null ? null : c.closeReason().kind();
        if (from == Connection.State.NEGOTIATING || kind == CloseReason.Kind.NEGOTIATION_FAILED
                || kind == CloseReason.Kind.NEGOTIATION_TIMEOUT) {
            negotiationFailures.incrementAndGet();
            lastNegotiationFailure = "connection " + c.id + " " + c.closeReason();
            ListenerEventDTO event = eventDTO(negotiationFailure(c), c.initiator ? "ACTIVE" : "PASSIVE");
            synchronized (failureEvents) {
                failureEvents.addFirst(event);
                while (failureEvents.size() > FAILURE_EVENTS) {
                    failureEvents.removeLast();
                }
            }
        }
        ConnectionDTO dto = c.getConnectionDTO();
        synchronized (recentlyClosed) {
            recentlyClosed.addFirst(dto);
            while (recentlyClosed.size() > HISTORY) {
                recentlyClosed.removeLast();
            }
        }
    }

    /**
     * The counters of {@code listener}'s connections: those it counted at their close, and the
     * traffic of its live ones.
     */
    CountersDTO counters(EngineListener listener) {
        CountersDTO total;
        synchronized (countersLock) {
            total = Counters.copy(listener.counted);
            for (Connection c : connections.values()) {
                if (c.listener == listener) {
                    c.addTrafficTo(total);
                }
            }
        }
        return total;
    }

    /**
     * The counters that only go up of this engine: connections opened, closed by reason, and the
     * traffic of the closed and the live connections. Asks the provider nothing: also the final
     * counts of an engine whose provider left.
     */
    public CountersDTO counters() {
        CountersDTO total;
        synchronized (countersLock) {
            total = Counters.copy(counted);
            for (Connection c : connections.values()) {
                c.addTrafficTo(total);
            }
        }
        return total;
    }

    /** The event of {@code c}'s failed negotiation. */
    ListenerEvent negotiationFailure(Connection c) {
        CloseReason reason = c.closeReason() != null ? c.closeReason()
                : CloseReason.of(CloseReason.Kind.NEGOTIATION_FAILED, "closed while negotiating");
        return new ListenerEvent(reason.kind() == CloseReason.Kind.NEGOTIATION_TIMEOUT
                ? ListenerEvent.Kind.NEGOTIATION_TIMEOUT : ListenerEvent.Kind.NEGOTIATION_FAILED,
                c.listener == null ? null : c.listener.localAddress(), c.peerAddress(), provider.name(), c.id,
                reason, Instant.ofEpochMilli(epochMillis()));
    }

    void onListenerClosed(EngineListener l) {
        listeners.remove(l);
    }

    /**
     * Closes the live connection {@code id} with {@code reason} (an operator's close of any
     * connection, whoever owns it); its upper layer is told through
     * {@code ConnectionHandler.onDisconnected} as for any other close.
     *
     * @return completes when the connection is released, or {@code null} when no live connection
     *     of this engine has that id
     */
    public CompletionStage<Void> closeConnection(long id, CloseReason reason) {
        Objects.requireNonNull(reason, "reason");
        Connection c = connections.get(id);
        return c == null ? null : c.closing.closeAsync(reason);
    }

    /** Live connections (for tests and management). */
    int connectionCount() {
        return connections.size();
    }

    /** The live connection with {@code id}, or null. */
    Connection connection(long id) {
        return connections.get(id);
    }

    @Override
    public TransportDTO getTransportDTO() {
        TransportDTO d = new TransportDTO();
        ProviderDTO p = new ProviderDTO();
        p.name = provider.name();
        p.transportType = provider.transportType().name();
        p.selected = true;
        p.connections = connections.size();
        p.listeners = listeners.size();
        p.capabilities = String.valueOf(provider.capabilities());
        p.settings = provider.describeSettings();
        p.statistics = provider.describeStatistics();
        d.providers = new ProviderDTO[] {p};
        d.listeners = listeners.stream().map(EngineListener::getListenerDTO).toArray(ListenerDTO[]::new);
        d.connections = connections.values().stream().map(Connection::getConnectionDTO).toArray(ConnectionDTO[]::new);
        p.counters = counters();
        synchronized (recentlyClosed) {
            d.recentlyClosed = recentlyClosed.toArray(new ConnectionDTO[0]);
        }
        d.negotiationFailures = negotiationFailures.get();
        setLastNegotiationFailure(d, lastNegotiationFailure);
        synchronized (failureEvents) {
            d.negotiationFailureEvents = failureEvents.toArray(new ListenerEventDTO[0]);
        }
        d.settings = settings.toDTO();
        return d;
    }

    /**
     * This engine when {@code providerName} is its provider's name; otherwise a transport whose
     * {@code listen} throws and whose {@code connect} fails with NO_PROVIDER: an engine runs over
     * one provider.
     */
    @Override
    public SmbDirectTransport onProvider(String providerName) {
        Objects.requireNonNull(providerName, "providerName");
        if (providerName.equals(provider.name())) {
            return this;
        }
        SmbDirectEngine engine = this;
        String why = "no RDMA provider named '" + providerName + "' (this engine runs over " + provider.name() + ")";
        return new SmbDirectTransport() {
            @Override
            public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler)
                    throws SmbDirectException {
                throw new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER, why);
            }

            @Override
            public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
                    ListenerEventHandler events) throws SmbDirectException {
                throw new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER, why);
            }

            @Override
            public CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
                    ConnectionHandler handler) {
                return CompletableFuture.failedFuture(new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER, why));
            }

            @Override
            public TransportDTO getTransportDTO() {
                return engine.getTransportDTO();
            }

            @Override
            public SmbDirectTransport onProvider(String name) {
                return engine.onProvider(name);
            }
        };
    }

    @SuppressWarnings("removal")
    private static void setLastNegotiationFailure(TransportDTO d, String text) {
        d.lastNegotiationFailure = text;
    }
}
