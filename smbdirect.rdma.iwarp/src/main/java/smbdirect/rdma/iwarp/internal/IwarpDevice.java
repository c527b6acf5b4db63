package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.time.Duration;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.RdmaListenHandler;
import smbdirect.api.rdma.RdmaListener;
import smbdirect.rdma.iwarp.IwarpSettings;

/**
 * The software iWARP provider: its I/O loops, listeners, endpoints and pending connection
 * requests, the connection cap, and the capabilities it reports. Thread-safe.
 */
public final class IwarpDevice {

    /**
     * How long a connection that ends waits for its output to drain and the peer's FIN before its
     * socket is closed regardless (iwarp.md §5.7); its endpoint was told {@code onDisconnected}
     * before that wait.
     */
    public static final Duration CLOSE_LINGER = Duration.ofNanos(Channel.LINGER_NANOS);

    private static final Logger LOG = LoggerFactory.getLogger(IwarpDevice.class);
    /** Largest send or receive queue depth an endpoint may ask for. */
    static final int MAX_WORK_REQUESTS = 16384;

    private final String instanceName;
    private final IwarpSettings settings;
    private final SecureRandom random = new SecureRandom();
    private final IoLoop[] loops;
    private final AtomicInteger nextLoop = new AtomicInteger();
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger handshakes = new AtomicInteger();
    private final AtomicLong terminatesSent = new AtomicLong();
    private final AtomicLong terminatesReceived = new AtomicLong();
    private final AtomicLong internalErrors;
    private final AtomicLong refusedAtCap = new AtomicLong();
    private final Set<IwarpListener> listeners = ConcurrentHashMap.newKeySet();
    private final Set<IwarpEndpoint> endpoints = ConcurrentHashMap.newKeySet();
    private final Set<PassiveSetup> setups = ConcurrentHashMap.newKeySet();
    private final RdmaCapabilities capabilities;
    /** Peer FPDUs up to this size are read through the loops' staging buffers (see {@code Receiver}). */
    private final int receiveStagingLimit = Receiver.stagingLimitProperty();
    private volatile boolean shutdown;

    private IwarpDevice(String instanceName, IwarpSettings settings, IoLoop[] loops, AtomicLong internalErrors) {
        this.instanceName = instanceName;
        this.settings = settings;
        this.loops = loops;
        this.internalErrors = internalErrors;
        this.capabilities = new RdmaCapabilities(MAX_WORK_REQUESTS, MAX_WORK_REQUESTS, 1, 0, 1 << 30,
                settings.maxReadDepth(), settings.maxReadDepth(), Integer.MAX_VALUE, true);
    }

    /** Starts a provider with {@code settings.ioThreads()} I/O threads named {@code smbdirect-iwarp-<instance>-io-<n>}. */
    public static IwarpDevice open(String instanceName, IwarpSettings settings) throws IOException {
        Objects.requireNonNull(settings, "settings");
        IoLoop[] loops = new IoLoop[settings.ioThreads()];
        AtomicLong internalErrors = new AtomicLong();
        try {
            for (int i = 0; i < loops.length; i++) {
                loops[i] = new IoLoop("smbdirect-iwarp-" + instanceName + "-io-" + i, internalErrors);
            }
        } catch (IOException e) {
            for (IoLoop l : loops) {
                if (l != null) {
                    l.start();
                    l.stop(1000);
                }
            }
            throw e;
        }
        for (IoLoop l : loops) {
            l.start();
        }
        LOG.debug("iWARP provider {} started: {}", instanceName, settings);
        return new IwarpDevice(instanceName, settings, loops, internalErrors);
    }

    public IwarpSettings settings() {
        return settings;
    }

    /** The largest peer FPDU (bytes) a receiver reads through its loop's staging buffer; 0: never. */
    int receiveStagingLimit() {
        return receiveStagingLimit;
    }

    public RdmaCapabilities capabilities() {
        return capabilities;
    }

    public String instanceName() {
        return instanceName;
    }

    SecureRandom random() {
        return random;
    }

    IoLoop nextLoop() {
        return loops[Math.floorMod(nextLoop.getAndIncrement(), loops.length)];
    }

    void checkOpen(String operation) throws RdmaException {
        if (shutdown) {
            throw new RdmaException(operation + ": the iWARP provider " + instanceName + " is shut down");
        }
    }

    void checkConfig(EndpointSettings config) throws RdmaException {
        if (config.sendQueueDepth() > MAX_WORK_REQUESTS || config.receiveQueueDepth() > MAX_WORK_REQUESTS) {
            throw new RdmaException("EndpointSettings " + config + " exceeds the largest queue depth "
                    + MAX_WORK_REQUESTS);
        }
    }

    public RdmaListener listen(InetSocketAddress bindAddress, RdmaListenHandler handler) throws RdmaException {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(handler, "handler");
        checkOpen("listen");
        if (!settings.allowsListen(bindAddress)) {
            throw new RdmaException("listen: " + bindAddress + " is not allowed by listenAddresses "
                    + settings.listenAddresses() + " (smbdirect.rdma.iwarp)");
        }
        IoLoop loop = nextLoop();
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            if (settings.receiveBufferSize() > 0) {
                server.setOption(StandardSocketOptions.SO_RCVBUF, settings.receiveBufferSize());
            }
            server.bind(bindAddress, 128);
            InetSocketAddress local = (InetSocketAddress) server.getLocalAddress();
            IwarpListener listener = new IwarpListener(this, loop, server, handler, local);
            ServerSocketChannel s = server;
            IOException[] failure = new IOException[1];
            boolean done = loop.runAndWait(() -> {
                try {
                    listener.start();
                } catch (IOException e) {
                    failure[0] = e;
                }
            }, 5000);
            if (!done || failure[0] != null) {
                s.close();
                throw new RdmaException("listen on " + bindAddress + ": registering with the I/O thread failed"
                        + (failure[0] == null ? "" : ": " + failure[0]));
            }
            listeners.add(listener);
            if (shutdown) {
                listener.close();
                throw new RdmaException("listen: the iWARP provider " + instanceName + " is shut down");
            }
            LOG.debug("iWARP listener on {}", local);
            return listener;
        } catch (BindException e) {
            closeQuietly(server);
            throw new RdmaException("listen on " + bindAddress + " failed: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            closeQuietly(server);
            if (e instanceof RdmaException r) {
                throw r;
            }
            throw new RdmaException("listen on " + bindAddress + " failed: " + e, e);
        }
    }

    private static void closeQuietly(ServerSocketChannel server) {
        if (server != null) {
            try {
                server.close();
            } catch (IOException ignored) {
                // nothing bound
            }
        }
    }

    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(handler, "handler");
        checkOpen("createEndpoint");
        checkConfig(config);
        IwarpEndpoint ep = new IwarpEndpoint(this, nextLoop(), config, handler);
        track(ep);
        return ep;
    }

    void track(IwarpEndpoint ep) throws RdmaException {
        endpoints.add(ep);
        if (shutdown) {
            endpoints.remove(ep);
            throw new RdmaException("the iWARP provider " + instanceName + " is shut down");
        }
    }

    void forget(IwarpEndpoint ep) {
        endpoints.remove(ep);
    }

    void forget(IwarpListener listener) {
        listeners.remove(listener);
    }

    boolean trackSetup(PassiveSetup setup) {
        setups.add(setup);
        if (shutdown) {
            setups.remove(setup);
            return false;
        }
        return true;
    }

    void forgetSetup(PassiveSetup setup) {
        setups.remove(setup);
    }

    /** Takes one unit of the connection cap (a TCP connection); false when the cap is reached. */
    boolean tryOpenConnection() {
        if (tryTake(connections, settings.maxConnections())) {
            return true;
        }
        refusedAtCap.incrementAndGet();
        return false;
    }

    void connectionClosed() {
        connections.decrementAndGet();
    }

    /**
     * Takes one unit of the pending-connection cap (an accepted connection whose MPA Request is not
     * complete); false when the cap is reached.
     */
    boolean tryOpenHandshake() {
        return tryTake(handshakes, settings.maxPendingConnections());
    }

    private static boolean tryTake(AtomicInteger counter, int cap) {
        while (true) {
            int n = counter.get();
            if (n >= cap) {
                return false;
            }
            if (counter.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void handshakeEnded() {
        handshakes.decrementAndGet();
    }

    /** Applies the configured socket options (TCP_NODELAY as siw, buffer sizes when set). */
    void configure(SocketChannel socket) throws IOException {
        socket.setOption(StandardSocketOptions.TCP_NODELAY, settings.tcpNoDelay());
        if (settings.sendBufferSize() > 0) {
            socket.setOption(StandardSocketOptions.SO_SNDBUF, settings.sendBufferSize());
        }
        if (settings.receiveBufferSize() > 0) {
            socket.setOption(StandardSocketOptions.SO_RCVBUF, settings.receiveBufferSize());
        }
    }

    void terminateSent() {
        terminatesSent.incrementAndGet();
    }

    void terminateReceived() {
        terminatesReceived.incrementAndGet();
    }

    public int openListeners() {
        return listeners.size();
    }

    public int openEndpoints() {
        return endpoints.size();
    }

    public int openConnections() {
        return connections.get();
    }

    public int pendingRequests() {
        return setups.size();
    }

    public long terminatesSent() {
        return terminatesSent.get();
    }

    public long terminatesReceived() {
        return terminatesReceived.get();
    }

    /** Registrations alive on the endpoints not yet closed. */
    public int registrations() {
        int n = 0;
        for (IwarpEndpoint e : endpoints) {
            n += e.regions.size();
        }
        return n;
    }

    /** Failures that took the internal-error path (IoLoop counts them). */
    public long internalErrors() {
        return internalErrors.get();
    }

    /** TCP connections refused (accepted or connecting) because the connection cap was reached. */
    public long refusedAtCap() {
        return refusedAtCap.get();
    }

    public boolean isShutdown() {
        return shutdown;
    }

    /**
     * Stops the provider: listeners fail with PROVIDER_SHUTDOWN, endpoints end with
     * PROVIDER_SHUTDOWN (flushed, then onDisconnected), pending requests are closed, then the I/O
     * threads stop. Waits up to {@code millis} in all. Idempotent.
     */
    public void shutdown(long millis) {
        if (shutdown) {
            return;
        }
        shutdown = true;
        long deadline = System.nanoTime() + millis * 1_000_000L;
        for (IwarpListener l : new ArrayList<>(listeners)) {
            l.loop().execute(() -> l.fail(smbdirect.api.rdma.DisconnectCause.PROVIDER_SHUTDOWN,
                    "the iWARP provider " + instanceName + " is shutting down"));
        }
        listeners.clear();
        for (IwarpEndpoint e : new ArrayList<>(endpoints)) {
            e.loop.execute(() -> e.shutdown("the iWARP provider " + instanceName + " is shutting down"));
        }
        for (PassiveSetup s : new ArrayList<>(setups)) {
            s.channel().loop.execute(s::shutdown);
        }
        setups.clear();
        // let every loop run its shutdown tasks, then give closing connections their linger time
        List<IoLoop> all = List.of(loops);
        for (IoLoop l : all) {
            l.runAndWait(() -> { }, Math.max(1, remaining(deadline)));
        }
        for (IoLoop l : all) {
            l.stop(Math.max(1, remaining(deadline)));
        }
        LOG.debug("iWARP provider {} stopped", instanceName);
    }

    private static long remaining(long deadline) {
        return (deadline - System.nanoTime()) / 1_000_000L;
    }

    @Override
    public String toString() {
        return "iWARP provider " + instanceName + " (" + connections.get() + " connections, " + endpoints.size()
                + " endpoints, " + listeners.size() + " listeners)";
    }
}
