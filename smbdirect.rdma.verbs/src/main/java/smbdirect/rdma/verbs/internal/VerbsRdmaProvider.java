package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.api.rdma.RdmaProvider;
import smbdirect.api.rdma.TransportType;

/**
 * The verbs {@link RdmaProvider}: one RDMA CM event channel served by one CM thread, and one
 * {@link CompletionGroup} (protection domain, completion queue, completion thread) per device while
 * the device is in use: created with its first endpoint or listener bound to its address, released
 * when the last of them is closed ({@link #acquire}, {@link #release}).
 * Active endpoints are bound to the configured local address before their queue pair is created, so
 * receives can be posted before {@code connect}.
 *
 * <p>Thread-safe. The CM thread delivers listener callbacks; endpoint callbacks run on the
 * endpoint's completion thread.
 */
public final class VerbsRdmaProvider implements RdmaProvider {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsRdmaProvider.class);
    public static final String NAME = "verbs";

    private final VerbsSettings settings;
    private final VerbsBackend backend;
    private final InetSocketAddress bindAddress;
    private final TransportType transportType;
    private final LongSupplier nanoClock;
    private final RdmaCapabilities capabilities;
    private final DeviceAttributes device;
    /** The kernel's view of the device's port ({@link #portDownState}). */
    private final SysfsDevices sysfs = new SysfsDevices(java.nio.file.Path.of("/sys/class/infiniband"));
    private final boolean memoryWindows;
    private final boolean remoteInvalidation;
    private final int withInvalidateFlags;
    private final String description;
    /** The last port event (IBV_EVENT_PORT_ERR / PORT_ACTIVE) in words, "" before any. */
    private volatile String portEvent = "";
    /** The device's last asynchronous events, oldest first, at most {@value #RECENT_EVENTS}; guarded by itself. */
    private final java.util.ArrayDeque<String> recentEvents = new java.util.ArrayDeque<>();
    static final int RECENT_EVENTS = 16;
    private final Map<VerbsBackend.CmId, VerbsEndpoint> endpoints = new ConcurrentHashMap<>();
    private final Map<VerbsBackend.CmId, VerbsListener> listeners = new ConcurrentHashMap<>();
    private final Map<Integer, CompletionGroup> groups = new ConcurrentHashMap<>();
    /** Groups retired while the provider runs, until their threads released them; guarded by this. */
    private final List<CompletionGroup> retiring = new ArrayList<>();
    private volatile boolean shutdown;
    private volatile boolean running;
    private ThreadFactory threads;
    private Thread cmThread;
    /**
     * Where {@code rdma_connect} runs: a pool of daemon threads once started, the calling thread
     * before (a provider driven by a test). On iWARP the call blocks for the TCP handshake (siw
     * connects its socket in blocking mode, as long as the SYN retries last), so it never runs on a
     * completion thread, which serves every connection of its device.
     */
    private volatile Executor connectCalls = Runnable::run;

    /**
     * A provider whose capabilities are the configured limits (the backend cannot query the device).
     *
     * @param bindAddress the local address of the RDMA interface active endpoints bind to (port 0)
     * @param nanoClock {@link System#nanoTime()} in production, a manual clock in tests
     */
    public VerbsRdmaProvider(VerbsSettings settings, VerbsBackend backend, InetSocketAddress bindAddress,
            TransportType transportType, LongSupplier nanoClock) {
        this(settings, backend, bindAddress, transportType, null, "", nanoClock);
    }

    /**
     * @param bindAddress the local address of the RDMA interface active endpoints bind to (port 0)
     * @param device what the device reports ({@code ibv_query_device}/{@code ibv_query_port}); its limits
     *     bound the capabilities. {@code null} when the backend cannot query it
     * @param notes why other backends were not chosen ("" when none), for operators
     * @param nanoClock {@link System#nanoTime()} in production, a manual clock in tests
     */
    public VerbsRdmaProvider(VerbsSettings settings, VerbsBackend backend, InetSocketAddress bindAddress,
            TransportType transportType, DeviceAttributes device, String notes, LongSupplier nanoClock) {
        this.settings = settings;
        this.backend = backend;
        this.bindAddress = bindAddress;
        this.transportType = transportType;
        this.nanoClock = nanoClock;
        this.device = device;
        this.memoryWindows = device != null && device.memoryWindows();
        this.remoteInvalidation = settings.remoteInvalidation(device);
        this.withInvalidateFlags = StatusMapper.withInvalidateFlags(device);
        this.capabilities = settings.capabilities(device);
        this.description = "backend " + backend.features().name() + (device == null ? "" : "; device "
                + device.describe()) + "; bind address " + (bindAddress == null ? "?"
                        : bindAddress.getAddress().getHostAddress())
                + "; Send with Invalidate " + (capabilities.sendWithInvalidate() ? "on" : "off") + ": "
                + sendWithInvalidateReason() + "; a peer's Send with Invalidate of our memory "
                + (remoteInvalidation ? "on" : "off") + ": " + settings.remoteInvalidationReason(device)
                + (settings.endConnectionsOnPortDown() ? "; a port that goes down ends its connections"
                        : "; a port that goes down leaves its connections to the transport's retries")
                + (notes == null || notes.isEmpty() ? "" : "; other backends: " + notes);
    }

    /**
     * Whether memory the peer may access is exposed through type 2 memory windows bound on the
     * connection (the device has them): a peer's Send with Invalidate can then invalidate it.
     */
    boolean memoryWindows() {
        return memoryWindows;
    }

    /**
     * The receiving side of Send with Invalidate: whether a peer's Send with Invalidate naming a token
     * of ours invalidates the memory and the receive completion reports it
     * ({@link VerbsSettings#remoteInvalidation}). Where it is false an upper layer must not hand its
     * tokens out for remote invalidation (an SMB client must not ask for
     * SMB2_CHANNEL_RDMA_V1_INVALIDATE), even where it may post Send with Invalidate itself
     * ({@code capabilities().sendWithInvalidate()}).
     */
    public boolean remoteInvalidation() {
        return remoteInvalidation;
    }

    /** The device's last asynchronous events by name, oldest first (at most {@value #RECENT_EVENTS}). */
    public List<String> recentAsyncEvents() {
        synchronized (recentEvents) {
            return List.copyOf(recentEvents);
        }
    }

    /** The {@code wc_flags} bits that mark a receive that invalidated an rkey on this device. */
    int withInvalidateFlags() {
        return withInvalidateFlags;
    }

    /** Why Send with Invalidate is on or off, in words (for operators and refusals). */
    String sendWithInvalidateReason() {
        return settings.sendWithInvalidateReason(device);
    }

    VerbsBackend backend() {
        return backend;
    }

    VerbsSettings settings() {
        return settings;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public TransportType transportType() {
        return transportType;
    }

    @Override
    public RdmaCapabilities capabilities() {
        return capabilities;
    }

    /** What the device reports, {@code null} when the backend cannot query it. */
    public DeviceAttributes device() {
        return device;
    }

    /** The backend, the device's limits, the last port event and why other backends were not chosen. */
    @Override
    public String describeSettings() {
        String port = portEvent;
        return port.isEmpty() ? description : description + "; " + port;
    }

    /**
     * A backend thread: an asynchronous event of {@code group}'s device. Queue pair and completion
     * queue events go to the group's thread; a fatal device ends everything on it and fails the
     * listeners (the provider serves one device); port events are recorded for operators, and a port
     * that goes down ends the connections on it as PEER_LOST naming the event (unless
     * {@code endConnectionsOnPortDown} is off: then the transport's retries decide, connections that
     * outlive a short outage survive it, the others end as PEER_LOST).
     */
    void onAsyncEvent(CompletionGroup group, VerbsBackend.AsyncEvent event) {
        int type = event.type();
        String name = StatusMapper.asyncEventName(type);
        try {
            actOn(group, event, type, name);
        } finally {
            // recorded once acted on: who sees it here sees its effect
            synchronized (recentEvents) {
                if (recentEvents.size() == RECENT_EVENTS) {
                    recentEvents.removeFirst();
                }
                recentEvents.addLast(name + (event.port() != 0 ? " (port " + event.port() + ")" : ""));
            }
        }
    }

    private void actOn(CompletionGroup group, VerbsBackend.AsyncEvent event, int type, String name) {
        switch (type) {
            case VerbsConstants.EVENT_QP_FATAL, VerbsConstants.EVENT_QP_REQ_ERR, VerbsConstants.EVENT_QP_ACCESS_ERR,
                    VerbsConstants.EVENT_COMM_EST, VerbsConstants.EVENT_SQ_DRAINED, VerbsConstants.EVENT_PATH_MIG,
                    VerbsConstants.EVENT_PATH_MIG_ERR, VerbsConstants.EVENT_QP_LAST_WQE_REACHED -> {
                if (event.qp() != null) {
                    group.execute(() -> group.onQueuePairEvent(event.qp(), type));
                }
            }
            case VerbsConstants.EVENT_CQ_ERR -> group.execute(() -> group.cqFailed(name
                    + ": the completion queue overran or failed; its completions are lost"));
            case VerbsConstants.EVENT_DEVICE_FATAL -> {
                String text = name + ": the RDMA device failed; restart the device's driver and the provider";
                group.execute(() -> group.deviceFailed(text));
                for (VerbsListener listener : new ArrayList<>(listeners.values())) {
                    listener.fail(DisconnectCause.DEVICE_REMOVED, text);
                }
            }
            case VerbsConstants.EVENT_PORT_ERR -> {
                portEvent = "port " + event.port() + " down (" + name + " at " + java.time.Instant.now() + ")";
                if (settings.endConnectionsOnPortDown()) {
                    String text = portDownText(event.port());
                    LOG.warn("RDMA device port {} is down ({}): ending its connections", event.port(), name);
                    group.execute(() -> group.portDown(event.port(), text));
                } else {
                    LOG.warn("RDMA device port {} is down ({}): connections wait for it within their transport retries",
                            event.port(), name);
                }
            }
            case VerbsConstants.EVENT_PORT_ACTIVE -> {
                portEvent = "port " + event.port() + " active again (" + name + " at " + java.time.Instant.now() + ")";
                LOG.info("RDMA device port {} is active ({})", event.port(), name);
                group.execute(group::portUp);
            }
            default -> LOG.info("RDMA device event {} (port {})", name, event.port());
        }
    }

    /** Why a connection ended when port {@code port} of the device went down. */
    static String portDownText(int port) {
        return StatusMapper.asyncEventName(VerbsConstants.EVENT_PORT_ERR) + ": port " + port
                + " of the RDMA device went down (its link or network interface); the connection ended with it";
    }

    /**
     * Port 1's state as the kernel shows it ({@code /sys/class/infiniband/DEVICE/ports/1/state}, "1:
     * DOWN"), when it is not ACTIVE; null when it is, or cannot be told. Read when a connection ends
     * by the CM's word, which may come before the port event.
     */
    String portDownState() {
        String name = device != null ? device.name() : settings.deviceName();
        if (name == null || name.isEmpty()) {
            return null;
        }
        String state = sysfs.portState(name, 1);
        return state == null || state.startsWith("4") ? null : state;
    }

    /** Where {@code rdma_connect} runs (see {@link #connectCalls}). */
    Executor connectCalls() {
        return connectCalls;
    }

    /** Tests: runs {@code rdma_connect} on {@code executor} (a test's queue: the call stays in flight until run). */
    void connectCalls(Executor executor) {
        this.connectCalls = executor;
    }

    /** Starts the CM thread; completion threads start with their device's group. */
    public synchronized void start(ThreadFactory threadFactory) {
        this.threads = threadFactory;
        running = true;
        cmThread = threadFactory.newThread(this::cmLoop);
        cmThread.setName("smbdirect-verbs-cm");
        cmThread.setDaemon(true);
        cmThread.start();
        AtomicInteger connectThreads = new AtomicInteger();
        connectCalls = Executors.newCachedThreadPool(r -> {
            Thread t = threadFactory.newThread(r);
            t.setName("smbdirect-verbs-connect-" + connectThreads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        for (CompletionGroup group : groups.values()) {
            if (!group.isStarted()) {
                group.start(threadFactory);
            }
        }
    }

    private void cmLoop() {
        while (running) {
            try {
                pumpCmEvents(settings.eventTimeoutMillis());
            } catch (RuntimeException e) {
                LOG.error("RDMA CM event handling failed", e);
            }
        }
    }

    /**
     * Waits up to {@code timeoutMillis} for one CM event and dispatches it (CM thread, or a test);
     * returns whether there was one.
     */
    boolean pumpCmEvents(int timeoutMillis) {
        VerbsBackend.CmEvent event;
        try {
            event = backend.nextCmEvent(timeoutMillis);
        } catch (IOException e) {
            if (running && !shutdown) {
                LOG.error("rdma_get_cm_event failed: {}", e.getMessage());
                parkMillis(timeoutMillis);
            }
            return false;
        }
        if (event == null) {
            return false;
        }
        dispatch(event);
        return true;
    }

    private void dispatch(VerbsBackend.CmEvent event) {
        int type = event.type();
        LOG.debug("{} (listen id {}, id {})", StatusMapper.cmEventName(type), event.listenId(), event.id());
        if (type == VerbsConstants.CM_EVENT_CONNECT_REQUEST) {
            VerbsListener listener = event.listenId() == null ? null : listeners.get(event.listenId());
            if (listener == null || shutdown) {
                LOG.debug("connection request without an open listener; rejecting");
                backend.destroyId(event.id());
                return;
            }
            listener.onConnectRequest(event);
            return;
        }
        VerbsEndpoint endpoint = event.id() == null ? null : endpoints.get(event.id());
        if (endpoint != null) {
            endpoint.group().execute(() -> endpoint.onCmEvent(event));
            return;
        }
        VerbsListener listener = event.id() == null ? null : listeners.get(event.id());
        if (listener != null && type == VerbsConstants.CM_EVENT_DEVICE_REMOVAL) {
            listener.fail(DisconnectCause.DEVICE_REMOVED, StatusMapper.cmEventName(type));
            return;
        }
        LOG.debug("{} for an identifier without endpoint or listener", StatusMapper.cmEventName(type));
    }

    @Override
    public RdmaListener listen(InetSocketAddress address, RdmaListenHandler handler) throws RdmaException {
        checkOpen();
        if (address == null || address.isUnresolved()) {
            throw new RdmaException("listen: " + address + " is not an address");
        }
        if (!(address.getAddress() instanceof Inet4Address) && !backend.features().ipv6()) {
            throw new RdmaException("listen: " + address + " is not an IPv4 address (the " + backend.features().name()
                    + " backend binds sockaddr_in only; IPv6 is not supported)");
        }
        java.util.Objects.requireNonNull(handler, "handler");
        VerbsBackend.CmId id;
        try {
            id = backend.createId();
        } catch (IOException e) {
            throw new RdmaException("rdma_create_id failed: " + e.getMessage(), e);
        }
        InetSocketAddress bound;
        try {
            backend.bindAddr(id, address);
            backend.listen(id, settings.listenBacklog());
            bound = backend.localAddress(id);
        } catch (IOException e) {
            backend.destroyId(id);
            throw new RdmaException("listen on " + address + " failed: " + e.getMessage(), e);
        }
        // a listener bound to a device's address holds its group, so serving connections one after
        // another does not create and release it each time; one on a wildcard address has no device
        CompletionGroup group = null;
        VerbsBackend.Device device = listenerDevice(id);
        if (device != null) {
            try {
                group = acquire(device);
            } catch (RdmaException e) {
                backend.destroyId(id);
                throw new RdmaException("listen on " + address + ": " + e.getMessage(), e);
            }
        }
        VerbsListener listener = new VerbsListener(this, id, bound == null ? address : bound, handler, group);
        listeners.put(id, listener);
        LOG.info("RDMA listener on {}", listener.localAddress());
        return listener;
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        checkOpen();
        checkConfig(config);
        java.util.Objects.requireNonNull(handler, "handler");
        VerbsBackend.CmId id;
        try {
            id = backend.createId();
        } catch (IOException e) {
            throw new RdmaException("rdma_create_id failed: " + e.getMessage(), e);
        }
        try {
            backend.bindAddr(id, bindAddress);
            VerbsBackend.Device device = backend.device(id);
            InetSocketAddress local = backend.localAddress(id);
            return openEndpoint(id, device, config, handler, false, local, null);
        } catch (IOException | RuntimeException e) {
            backend.destroyId(id);
            if (e instanceof RdmaException r) {
                throw r;
            }
            throw new RdmaException("creating an endpoint bound to " + bindAddress + " failed: " + e.getMessage(), e);
        }
    }

    /** The device a listening identifier is bound to, {@code null} when it has none (a wildcard address). */
    private VerbsBackend.Device listenerDevice(VerbsBackend.CmId id) {
        try {
            return backend.device(id);
        } catch (IOException | RuntimeException e) {
            LOG.debug("listener without a device ({}): its connections' device gets a group with the first", e.getMessage());
            return null;
        }
    }

    void checkConfig(EndpointSettings config) throws RdmaException {
        java.util.Objects.requireNonNull(config, "config");
        if (config.sendQueueDepth() > capabilities.maxSendWorkRequests()) {
            throw new RdmaException("EndpointSettings.sendQueueDepth " + config.sendQueueDepth()
                    + " exceeds maxSendWorkRequests " + capabilities.maxSendWorkRequests()
                    + (capabilities.maxSendWorkRequests() < settings.maxSendWorkRequests() ? " (the device's max_qp_wr)"
                            : ""));
        }
        if (config.receiveQueueDepth() > capabilities.maxReceiveWorkRequests()) {
            throw new RdmaException("EndpointSettings.receiveQueueDepth " + config.receiveQueueDepth()
                    + " exceeds maxReceiveWorkRequests " + capabilities.maxReceiveWorkRequests()
                    + (capabilities.maxReceiveWorkRequests() < settings.maxReceiveWorkRequests()
                            ? " (the device's max_qp_wr)" : ""));
        }
    }

    /** Creates the queue pair of {@code id} and the endpoint around it (the caller owns {@code id} on failure). */
    VerbsEndpoint openEndpoint(VerbsBackend.CmId id, VerbsBackend.Device device, EndpointSettings config,
            RdmaEndpointHandler handler, boolean passive, InetSocketAddress local, InetSocketAddress peer)
            throws RdmaException {
        checkOpen();
        CompletionGroup group = acquire(device);
        int binds = VerbsEndpoint.windowBinds(this, config);
        int entries = config.sendQueueDepth() + binds + config.receiveQueueDepth();
        int key;
        try {
            key = group.attach(entries);
        } catch (RdmaException e) {
            release(group);
            throw e;
        }
        VerbsBackend.QueuePair qp;
        try {
            qp = backend.createQp(id, group.pd(), group.cq(), config.sendQueueDepth() + binds,
                    config.receiveQueueDepth());
        } catch (IOException e) {
            group.detach(key, entries);
            release(group);
            throw new RdmaException("rdma_create_qp (send " + config.sendQueueDepth()
                    + (binds == 0 ? "" : " + " + binds + " memory window binds") + ", receive "
                    + config.receiveQueueDepth() + ") failed: " + e.getMessage(), e);
        }
        VerbsEndpoint endpoint = new VerbsEndpoint(this, group, id, qp, key, config, handler, passive, local, peer);
        group.bind(key, endpoint);
        endpoints.put(id, endpoint);
        return endpoint;
    }

    /**
     * The completion group of {@code device}, created with its first user (protection domain,
     * completion queue, completion thread, the device's asynchronous events watched), with one more
     * user counted: every endpoint (its queue pair and registrations) and every listener bound to the
     * device holds its group until {@link #release}.
     */
    synchronized CompletionGroup acquire(VerbsBackend.Device device) throws RdmaException {
        checkOpen();
        CompletionGroup group = groups.get(device.key());
        if (group == null) {
            try {
                group = new CompletionGroup(backend, settings, nanoClock, device);
            } catch (IOException e) {
                throw new RdmaException("allocating the protection domain / completion queue (cqSize "
                        + settings.cqSize() + ") failed: " + e.getMessage(), e);
            }
            groups.put(device.key(), group);
            CompletionGroup watched = group;
            if (!backend.watchAsyncEvents(device, event -> onAsyncEvent(watched, event))) {
                LOG.debug("the {} backend reads no asynchronous device events", backend.features().name());
            }
            if (running) {
                group.start(threads);
            }
        }
        group.users++;
        return group;
    }

    /**
     * A user of {@code group} ({@link #acquire}) is gone: an endpoint after it destroyed its queue
     * pair and released its registrations, or a listener after it destroyed its identifier. The
     * last one retires the group: its completion thread stops and the completion queue and
     * protection domain are released (at once where no thread runs, else by that thread when its
     * loop ends, so a caller on it or waiting for it is never blocked). The next user of the device
     * gets a new group.
     */
    void release(CompletionGroup group) {
        synchronized (this) {
            if (--group.users > 0 || !groups.remove(group.device().key(), group)) {
                return;
            }
            // before a new group of the device can watch its events
            backend.unwatchAsyncEvents(group.device());
            retiring.removeIf(CompletionGroup::isReleased);
            retiring.add(group);
        }
        group.retire();
    }

    /** The completion group of a device key (tests). */
    CompletionGroup group(int deviceKey) {
        return groups.get(deviceKey);
    }

    void forget(VerbsEndpoint endpoint) {
        endpoints.remove(endpoint.cmId(), endpoint);
    }

    void forget(VerbsListener listener) {
        listeners.remove(listener.cmId(), listener);
    }

    int endpointCount() {
        return endpoints.size();
    }

    int listenerCount() {
        return listeners.size();
    }

    private void checkOpen() throws RdmaException {
        if (shutdown) {
            throw new RdmaException("the verbs provider is shut down");
        }
    }

    /**
     * Stops the provider: listeners fail with PROVIDER_SHUTDOWN, endpoints end with PROVIDER_SHUTDOWN
     * (waiting up to {@code flushTimeoutMillis} for their flushes), then every resource is released.
     */
    public void shutdown() {
        if (shutdown) {
            return;
        }
        shutdown = true;
        for (VerbsListener listener : new ArrayList<>(listeners.values())) {
            listener.fail(DisconnectCause.PROVIDER_SHUTDOWN, "the verbs provider is shutting down");
        }
        List<VerbsEndpoint> open = new ArrayList<>(endpoints.values());
        for (VerbsEndpoint endpoint : open) {
            endpoint.group().execute(
                    () -> endpoint.endOnGroup(DisconnectCause.PROVIDER_SHUTDOWN, "the verbs provider is shutting down"));
        }
        long deadline = nanoClock.getAsLong()
                + TimeUnit.MILLISECONDS.toNanos(settings.flushTimeoutMillis() + 2L * settings.eventTimeoutMillis());
        while (!allEnded(open) && nanoClock.getAsLong() - deadline < 0) {
            boolean inline = false;
            for (CompletionGroup group : groups.values()) {
                if (!group.isStarted()) {
                    group.runOnce();
                    inline = true;
                }
            }
            if (!inline) {
                parkMillis(5);
            }
        }
        running = false;
        Thread t = cmThread;
        if (t != null) {
            try {
                t.join(settings.eventTimeoutMillis() * 4L + 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (VerbsEndpoint endpoint : open) {
            endpoint.close();
        }
        for (CompletionGroup group : groups.values()) {
            group.portUp(); // what a port that went down held back (closed endpoints included) runs now
        }
        if (connectCalls instanceof ExecutorService pool) {
            pool.shutdown(); // a connect call still in the kernel ends by its own timeout; its teardown then runs there
        }
        for (CompletionGroup group : groups.values()) {
            backend.unwatchAsyncEvents(group.device());
            group.stop();
        }
        groups.clear();
        List<CompletionGroup> retired;
        synchronized (this) {
            retired = new ArrayList<>(retiring);
            retiring.clear();
        }
        for (CompletionGroup group : retired) {
            if (!group.awaitRetired()) {
                LOG.warn("the completion thread of device {} did not stop; leaving its queue allocated",
                        group.device().key());
            }
        }
        backend.close();
        LOG.info("verbs provider stopped");
    }

    private static boolean allEnded(List<VerbsEndpoint> endpoints) {
        for (VerbsEndpoint endpoint : endpoints) {
            VerbsEndpoint.State s = endpoint.state();
            if (s != VerbsEndpoint.State.DISCONNECTED && s != VerbsEndpoint.State.CLOSED) {
                return false;
            }
        }
        return true;
    }

    private static void parkMillis(long millis) {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }
}
