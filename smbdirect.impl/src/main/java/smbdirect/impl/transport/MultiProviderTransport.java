package smbdirect.impl.transport;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.AcceptHandler;
import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ListenerEventHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectException;
import smbdirect.api.SmbDirectListener;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ConnectionDTO;
import smbdirect.api.dto.CountersDTO;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.TransportDTO;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.impl.engine.Scheduler;
import smbdirect.impl.engine.TransportSettings;
import smbdirect.impl.trace.TraceSink;

/**
 * The transport over any number of RDMA providers: one {@link ProviderEngine} per provider, new
 * connections and listeners on the <em>selected</em> provider (the best ranked one that matches the
 * provider filter), listeners that follow the selection, and a runtime DTO over all engines.
 *
 * <p>Rules:
 * <ul>
 * <li>A provider that arrives gets its own engine at once; the transport never stops because a
 * provider comes or goes.</li>
 * <li>{@link #connect} uses the provider selected at the time of the call. A connection stays on
 * its provider for its whole life: when a better provider arrives, or the filter no longer matches
 * its provider, it keeps running; it closes only when its provider leaves, after a drain: new
 * connections on that provider are refused at once, each established one may finish what is in
 * flight for the settings' drain time and closes with {@link CloseReason.Kind#PROVIDER_REPLACED}
 * (with {@link CloseReason.Kind#SHUTDOWN} when the runtime stops) as soon as it has nothing in
 * flight, or when that time runs out. {@link #shutdown} drains every provider the same way.</li>
 * <li>Listeners (opened by {@link #listen} or configured) follow the selection: when the selected
 * provider changes they close their endpoint on the old provider (connections already accepted
 * there are not affected) and bind the same address and port on the new one. With no provider
 * they wait (state WAITING) and re-open when one arrives. A bind that fails (state FAILED), and
 * an endpoint the provider closed on its own (device removed), are retried every second.</li>
 * <li>{@link #onProvider} pins new listeners and connections to one provider by name: such a
 * listener stays on a provider of that name (it waits while there is none), a connection runs
 * there until it closes or the provider leaves.</li>
 * </ul>
 *
 * <p>Thread-safe. Control operations (providers, configuration, listeners) are serialized by one
 * lock; {@link #connect} and the DTO snapshot only read a copy of the provider list.
 */
public final class MultiProviderTransport implements SmbDirectTransport {

    private static final Logger LOG = LoggerFactory.getLogger(MultiProviderTransport.class);

    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private static final Comparator<ProviderEntry> BEST_FIRST = Comparator
            .comparingInt((ProviderEntry e) -> -e.ranking)
            .thenComparingLong(e -> e.serviceId);

    private final ProviderEngine.Factory engines;
    private final Scheduler scheduler;
    private final Object lock = new Object();

    // guarded by lock
    private final List<ProviderEntry> providers = new ArrayList<>();
    private final List<RelocatingListener> listeners = new ArrayList<>();
    private final RetiredEngines retired = new RetiredEngines();
    /** Configured listeners without an endpoint whose configuration is refused, by PID, as shown. */
    private final Map<String, ListenerDTO> refusedListeners = new LinkedHashMap<>();
    private TransportSettings settings;
    private ProviderFilter selection;
    private boolean shutDown;
    private Scheduler.Cancellable check;
    private long nextLocalServiceId = Long.MAX_VALUE / 2;

    // the trace sink every engine gets (TraceSink.NONE: off)
    private volatile TraceSink traceSink = TraceSink.NONE;
    // the handler every engine tells of its listeners' events (null: none)
    private volatile ListenerEventHandler listenerEvents;

    // copy-on-write snapshot of providers, best first
    private volatile List<ProviderEntry> snapshot = List.of();

    public MultiProviderTransport(ProviderEngine.Factory engines, Scheduler scheduler, TransportSettings settings,
            ProviderFilter selection) {
        this.engines = Objects.requireNonNull(engines, "engines");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.selection = Objects.requireNonNull(selection, "selection");
    }

    // ---- providers -------------------------------------------------------------------------

    /** A provider arrived; {@code properties} are its service properties. */
    public void addProvider(RdmaProvider provider, Map<String, ?> properties) {
        synchronized (lock) {
            if (shutDown || find(provider) != null) {
                return;
            }
            ProviderEngine engine;
            try {
                engine = engines.create(provider, settings, scheduler);
            } catch (RuntimeException e) {
                LOG.error("RDMA provider {} refused: its engine could not be created",
                        ProviderEntry.describe(provider), e);
                return;
            }
            engine.setTraceSink(traceSink);
            engine.setListenerEventHandler(listenerEvents);
            ProviderEntry entry = new ProviderEntry(provider, engine);
            entry.update(properties, nextLocalServiceId++);
            providers.add(entry);
            providersChanged();
            LOG.info("RDMA provider {} ({}, ranking {}) added; selected provider: {}", entry.name,
                    entry.transportType, entry.ranking, nameOf(selected()));
            reconcileListeners();
        }
    }

    /** Installs {@code sink} on every engine, present and future ({@code null}: off). */
    public void setTraceSink(TraceSink sink) {
        synchronized (lock) {
            traceSink = sink == null ? TraceSink.NONE : sink;
            for (ProviderEntry entry : providers) {
                entry.engine.setTraceSink(traceSink);
            }
        }
    }

    /** Installs the handler told of every listener's events on every engine, present and future. */
    public void setListenerEventHandler(ListenerEventHandler handler) {
        synchronized (lock) {
            listenerEvents = handler;
            for (ProviderEntry entry : providers) {
                entry.engine.setListenerEventHandler(handler);
            }
        }
    }

    /** The service properties of a provider changed (e.g. its ranking). */
    public void updateProvider(RdmaProvider provider, Map<String, ?> properties) {
        synchronized (lock) {
            ProviderEntry entry = find(provider);
            if (entry == null || shutDown) {
                return;
            }
            entry.update(properties, entry.serviceId);
            providersChanged();
            LOG.info("RDMA provider {} updated (ranking {}); selected provider: {}", entry.name, entry.ranking,
                    nameOf(selected()));
            reconcileListeners();
        }
    }

    /**
     * A provider's service was withdrawn while the transport runs (replaced after a configuration
     * change, its bundle updated or stopped: a hot swap): {@link #removeProvider(RdmaProvider, boolean)}
     * with reason {@link CloseReason.Kind#PROVIDER_REPLACED}.
     *
     * @return completes when the provider's engine has drained and shut down
     */
    public CompletionStage<Void> removeProvider(RdmaProvider provider) {
        return removeProvider(provider, false);
    }

    /**
     * A provider's service was withdrawn: listeners on it move to the next selected provider (they
     * stop accepting on it at once), then its engine drains ({@link ProviderEngine#drain}, for the
     * settings' {@link TransportSettings#drainTimeout()}) and closes its connections with
     * {@link CloseReason.Kind#SHUTDOWN} when {@code stopping} (the runtime stops and withdraws its
     * providers) and {@link CloseReason.Kind#PROVIDER_REPLACED} otherwise.
     *
     * @return completes when the provider's engine has drained and shut down
     */
    public CompletionStage<Void> removeProvider(RdmaProvider provider, boolean stopping) {
        Duration drain;
        ProviderEntry entry;
        synchronized (lock) {
            entry = find(provider);
            if (entry == null) {
                return CompletableFuture.completedFuture(null);
            }
            providers.remove(entry);
            retired.retiring(entry);
            providersChanged();
            drain = settings.drainTimeout();
            LOG.info("RDMA provider {} removed{}; its connections are drained for up to {} s, then closed;"
                    + " selected provider: {}", entry.name, stopping ? " (the runtime stops)" : "", drain.toSeconds(),
                    nameOf(selected()));
            if (!shutDown) {
                reconcileListeners();
            }
        }
        return retire(entry, stopping
                ? CloseReason.of(CloseReason.Kind.SHUTDOWN,
                        "SMB Direct runtime stopping: RDMA provider '" + entry.name + "' withdrawn")
                : CloseReason.of(CloseReason.Kind.PROVIDER_REPLACED, "RDMA provider '" + entry.name
                        + "' withdrawn (its service was unregistered: replaced, reconfigured or stopped)"),
                drain);
    }

    private CompletionStage<Void> retire(ProviderEntry entry, CloseReason reason, Duration drain) {
        entry.retiring = reason;
        CompletionStage<Void> done;
        try {
            done = entry.engine.drain(reason, drain);
        } catch (RuntimeException e) {
            LOG.error("Engine of RDMA provider {} failed to shut down", entry.name, e);
            done = CompletableFuture.completedFuture(null);
        }
        return done.handle((v, failure) -> {
            if (failure != null) {
                LOG.warn("Engine of RDMA provider {} shut down with an error", entry.name, failure);
            }
            keepHistory(entry);
            return null;
        });
    }

    private void keepHistory(ProviderEntry entry) {
        CountersDTO counted;
        try {
            counted = entry.engine.counters();
        } catch (RuntimeException e) {
            LOG.debug("No final counters of RDMA provider {}", entry.name, e);
            counted = null;
        }
        synchronized (lock) {
            retired.keepCounters(entry, counted);
        }
        TransportDTO last;
        try {
            last = entry.engine.getTransportDTO();
        } catch (RuntimeException e) {
            LOG.debug("No final state of RDMA provider {}", entry.name, e);
            return;
        }
        synchronized (lock) {
            retired.keep(last);
        }
    }

    // ---- configuration ---------------------------------------------------------------------

    /** New settings and provider filter (already validated). */
    public void configure(TransportSettings newSettings, ProviderFilter newSelection) {
        synchronized (lock) {
            if (shutDown) {
                return;
            }
            settings = Objects.requireNonNull(newSettings, "settings");
            selection = Objects.requireNonNull(newSelection, "selection");
            for (ProviderEntry entry : providers) {
                try {
                    entry.engine.updateSettings(newSettings);
                } catch (RuntimeException e) {
                    LOG.error("RDMA provider {} did not take the new settings", entry.name, e);
                }
            }
            reconcileListeners();
        }
    }

    public TransportSettings settings() {
        synchronized (lock) {
            return settings;
        }
    }

    public ProviderFilter selection() {
        synchronized (lock) {
            return selection;
        }
    }

    /**
     * Closes every listener, then drains every engine ({@link ProviderEngine#drain}, for the
     * settings' {@link TransportSettings#drainTimeout()}) and closes their connections with
     * {@link CloseReason.Kind#SHUTDOWN}.
     *
     * @return completes when all engines have drained and shut down
     */
    public CompletionStage<Void> shutdown() {
        List<ProviderEntry> all;
        Duration drain;
        synchronized (lock) {
            if (shutDown) {
                return CompletableFuture.completedFuture(null);
            }
            shutDown = true;
            if (check != null) {
                check.cancel();
                check = null;
            }
            for (RelocatingListener l : List.copyOf(listeners)) {
                l.closeForShutdown();
            }
            listeners.clear();
            all = List.copyOf(providers);
            drain = settings.drainTimeout();
            if (!all.isEmpty()) {
                LOG.info("SMB Direct transport stopping: listeners closed; connections are drained for up to {} s,"
                        + " then closed", drain.toSeconds());
            }
            all.forEach(retired::retiring);
            providers.clear();
            providersChanged();
        }
        CompletableFuture<?>[] done = all.stream()
                .map(e -> retire(e, CloseReason.of(CloseReason.Kind.SHUTDOWN, "SMB Direct transport stopped"), drain)
                        .toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(done);
    }

    // ---- SmbDirectTransport ----------------------------------------------------------------

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler)
            throws SmbDirectException {
        return listen(bindAddress, acceptHandler, null, null);
    }

    @Override
    public SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
            ListenerEventHandler events) throws SmbDirectException {
        return listen(bindAddress, acceptHandler, null, events);
    }

    /**
     * Opens an API listener on the selected provider ({@code pinned} null; it follows the
     * selection) or on the first provider {@code pinned} matches (it stays on such a provider);
     * its events go to {@code events} (may be null).
     */
    SmbDirectListener listen(InetSocketAddress bindAddress, AcceptHandler acceptHandler,
            PinnedProvider pinned, ListenerEventHandler events) throws SmbDirectException {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(acceptHandler, "acceptHandler");
        synchronized (lock) {
            if (shutDown) {
                throw noProvider("the transport is stopped");
            }
            ProviderEntry entry = pinned == null ? selected() : firstMatching(pinned.filter);
            if (entry == null) {
                throw noProvider(pinned == null ? "no RDMA provider matches " + selection : pinned.missing(providers));
            }
            RelocatingListener listener = new RelocatingListener(this, null, bindAddress,
                    pinned == null ? null : pinned.filter, acceptHandler, events);
            listener.openFirst(entry);
            listeners.add(listener);
            reconcileListeners();
            return listener;
        }
    }

    @Override
    public CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
            ConnectionHandler handler) {
        return connect(peer, timeout, handler, null);
    }

    CompletionStage<SmbDirectConnection> connect(InetSocketAddress peer, Duration timeout,
            ConnectionHandler handler, PinnedProvider pinned) {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(handler, "handler");
        ProviderEntry entry;
        synchronized (lock) {
            entry = shutDown ? null : pinned == null ? selected() : firstMatching(pinned.filter);
            if (entry == null) {
                return CompletableFuture.failedFuture(noProvider(shutDown ? "the transport is stopped"
                        : pinned == null ? "no RDMA provider matches " + selection : pinned.missing(providers)));
            }
        }
        return entry.engine.connect(peer, timeout, new ProviderBoundHandler(handler, entry));
    }

    @Override
    public SmbDirectTransport onProvider(String providerName) {
        return new PinnedProvider(this, providerName);
    }

    /**
     * Closes the live connection {@code id} (on provider {@code provider}, or on the one provider
     * where it is live when {@code null}) with {@code reason}.
     *
     * @return completes when it is released, or {@code null} when no live connection matches
     * @throws IllegalArgumentException when the id is live on more than one provider and none is named
     */
    public CompletionStage<Void> closeConnection(long id, String provider, CloseReason reason) {
        Objects.requireNonNull(reason, "reason");
        List<ProviderEntry> holders = new ArrayList<>();
        for (ProviderEntry e : snapshot) {
            if ((provider == null || provider.equals(e.name)) && hasLive(e, id)) {
                holders.add(e);
            }
        }
        if (holders.size() > 1) {
            throw new IllegalArgumentException("connection id " + id + " is live on providers "
                    + holders.stream().map(e -> e.name).toList() + "; name the provider");
        }
        if (holders.isEmpty()) {
            return null;
        }
        ProviderEntry entry = holders.get(0);
        CompletionStage<Void> closing = entry.engine.closeConnection(id, reason);
        if (closing != null) {
            LOG.info("Connection {} on RDMA provider {} closed: {}", id, entry.name, reason);
        }
        return closing;
    }

    private static boolean hasLive(ProviderEntry entry, long id) {
        ConnectionDTO[] live = entry.engine.getTransportDTO().connections;
        if (live != null) {
            for (ConnectionDTO c : live) {
                if (c.id == id) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Opens a listener configured by a {@code smbdirect.listener} configuration: it waits (state
     * WAITING) until an accept handler is set and a provider is available.
     *
     * @param providerFilter the listener's own provider filter, or {@code null} to follow the
     *     transport's selection
     */
    public RelocatingListener openConfigured(String name, InetSocketAddress bindAddress, ProviderFilter providerFilter,
            String whyWaiting) {
        synchronized (lock) {
            RelocatingListener listener = new RelocatingListener(this, name, bindAddress, providerFilter, null, null);
            listener.setAcceptHandler(null, whyWaiting); // before the listener is visible
            if (shutDown) {
                listener.closeForShutdown();
                return listener;
            }
            listeners.add(listener);
            reconcileListeners();
            return listener;
        }
    }

    /**
     * Shows {@code shown} (state FAILED) among the listeners for the refused configuration
     * {@code key} of a listener that has no endpoint; {@code null} stops showing it.
     */
    public void configurationRefused(String key, ListenerDTO shown) {
        synchronized (lock) {
            if (shown == null) {
                refusedListeners.remove(key);
            } else {
                refusedListeners.put(key, shown);
            }
        }
    }

    @Override
    public TransportDTO getTransportDTO() {
        List<ProviderEntry> entries;
        ProviderEntry chosen;
        List<RelocatingListener> ls;
        TransportSettings s;
        RetiredEngines.Snapshot gone;
        List<ListenerDTO> refused;
        ProviderFilter filter;
        synchronized (lock) {
            filter = selection;
            entries = List.copyOf(providers);
            chosen = selected();
            ls = List.copyOf(listeners);
            s = settings;
            gone = retired.snapshot();
            refused = List.copyOf(refusedListeners.values());
        }
        return TransportDTOs.assemble(entries, chosen, ls, refused, s, filter, gone);
    }

    // ---- listeners -------------------------------------------------------------------------

    /**
     * Re-evaluates where every listener belongs, and keeps the listener check running while there
     * are listeners. Called with the lock held.
     */
    private void reconcileListeners() {
        for (RelocatingListener l : listeners) {
            l.reconcile(targetFor(l));
        }
        if (check == null && !shutDown && !listeners.isEmpty()) {
            check = scheduler.schedule(this::checkListeners, CHECK_NANOS);
        }
    }

    /**
     * Every second while listeners exist: re-binds listeners whose bind failed and listeners whose
     * endpoint the provider closed (device removed), which the listener API does not report.
     */
    private void checkListeners() {
        synchronized (lock) {
            check = null;
            if (!shutDown) {
                reconcileListeners();
            }
        }
    }

    /** Re-evaluates after a listener's accept handler changed. */
    void listenerChanged() {
        synchronized (lock) {
            if (!shutDown) {
                reconcileListeners();
            }
        }
    }

    void listenerClosed(RelocatingListener listener) {
        synchronized (lock) {
            listeners.remove(listener);
        }
    }

    Object lock() {
        return lock;
    }

    /** The provider a listener belongs on (lock held). */
    private ProviderEntry targetFor(RelocatingListener listener) {
        ProviderFilter own = listener.providerFilter();
        return own == null ? selected() : firstMatching(own);
    }

    /** The best ranked provider {@code filter} matches (lock held). */
    private ProviderEntry firstMatching(ProviderFilter filter) {
        for (ProviderEntry e : providers) {
            if (filter.matches(e.properties)) {
                return e;
            }
        }
        return null;
    }

    /** The provider new connections use (lock held). */
    private ProviderEntry selected() {
        for (ProviderEntry e : providers) {
            if (selection.matches(e.properties)) {
                return e;
            }
        }
        return null;
    }

    String describeTarget(RelocatingListener listener) {
        ProviderFilter own = listener.providerFilter();
        return own != null ? own.toString() : selection.toString();
    }

    private void providersChanged() {
        providers.sort(BEST_FIRST);
        snapshot = List.copyOf(providers);
    }

    /** Providers best first (a snapshot). */
    List<String> providerNames() {
        return snapshot.stream().map(e -> e.name).toList();
    }

    private ProviderEntry find(RdmaProvider provider) {
        for (ProviderEntry e : providers) {
            if (e.provider == provider) {
                return e;
            }
        }
        return null;
    }

    private static String nameOf(ProviderEntry e) {
        return e == null ? "none" : e.name;
    }

    static SmbDirectException noProvider(String detail) {
        return new SmbDirectException(SmbDirectException.Kind.NO_PROVIDER, "no RDMA provider available: " + detail,
                CloseReason.of(CloseReason.Kind.PROVIDER_GONE, detail), null);
    }
}
