package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.util.List;
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
 * The verbs {@link RdmaProvider}: one RDMA CM event channel served by one CM thread
 * ({@link CmDispatcher}: the endpoints and listeners by identifier, each event handed to its owner),
 * and one {@link CompletionGroup} (protection domain, completion queue, completion thread) per device
 * while the device is in use: created with its first endpoint or listener bound to its address,
 * released when the last of them is closed ({@link DeviceGroups}); the device's asynchronous events
 * are acted on by {@link DeviceEvents}. This class holds the settings and capabilities, creates
 * listeners and endpoints, and starts and stops the whole. Active endpoints are bound to the
 * configured local address before their queue pair is created, so receives can be posted before
 * {@code connect}.
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
    private final boolean memoryWindows;
    private final boolean remoteInvalidation;
    private final int withInvalidateFlags;
    private final String description;
    /** How many of the device's last asynchronous events {@link #recentAsyncEvents} keeps. */
    static final int RECENT_EVENTS = 16;
    /** The device's asynchronous events, the port's state, the last events. */
    private final DeviceEvents events;
    /** The endpoints and listeners by identifier, the CM thread's loop. */
    private final CmDispatcher cm;
    /** The completion groups by device and their lifetime. */
    private final DeviceGroups groups;
    private volatile boolean shutdown;
    private volatile boolean running;
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
                + (settings.completionGroups() != 0
                        ? "; completion groups: up to " + settings.completionGroups() + " per device"
                        : device != null && device.vendorId() == DeviceAttributes.VENDOR_SIW
                                ? "; completion groups: one (siw maps every queue into the process, 144 pages a "
                                        + "process: more completion queues would leave room for few connections)"
                                : "; completion groups: one per completion vector of the device, at most "
                                        + Runtime.getRuntime().availableProcessors() + " (the processors)")
                + (notes == null || notes.isEmpty() ? "" : "; other backends: " + notes);
        this.events = new DeviceEvents(this, settings, device);
        this.cm = new CmDispatcher(this, backend, settings);
        this.groups = new DeviceGroups(this, backend, settings, nanoClock);
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
        return events.recent();
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

    /**
     * The backend, the device's limits, the last port event, why other backends were not chosen and
     * the completion groups in use (each one's completion vector and connections).
     */
    @Override
    public String describeSettings() {
        String port = events.portEvent();
        String inUse = groups.describe();
        return description + (port.isEmpty() ? "" : "; " + port) + (inUse.isEmpty() ? "" : "; in use: " + inUse);
    }

    /**
     * A backend thread: an asynchronous event of {@code device}, for its completion groups
     * ({@link DeviceEvents#onAsyncEvent}).
     */
    void onAsyncEvent(VerbsBackend.Device device, VerbsBackend.AsyncEvent event) {
        events.onAsyncEvent(groups.groups(device.key()), event);
    }

    /** Why a connection ended when port {@code port} of the device went down. */
    static String portDownText(int port) {
        return DeviceEvents.portDownText(port);
    }

    /** Port 1's state as the kernel shows it when it is not ACTIVE, else null ({@link DeviceEvents#portDownState}). */
    String portDownState() {
        return events.portDownState();
    }

    /** The listeners fail with {@code cause} (the device failed, the provider shuts down). */
    void failListeners(DisconnectCause cause, String text) {
        for (VerbsListener listener : cm.listeners()) {
            listener.fail(cause, text);
        }
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
        running = true;
        cmThread = threadFactory.newThread(cm::loop);
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
        groups.start(threadFactory);
    }

    /** Whether the provider runs (started, not stopping). */
    boolean isRunning() {
        return running;
    }

    /** Whether the provider is shut down or shutting down. */
    boolean isShutdown() {
        return shutdown;
    }

    /**
     * Waits up to {@code timeoutMillis} for one CM event and dispatches it (CM thread, or a test);
     * returns whether there was one.
     */
    boolean pumpCmEvents(int timeoutMillis) {
        return cm.pump(timeoutMillis);
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
                group = groups.acquire(device, false);
            } catch (RdmaException e) {
                backend.destroyId(id);
                throw new RdmaException("listen on " + address + ": " + e.getMessage(), e);
            }
        }
        VerbsListener listener = new VerbsListener(this, id, bound == null ? address : bound, handler, group);
        cm.add(id, listener);
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
        CompletionGroup group = groups.acquire(device, true);
        int binds = VerbsEndpoint.windowBinds(this, config);
        int entries = config.sendQueueDepth() + binds + config.receiveQueueDepth();
        int key;
        try {
            key = group.attach(entries);
        } catch (RdmaException e) {
            release(group, true);
            throw e;
        }
        VerbsBackend.QueuePair qp;
        try {
            qp = backend.createQp(id, group.pd(), group.cq(), config.sendQueueDepth() + binds,
                    config.receiveQueueDepth());
        } catch (IOException e) {
            group.detach(key, entries);
            release(group, true);
            throw new RdmaException("rdma_create_qp (send " + config.sendQueueDepth()
                    + (binds == 0 ? "" : " + " + binds + " memory window binds") + ", receive "
                    + config.receiveQueueDepth() + ") failed: " + e.getMessage() + siwMappingsHint(e), e);
        }
        VerbsEndpoint endpoint = new VerbsEndpoint(this, group, id, qp, key, config, handler, passive, local, peer);
        group.bind(key, endpoint);
        cm.add(id, endpoint);
        return endpoint;
    }

    /**
     * Where siw refused to map a queue into the process (ENOENT: its mapping keys passed
     * {@code SIW_UOBJ_MAX_KEY}, 144 pages a process), what to do about it; else "".
     */
    String siwMappingsHint(Exception e) {
        if (device == null || device.vendorId() != DeviceAttributes.VENDOR_SIW
                || !(e instanceof NativeCallException n) || n.errno() != 2) {
            return "";
        }
        return "; siw maps every queue into the process and has no room left for it (144 pages a process, "
                + "rdma/siw-abi.h SIW_UOBJ_MAX_KEY; a completion queue of cqSize " + settings.cqSize() + " takes "
                + (settings.cqSize() * 32 / 4096 + 1) + ", a queue pair about 2): lower cqSize or completionGroups, "
                + "or spread the connections over more processes";
    }

    /**
     * A user of {@code group} is gone (an endpoint, or a listener); the device's last one retires its
     * groups ({@link DeviceGroups#release}).
     */
    void release(CompletionGroup group, boolean endpoint) {
        groups.release(group, endpoint);
    }

    /** The first completion group of a device key (tests). */
    CompletionGroup group(int deviceKey) {
        return groups.group(deviceKey);
    }

    /** The live completion groups of a device key, by index (tests, diagnostics). */
    List<CompletionGroup> completionGroups(int deviceKey) {
        return groups.groups(deviceKey);
    }

    void forget(VerbsEndpoint endpoint) {
        cm.forget(endpoint);
    }

    void forget(VerbsListener listener) {
        cm.forget(listener);
    }

    int endpointCount() {
        return cm.endpointCount();
    }

    int listenerCount() {
        return cm.listenerCount();
    }

    /** Refuses what a provider that is shut down (or shutting down) no longer does. */
    void checkOpen() throws RdmaException {
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
        failListeners(DisconnectCause.PROVIDER_SHUTDOWN, "the verbs provider is shutting down");
        List<VerbsEndpoint> open = cm.endpoints();
        for (VerbsEndpoint endpoint : open) {
            endpoint.group().execute(
                    () -> endpoint.endOnGroup(DisconnectCause.PROVIDER_SHUTDOWN, "the verbs provider is shutting down"));
        }
        long deadline = nanoClock.getAsLong()
                + TimeUnit.MILLISECONDS.toNanos(settings.flushTimeoutMillis() + 2L * settings.eventTimeoutMillis());
        while (!allEnded(open) && nanoClock.getAsLong() - deadline < 0) {
            boolean inline = groups.runInline();
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
        groups.portUp(); // what a port that went down held back (closed endpoints included) runs now
        if (connectCalls instanceof ExecutorService pool) {
            // an idle connect thread ends at once; one whose call is still in the kernel ends by that call's own
            // timeout and runs its teardown there: the wait for it is bounded, so that the provider's threads
            // are gone when shutdown returns unless a call is stuck in the kernel
            pool.shutdown();
            try {
                if (!pool.awaitTermination(settings.eventTimeoutMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.info("a connect call is still in the kernel after {} ms; it ends by its own timeout",
                            settings.eventTimeoutMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        groups.stop();
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

    /** Waits {@code millis} without a monitor (the shutdown's wait, the CM thread after a failed wait). */
    static void parkMillis(long millis) {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    }
}
