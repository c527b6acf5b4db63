package smbdirect.rdma.mock.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.settings.SettingRefusedException;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockEndpoint;
import smbdirect.rdma.mock.MockFabricStats;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.mock.RawPeer;

/**
 * The fabric: providers, the listener table, the endpoint registry, token and address
 * allocation and, in {@link DeliveryMode#DETERMINISTIC}, the global action queue. Thread-safe;
 * the data path takes only the connection's lock (plus the action-queue lock in deterministic
 * mode).
 */
public final class FabricImpl {
    private static final Logger LOG = LoggerFactory.getLogger(FabricImpl.class);
    private static final int STEP_LIMIT = 10_000_000;
    private static final int FIRST_EPHEMERAL_PORT = 49152;
    /** INLINE: how many deliveries may nest on one thread before further work is trampolined. */
    static final int INLINE_DEPTH = 4;

    /**
     * INLINE: per-thread nesting depth and the targets whose delivery was deferred. Only its
     * thread touches {@code depth} and {@code deferred}.
     */
    static final class InlineState {
        final Thread thread = Thread.currentThread();
        int depth;
        final ArrayDeque<Deliverable> deferred = new ArrayDeque<>();
    }

    private final ThreadLocal<InlineState> inline = ThreadLocal.withInitial(InlineState::new);
    /**
     * The state of the thread that delivered last: a thread delivering again finds its state here
     * without a {@link ThreadLocal} lookup. Read and written without synchronization: a reader
     * uses it only if its {@code final} thread is the reader itself.
     */
    private InlineState lastInline;

    final DeliveryMode mode;
    private final String name;
    private final TransportType transportType;
    private final RdmaCapabilities capabilities;
    private final SecureRandom random = new SecureRandom();
    private final Set<Integer> usedKeys = new HashSet<>();
    private final AtomicInteger nextPort = new AtomicInteger(FIRST_EPHEMERAL_PORT);
    private final AtomicInteger nextHost = new AtomicInteger(1);
    private final AtomicInteger rawPeers = new AtomicInteger();
    final AtomicLong ids = new AtomicLong();
    private final Map<String, MockDevice> providers = new LinkedHashMap<>();
    private final ConcurrentHashMap<InetSocketAddress, MockListener> listeners = new ConcurrentHashMap<>();
    final Set<MockQueuePair> endpoints = ConcurrentHashMap.newKeySet();
    final Set<ConnectRequestImpl> pendingRequests = ConcurrentHashMap.newKeySet();
    private final List<Consumer<MockEndpoint>> endpointObservers = new CopyOnWriteArrayList<>();
    private final List<String> handlerFailures = new CopyOnWriteArrayList<>();
    private final List<Runnable> stepChecks = new CopyOnWriteArrayList<>();
    private final Object taskLock = new Object();
    private final ArrayDeque<Object> tasks = new ArrayDeque<>();
    /** THREADED: the delivery workers, each with its own thread; targets are spread over them. */
    private final DeliveryWorker[] workers;
    private final AtomicInteger nextWorker = new AtomicInteger();
    private volatile boolean closed;

    public FabricImpl(String name, DeliveryMode mode, TransportType transportType, RdmaCapabilities capabilities,
            int completionThreads) {
        this.name = name;
        this.mode = mode;
        this.transportType = transportType;
        this.capabilities = capabilities;
        if (mode == DeliveryMode.THREADED) {
            workers = new DeliveryWorker[completionThreads];
            for (int i = 0; i < completionThreads; i++) {
                workers[i] = new DeliveryWorker("smbdirect-mock-" + name + "-" + (i + 1));
            }
            for (DeliveryWorker w : workers) {
                w.start();
            }
        } else {
            workers = null;
        }
    }

    /**
     * Checks that capabilities are usable.
     *
     * @return {@code c}
     * @throws SettingRefusedException naming the first bad value
     */
    public static RdmaCapabilities checkCapabilities(RdmaCapabilities c) {
        check("maxSendWorkRequests", c.maxSendWorkRequests());
        check("maxReceiveWorkRequests", c.maxReceiveWorkRequests());
        check("maxSge", c.maxSge());
        check("maxMessageSize", c.maxMessageSize());
        check("maxInboundReadDepth", c.maxInboundReadDepth());
        check("maxOutboundReadDepth", c.maxOutboundReadDepth());
        if (c.maxInlineData() < 0) {
            throw new SettingRefusedException("capability maxInlineData must not be negative: " + c.maxInlineData(),
                    "maxInlineData", c.maxInlineData(), "must not be negative");
        }
        if (c.maxRegionSize() < 1) {
            throw new SettingRefusedException("capability maxRegionSize must be positive: " + c.maxRegionSize(),
                    "maxRegionSize", c.maxRegionSize(), "must be positive");
        }
        return c;
    }

    private static void check(String attribute, int value) {
        if (value < 1) {
            throw new SettingRefusedException("capability " + attribute + " must be positive: " + value, attribute, value,
                    "must be positive");
        }
    }

    public String name() {
        return name;
    }

    public DeliveryMode mode() {
        return mode;
    }

    public MockProvider provider(String providerName) {
        Objects.requireNonNull(providerName, "name");
        synchronized (providers) {
            MockDevice p = providers.get(providerName);
            if (p == null) {
                p = newProvider(providerName, transportType, capabilities);
            }
            return p;
        }
    }

    public MockProvider provider(String providerName, TransportType type, RdmaCapabilities caps) {
        Objects.requireNonNull(providerName, "name");
        Objects.requireNonNull(type, "transportType");
        checkCapabilities(Objects.requireNonNull(caps, "capabilities"));
        synchronized (providers) {
            if (providers.containsKey(providerName)) {
                throw new IllegalArgumentException("fabric " + name + " already has a provider named " + providerName);
            }
            return newProvider(providerName, type, caps);
        }
    }

    private MockDevice newProvider(String providerName, TransportType type, RdmaCapabilities caps) {
        ensureOpen();
        int host = nextHost.getAndIncrement();
        InetAddress address;
        try {
            address = InetAddress.getByAddress(new byte[] {10, 0, (byte) (host >>> 8), (byte) host});
        } catch (UnknownHostException e) {
            throw new IllegalStateException("cannot form address 10.0.x.y for host " + host, e);
        }
        MockDevice p = new MockDevice(this, providerName, type, caps, address);
        providers.put(providerName, p);
        return p;
    }

    public List<MockProvider> providers() {
        synchronized (providers) {
            return List.copyOf(providers.values());
        }
    }

    public RawPeer rawPeer() {
        return new RawPeerImpl(this, (MockDevice) provider("raw-" + rawPeers.incrementAndGet()));
    }

    public RawPeer rawPeer(MockProvider provider) {
        if (!(provider instanceof MockDevice p) || p.fabric != this) {
            throw new IllegalArgumentException("provider " + provider + " does not belong to fabric " + name);
        }
        return new RawPeerImpl(this, p);
    }

    public List<MockEndpoint> endpoints() {
        List<MockQueuePair> list = new ArrayList<>(endpoints);
        list.sort((a, b) -> Long.compare(a.id(), b.id()));
        return Collections.unmodifiableList(new ArrayList<>(list));
    }

    public void onEndpointCreated(Consumer<MockEndpoint> observer) {
        endpointObservers.add(Objects.requireNonNull(observer, "observer"));
    }

    void endpointCreated(MockQueuePair endpoint) {
        endpoints.add(endpoint);
        for (Consumer<MockEndpoint> observer : endpointObservers) {
            observer.accept(endpoint);
        }
    }

    // ---- deterministic action queue

    void addTask(Object task) {
        synchronized (taskLock) {
            tasks.add(task);
        }
    }

    public boolean step() {
        requireDeterministic("step");
        while (true) {
            Object task;
            synchronized (taskLock) {
                task = tasks.poll();
            }
            if (task == null) {
                return false;
            }
            boolean acted = task instanceof MockQueuePair.TransmitTicket t ? t.endpoint.transmitOne()
                    : ((Deliverable) task).stepTicket();
            if (acted) {
                for (Runnable check : stepChecks) {
                    check.run();
                }
                return true;
            }
        }
    }

    public int runUntilIdle() {
        requireDeterministic("runUntilIdle");
        int steps = 0;
        while (step()) {
            if (++steps >= STEP_LIMIT) {
                throw new IllegalStateException("fabric " + name + " still busy after " + STEP_LIMIT
                        + " actions: the handlers keep generating work (livelock)");
            }
        }
        return steps;
    }

    public void afterEachStep(Runnable check) {
        requireDeterministic("afterEachStep");
        stepChecks.add(Objects.requireNonNull(check, "check"));
    }

    public int pendingActions() {
        synchronized (taskLock) {
            return tasks.size();
        }
    }

    private void requireDeterministic(String what) {
        if (mode != DeliveryMode.DETERMINISTIC) {
            throw new IllegalStateException(what + " needs DeliveryMode.DETERMINISTIC; fabric " + name + " is " + mode);
        }
    }

    InlineState inlineState() {
        InlineState s = lastInline;
        if (s == null || s.thread != Thread.currentThread()) {
            s = inline.get();
            lastInline = s;
        }
        return s;
    }

    /** THREADED: the worker for a new endpoint or listener (round robin); otherwise null. */
    DeliveryWorker assignWorker() {
        if (workers == null) {
            return null;
        }
        return workers[Math.floorMod(nextWorker.getAndIncrement(), workers.length)];
    }

    // ---- keys, addresses, ports

    /** A fresh non-zero random key never used before in this fabric. */
    int newKey() {
        synchronized (usedKeys) {
            while (true) {
                int k = random.nextInt();
                if (k != 0 && usedKeys.add(k)) {
                    return k;
                }
            }
        }
    }

    /** An unguessable page-aligned fake virtual address with room for any int length. */
    long newAddress() {
        synchronized (usedKeys) {
            return (random.nextLong() & 0x0000_7FFF_FFFF_F000L) | 0x0000_0001_0000_0000L;
        }
    }

    int ephemeralPort() {
        return nextPort.getAndIncrement();
    }

    // ---- listener table

    MockListener bind(MockListener listener, InetSocketAddress key) {
        return listeners.putIfAbsent(key, listener);
    }

    void unbind(InetSocketAddress key, MockListener listener) {
        listeners.remove(key, listener);
    }

    MockListener findListener(InetSocketAddress target) {
        if (target.isUnresolved()) {
            return null;
        }
        return listeners.get(new InetSocketAddress(target.getAddress(), target.getPort()));
    }

    // ---- accounting

    void recordHandlerFailure(String description) {
        handlerFailures.add(description);
    }

    public MockFabricStats stats() {
        int listenerCount = listeners.size();
        int endpointCount = 0;
        int connected = 0;
        int posted = 0;
        int outstanding = 0;
        int regions = 0;
        for (MockQueuePair e : endpoints) {
            endpointCount++;
            synchronized (e.lock) {
                if (e.stateUnderLock() == MockEndpoint.State.CONNECTED) {
                    connected++;
                }
                posted += e.postedReceivesUnderLock();
                outstanding += e.outstandingUnderLock();
                regions += e.regionsUnderLock();
            }
        }
        int providerCount;
        synchronized (providers) {
            providerCount = providers.size();
        }
        return new MockFabricStats(providerCount, listenerCount, endpointCount, connected, pendingRequests.size(),
                posted, outstanding, regions);
    }

    public List<String> leaks() {
        List<String> out = new ArrayList<>();
        for (MockListener l : listeners.values()) {
            out.add("listener not closed: " + l);
        }
        for (MockEndpoint e : endpoints()) {
            out.add("endpoint not closed: " + ((MockQueuePair) e).describe());
        }
        for (ConnectRequestImpl r : pendingRequests) {
            out.add("connection request neither accepted nor rejected: " + r);
        }
        for (String failure : handlerFailures) {
            out.add("handler failure: " + failure);
        }
        return out;
    }

    // ---- shutdown

    boolean isClosed() {
        return closed;
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("fabric " + name + " is closed");
        }
    }

    public void close() {
        if (closed) {
            return;
        }
        List<MockDevice> all;
        synchronized (providers) {
            all = new ArrayList<>(providers.values());
        }
        for (MockDevice p : all) {
            p.shutdown(DisconnectCause.PROVIDER_SHUTDOWN, "fabric " + name + " shut down");
        }
        closed = true;
        if (workers != null) {
            stopWorkers();
        }
    }

    /** Lets the workers deliver what is queued and end, together within 5 s; then aborts them. */
    private void stopWorkers() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        boolean stopped = true;
        for (DeliveryWorker w : workers) {
            w.stop();
        }
        try {
            for (DeliveryWorker w : workers) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                stopped &= w.awaitStop(Math.max(1, left));
            }
        } catch (InterruptedException e) {
            stopped = false;
            Thread.currentThread().interrupt();
        }
        if (!stopped) {
            LOG.warn("Completion threads of fabric {} did not stop within 5 s; interrupting", name);
            for (DeliveryWorker w : workers) {
                w.abort();
            }
        }
    }

    @Override
    public String toString() {
        return "MockFabric[" + name + ", " + mode + "]";
    }
}
