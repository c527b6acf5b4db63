package smbdirect.impl.transport;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.AcceptHandler;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.impl.engine.Counters;
import smbdirect.api.dto.ListenerEventDTO;

/**
 * A listener that stays bound to one address while the provider under it changes: it holds the
 * engine's listener on the current provider and re-opens it (same address, same port) on the provider
 * its transport designates. Its DTO counters add up over every provider it was bound on; the live
 * counts ({@code negotiating}, {@code connections}) are those of the current provider, and its last
 * events span the providers too.
 *
 * <p>States: OPEN (bound on a provider), WAITING (no provider, or no accept handler for a configured
 * listener), FAILED (the bind failed; retried), CLOSED.
 *
 * <p>Thread-safe: state changes happen under the transport's lock; the accept path reads one
 * volatile field.
 */
public final class RelocatingListener implements SmbDirectListener {

    private static final Logger LOG = LoggerFactory.getLogger(RelocatingListener.class);

    static final String OPEN = "OPEN";
    static final String WAITING = "WAITING";
    static final String FAILED = "FAILED";
    static final String CLOSED = "CLOSED";

    private final MultiProviderTransport transport;
    private final String name;
    private final InetSocketAddress requested;
    private final ProviderFilter providerFilter;
    private final ListenerEventHandler events;

    private volatile AcceptHandler acceptHandler;
    private volatile String waitingForHandler = "no accept handler";

    // guarded by transport.lock()
    private SmbDirectListener delegate;
    private ProviderEntry delegateEntry;
    private InetSocketAddress bound;
    private String state = WAITING;
    private String stateDetail;
    private final ListenerDTO retired = new ListenerDTO();
    private List<ListenerEventDTO> retiredEvents = List.of();
    /** The counters of endpoints this listener left, whose connections have all closed. */
    private final CountersDTO retiredCounters = Counters.zero();
    /** Endpoints this listener left that still have live or negotiating connections. */
    private final List<SmbDirectListener> detached = new ArrayList<>();

    RelocatingListener(MultiProviderTransport transport, String name, InetSocketAddress requested,
            ProviderFilter providerFilter, AcceptHandler acceptHandler, ListenerEventHandler events) {
        this.transport = transport;
        this.name = name;
        this.requested = requested;
        this.providerFilter = providerFilter;
        this.acceptHandler = acceptHandler;
        this.events = events;
    }

    /** The listener's own provider filter, or {@code null} when it follows the transport's selection. */
    ProviderFilter providerFilter() {
        return providerFilter;
    }

    /**
     * Sets the handler accepted connections go to; {@code null} closes the endpoint and the listener
     * waits (state WAITING, {@code whyWaiting} as detail).
     */
    public void setAcceptHandler(AcceptHandler handler, String whyWaiting) {
        acceptHandler = handler;
        if (whyWaiting != null) {
            waitingForHandler = whyWaiting;
        }
        transport.listenerChanged();
    }

    /** The accept handler given to the engine of {@code entry}. */
    private AcceptHandler dispatchFor(ProviderEntry entry) {
        return connection -> {
            ConnectionHandler h = dispatch(connection);
            return h == null ? null : new ProviderBoundHandler(h, entry);
        };
    }

    private ConnectionHandler dispatch(SmbDirectConnection connection) {
        AcceptHandler h = acceptHandler;
        if (h == null) {
            LOG.warn("Listener {}: connection {} from {} closed: {}", label(), connection.id(),
                    connection.peerAddress(), waitingForHandler);
            return null;
        }
        return h.accepted(connection); // what it throws, the engine reports (HANDLER_FAILED, DECLINED)
    }

    /** First bind of an API listener: failures are thrown (lock held). */
    void openFirst(ProviderEntry entry) throws SmbDirectException {
        SmbDirectListener l = entry.engine.listen(requested, dispatchFor(entry), events);
        attach(entry, l);
    }

    /** Moves to {@code target} if needed (lock held). */
    void reconcile(ProviderEntry target) {
        if (CLOSED.equals(state)) {
            return;
        }
        if (acceptHandler == null) {
            detach();
            setState(WAITING, waitingForHandler);
            return;
        }
        if (target == null) {
            detach();
            setState(WAITING, "no RDMA provider matches " + transport.describeTarget(this));
            return;
        }
        if (delegate != null && delegateEntry == target) {
            if (delegate.isOpen()) {
                return;
            }
            LOG.warn("Listener {}: RDMA provider {} closed its endpoint; re-opening", label(), target.name);
        }
        String from = delegateEntry == null ? null : delegateEntry.name;
        detach();
        InetSocketAddress address = bound != null ? bound : requested;
        try {
            attach(target, target.engine.listen(address, dispatchFor(target), events));
            if (from != null) {
                LOG.info("Listener {} moved from RDMA provider {} to {}", label(), from, target.name);
            }
        } catch (SmbDirectException | RuntimeException e) {
            boolean first = !FAILED.equals(state);
            setState(FAILED, "bind on RDMA provider " + target.name + " failed: " + e.getMessage());
            if (first) {
                LOG.warn("Listener {}: {}; retrying every second", label(), stateDetail);
            } else {
                LOG.debug("Listener {}: {}", label(), stateDetail);
            }
        }
    }

    private void attach(ProviderEntry entry, SmbDirectListener l) {
        delegate = l;
        delegateEntry = entry;
        bound = l.localAddress();
        setState(OPEN, null);
        LOG.info("Listener {} open on RDMA provider {} at {}", label(), entry.name, bound);
    }

    private CompletionStage<Void> detach() {
        SmbDirectListener d = delegate;
        if (d == null) {
            return CompletableFuture.completedFuture(null);
        }
        ListenerDTO last = d.getListenerDTO();
        retired.connectRequests += last.connectRequests;
        retired.accepted += last.accepted;
        retired.declined += last.declined;
        retired.refused += last.refused;
        retired.negotiationFailures += last.negotiationFailures;
        retiredEvents = merge(retiredEvents, last.events);
        detached.add(d);
        delegate = null;
        delegateEntry = null;
        try {
            return d.close();
        } catch (RuntimeException e) {
            LOG.warn("Listener {}: closing the endpoint failed", label(), e);
            return CompletableFuture.completedFuture(null);
        }
    }

    private void setState(String s, String detail) {
        state = s;
        stateDetail = detail;
    }

    ProviderEntry currentEntry() {
        synchronized (transport.lock()) {
            return delegateEntry;
        }
    }

    void closeForShutdown() {
        synchronized (transport.lock()) {
            detach();
            setState(CLOSED, "transport stopped");
        }
    }

    private String label() {
        return (name != null ? name + " " : "") + (bound != null ? bound : requested);
    }

    @Override
    public InetSocketAddress localAddress() {
        synchronized (transport.lock()) {
            return bound != null ? bound : requested;
        }
    }

    @Override
    public String providerName() {
        synchronized (transport.lock()) {
            return delegateEntry == null ? null : delegateEntry.name;
        }
    }

    /** True until {@link #close()}: a listener without a provider re-opens when one arrives. */
    @Override
    public boolean isOpen() {
        synchronized (transport.lock()) {
            return !CLOSED.equals(state);
        }
    }

    /** The state: OPEN, WAITING, FAILED or CLOSED. */
    String state() {
        synchronized (transport.lock()) {
            return state;
        }
    }

    @Override
    public ListenerDTO getListenerDTO() {
        SmbDirectListener d;
        List<SmbDirectListener> left;
        ListenerDTO dto = new ListenerDTO();
        synchronized (transport.lock()) {
            d = delegate;
            left = List.copyOf(detached);
            dto.counters = Counters.copy(retiredCounters);
            dto.name = name;
            dto.address = hostPort(bound != null ? bound : requested);
            dto.provider = delegateEntry == null ? null : delegateEntry.name;
            dto.state = state;
            dto.stateDetail = stateDetail;
            dto.connectRequests = retired.connectRequests;
            dto.accepted = retired.accepted;
            dto.declined = retired.declined;
            dto.refused = retired.refused;
            dto.negotiationFailures = retired.negotiationFailures;
            dto.events = retiredEvents.toArray(ListenerEventDTO[]::new);
        }
        if (d != null) {
            ListenerDTO now = d.getListenerDTO();
            dto.connectRequests += now.connectRequests;
            dto.accepted += now.accepted;
            dto.declined += now.declined;
            dto.refused += now.refused;
            dto.negotiationFailures += now.negotiationFailures;
            dto.negotiating = now.negotiating;
            dto.connections = now.connections;
            dto.events = merge(List.of(dto.events), now.events).toArray(ListenerEventDTO[]::new);
            Counters.add(dto.counters, now.counters);
        }
        for (SmbDirectListener l : left) {
            Counters.ListenerCounts then = Counters.ofListener(l); // asks no provider: it may have left
            Counters.add(dto.counters, then.counters());
            if (then.finished()) {
                // its connections are all closed: its counters are final
                synchronized (transport.lock()) {
                    if (detached.remove(l)) {
                        Counters.add(retiredCounters, then.counters());
                    }
                }
            }
        }
        return dto;
    }

    @Override
    public CompletionStage<Void> close() {
        CompletionStage<Void> done;
        synchronized (transport.lock()) {
            if (CLOSED.equals(state)) {
                return CompletableFuture.completedFuture(null);
            }
            done = detach();
            setState(CLOSED, null);
        }
        transport.listenerClosed(this);
        return done;
    }

    /**
     * The events of the listener's current engine ({@code newer}, newest first) and those kept from
     * earlier ones ({@code older}), newest first; within one millisecond the current engine's come
     * first, as they happened later (the sort keeps the order of equal timestamps).
     */
    private static List<ListenerEventDTO> merge(List<ListenerEventDTO> older, ListenerEventDTO[] newer) {
        List<ListenerEventDTO> all = new ArrayList<>();
        if (newer != null) {
            all.addAll(List.of(newer));
        }
        all.addAll(older);
        return TransportDTOs.newestFirst(all, TransportDTOs.FAILURE_EVENTS);
    }

    static String hostPort(InetSocketAddress a) {
        return a == null ? null : a.getHostString() + ":" + a.getPort();
    }

    @Override
    public String toString() {
        return "Listener[" + label() + "]";
    }
}
