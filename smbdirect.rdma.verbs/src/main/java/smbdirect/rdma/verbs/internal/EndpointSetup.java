package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;

/**
 * The connection setup of one {@link VerbsEndpoint}: the active side's connect (address
 * resolution, route resolution, {@code rdma_connect} with the private data and the IRD/ORD asked),
 * the passive side's accept (the ORD bounded by the IRD the request offered), ESTABLISHED (the read
 * depths in effect, {@code ibv_query_qp}, and {@code onEstablished}), and when the current phase
 * began (for the endpoint's deadline watch). Its fields are guarded by the endpoint's lock (but
 * {@code establishedSeen}: group thread only); the state it moves is the endpoint's.
 */
final class EndpointSetup {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);

    private final VerbsEndpoint endpoint;
    private final Object lock;
    private final VerbsRdmaProvider provider;
    private final VerbsBackend backend;
    private final VerbsBackend.Features features;
    private final VerbsSettings settings;
    private final CompletionGroup group;
    private final VerbsBackend.CmId id;
    private final VerbsBackend.QueuePair qp;
    private final RdmaEndpointHandler handler;
    private final boolean passive;
    /** The private data rdma_connect sends (a copy of the caller's). */
    private ByteBuffer connectPrivateData = ByteBuffer.allocate(0).asReadOnlyBuffer();
    private int inboundReadDepth;
    private int outboundReadDepth;
    /** Passive side: the peer's IRD from its request (0: unknown), bounding the ORD we accept with. */
    private int peerInboundReadDepth;
    /** When the current phase of connection establishment began (the group's clock). */
    private long phaseStarted;
    /**
     * While {@code rdma_connect} is in the kernel (and until what waited for it has run): the calls
     * on the identifier that wait for its return, in the order asked; else null.
     */
    private List<Runnable> afterConnect;
    /**
     * What holds {@link #afterConnect} back: {@code rdma_connect} in the kernel, the device's port
     * down ({@link #holdForPort}); the calls run when none is left.
     */
    private int holds;
    private boolean portHeld;
    /** Group thread only: onEstablished was delivered. */
    private boolean establishedSeen;

    EndpointSetup(VerbsEndpoint endpoint, VerbsRdmaProvider provider, CompletionGroup group, VerbsBackend.CmId id,
            VerbsBackend.QueuePair qp, RdmaEndpointHandler handler, boolean passive) {
        this.endpoint = endpoint;
        this.lock = endpoint.lock;
        this.provider = provider;
        this.backend = provider.backend();
        this.features = backend.features();
        this.settings = provider.settings();
        this.group = group;
        this.id = id;
        this.qp = qp;
        this.handler = handler;
        this.passive = passive;
    }

    void connect(InetSocketAddress peer, ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(parameters, "parameters");
        if (peer.isUnresolved()) {
            throw new RdmaException("connect: peer " + peer + " is not resolved to an address");
        }
        if (!(peer.getAddress() instanceof Inet4Address) && !features.ipv6()) {
            throw new RdmaException("connect: peer " + peer + " is not an IPv4 address (the " + features.name()
                    + " backend passes sockaddr_in only; IPv6 is not supported)");
        }
        ByteBuffer privateData = parameters.privateData();
        if (privateData.remaining() > VerbsConstants.MAX_CONNECT_PRIVATE_DATA) {
            throw new RdmaException("connect: private data of " + privateData.remaining() + " bytes exceeds "
                    + VerbsConstants.MAX_CONNECT_PRIVATE_DATA + " (rdma_connect limit on InfiniBand)");
        }
        String down = portDown();
        if (down != null) {
            throw new RdmaException("connect to " + peer + " refused: " + down);
        }
        synchronized (lock) {
            if (passive) {
                throw new RdmaException("connect: endpoint was created from a connection request; use accept");
            }
            if (endpoint.stateHeld() != VerbsEndpoint.State.IDLE) {
                throw new RdmaException("connect: endpoint is " + endpoint.stateHeld() + ", not IDLE");
            }
            ByteBuffer copy = ByteBuffer.allocateDirect(privateData.remaining());
            copy.put(privateData.duplicate()).flip();
            connectPrivateData = copy;
            inboundReadDepth = Math.min(parameters.inboundReadDepth(), provider.capabilities().maxInboundReadDepth());
            outboundReadDepth = Math.min(parameters.outboundReadDepth(),
                    provider.capabilities().maxOutboundReadDepth());
            endpoint.peerAddress(peer);
            enterHeld(VerbsEndpoint.State.RESOLVING_ADDRESS);
            try {
                backend.resolveAddr(id, peer, settings.resolveTimeoutMillis());
            } catch (IOException e) {
                endpoint.stateHeld(VerbsEndpoint.State.IDLE);
                throw new RdmaException("rdma_resolve_addr to " + peer + " failed: " + e.getMessage(), e);
            }
        }
        endpoint.watchNow();
    }

    /** Passive side, before accept: the peer's IRD as its request carried it (0: unknown). */
    void peerInboundReadDepth(int ird) {
        synchronized (lock) {
            peerInboundReadDepth = ird;
        }
    }

    void accept(ConnectParameters parameters) throws RdmaException {
        Objects.requireNonNull(parameters, "parameters");
        ByteBuffer privateData = parameters.privateData();
        if (features.privateData() && privateData.remaining() > VerbsConstants.MAX_ACCEPT_PRIVATE_DATA) {
            throw new RdmaException("accept: private data of " + privateData.remaining() + " bytes exceeds "
                    + VerbsConstants.MAX_ACCEPT_PRIVATE_DATA + " (rdma_accept limit on InfiniBand)");
        }
        synchronized (lock) {
            if (!passive) {
                throw new RdmaException("accept: endpoint is active (created by the provider); use connect");
            }
            if (endpoint.stateHeld() != VerbsEndpoint.State.REQUESTED) {
                throw new RdmaException("accept: endpoint is " + endpoint.stateHeld() + ", not REQUESTED");
            }
            inboundReadDepth = Math.min(parameters.inboundReadDepth(), provider.capabilities().maxInboundReadDepth());
            outboundReadDepth = Math.min(parameters.outboundReadDepth(),
                    provider.capabilities().maxOutboundReadDepth());
            if (features.negotiatesReadDepth() && peerInboundReadDepth > 0) {
                // rdma_accept(3): initiator_depth at most the responder resources the request offered
                outboundReadDepth = Math.min(outboundReadDepth, peerInboundReadDepth);
            }
            enterHeld(VerbsEndpoint.State.ACCEPTING);
            try {
                backend.accept(id, new VerbsBackend.CmConnParam(privateData.duplicate(), inboundReadDepth,
                        outboundReadDepth, settings.retryCount(), settings.rnrRetryCount()));
            } catch (IOException e) {
                endpoint.stateHeld(VerbsEndpoint.State.REQUESTED);
                throw new RdmaException("rdma_accept from " + endpoint.peerAddress() + " failed: " + e.getMessage(),
                        e);
            }
        }
        endpoint.watchNow();
        if (privateData.hasRemaining() && !features.privateData()) {
            LOG.warn("accept from {}: {} bytes of private data not sent (the {} backend's rdma_accept carries no "
                    + "private data)", endpoint.peerAddress(), privateData.remaining(), features.name());
        }
    }

    /** Under the lock: {@code phase} begins now. */
    private void enterHeld(VerbsEndpoint.State phase) {
        endpoint.stateHeld(phase);
        phaseStarted = group.nanoTime();
    }

    /** Under the lock: when the current phase began. */
    long phaseStartedHeld() {
        return phaseStarted;
    }

    /** Group thread: ADDR_RESOLVED. */
    void onAddressResolved() {
        String failure = null;
        synchronized (lock) {
            if (endpoint.stateHeld() != VerbsEndpoint.State.RESOLVING_ADDRESS) {
                return;
            }
            enterHeld(VerbsEndpoint.State.RESOLVING_ROUTE);
            try {
                backend.resolveRoute(id, settings.resolveTimeoutMillis());
            } catch (IOException e) {
                failure = "rdma_resolve_route failed: " + e.getMessage();
            }
        }
        if (failure != null) {
            endpoint.endOnGroup(DisconnectCause.UNREACHABLE, failure);
        }
    }

    /**
     * Group thread: ROUTE_RESOLVED. {@code rdma_connect} is handed to the provider's connect
     * threads: on iWARP it blocks for the TCP handshake (siw connects its socket in blocking mode),
     * which on this thread would stop the completions of every connection of the device for as long
     * as the peer's SYN goes unanswered. The endpoint's deadline still bounds the connect; what must
     * follow the call on the identifier (rdma_disconnect, the destroys) waits for it to return
     * ({@link #afterConnectCall}).
     */
    void onRouteResolved() {
        VerbsBackend.CmConnParam parameters;
        String down = portDown();
        if (down != null) {
            synchronized (lock) {
                if (endpoint.stateHeld() != VerbsEndpoint.State.RESOLVING_ROUTE) {
                    return;
                }
            }
            // as a failed route resolution: the queue pair never got connected
            endpoint.queuePairInError("rdma_connect not made: " + down);
            endpoint.endOnGroup(DisconnectCause.UNREACHABLE, "rdma_connect not made: " + down);
            return;
        }
        synchronized (lock) {
            enterHeld(VerbsEndpoint.State.CONNECTING);
            parameters = new VerbsBackend.CmConnParam(connectPrivateData.duplicate(), inboundReadDepth,
                    outboundReadDepth, settings.retryCount(), settings.rnrRetryCount());
            holdHeld();
        }
        try {
            provider.connectCalls().execute(() -> connectNow(parameters));
        } catch (RejectedExecutionException e) {
            release();
            endpoint.queuePairInError("rdma_connect not made: the verbs provider is shutting down");
            endpoint.endOnGroup(DisconnectCause.PROVIDER_SHUTDOWN, "rdma_connect not made: the verbs provider is "
                    + "shutting down");
        }
    }

    /**
     * Why no CM message may be sent now, or null: with {@code endConnectionsOnPortDown} (the
     * default), the device's port as the kernel shows it is not ACTIVE. On rxe a connect whose
     * request goes out on a down port leaves the device's connection manager broken after the port
     * is up again (every later connect of any process goes unanswered until the driver is reloaded;
     * seen with rping alone on 6.1.0-56), so the provider refuses the connect instead.
     */
    private String portDown() {
        if (!settings.endConnectionsOnPortDown()) {
            return null;
        }
        String state = provider.portDownState();
        return state == null ? null : "port 1 of the RDMA device is down (" + state + "); no connection manager"
                + " message is sent on a down port: try again once it is up";
    }

    /** A connect thread (or the group thread of a provider driven by a test): the call itself. */
    private void connectNow(VerbsBackend.CmConnParam parameters) {
        String failure = null;
        boolean refused = false;
        try {
            backend.connect(id, parameters);
        } catch (IOException e) {
            failure = e.getMessage().startsWith("rdma_connect") ? e.getMessage()
                    : "rdma_connect failed: " + e.getMessage();
            // an iWARP connect is a TCP connect: no listener on the port refuses it at once
            refused = e instanceof NativeCallException n && n.errno() == NativeCallException.ECONNREFUSED;
        } catch (RuntimeException e) {
            failure = "rdma_connect failed: " + e;
        } finally {
            release();
        }
        if (failure != null) {
            String text = failure;
            DisconnectCause cause = refused ? DisconnectCause.UNREACHABLE : DisconnectCause.CONNECT_ERROR;
            group.execute(() -> {
                // the queue pair never got connected: a device need not flush it (siw leaves the receives
                // posted before a refused rdma_connect unflushed), so what is posted completes as FLUSHED now
                endpoint.queuePairInError(text);
                endpoint.endOnGroup(cause, text);
            });
        }
    }

    /** Under the lock: one more hold on the calls on the identifier. */
    private void holdHeld() {
        holds++;
        if (afterConnect == null) {
            afterConnect = new ArrayList<>();
        }
    }

    /**
     * Group thread: the device's port went down. The calls on the identifier that send a CM message
     * ({@code rdma_disconnect}, the destroys of a connected identifier) wait until it is up again
     * ({@link #releaseForPort}): sent while the port is down, the message is lost, and on soft-RoCE
     * (rxe) the send puts the device's MAD queue pair in the error state for good, so that no
     * connection is made on the device until its driver is reloaded.
     */
    void holdForPort() {
        synchronized (lock) {
            if (portHeld) {
                return;
            }
            portHeld = true;
            holdHeld();
        }
    }

    /** The port is up again (or the provider stops): the calls held for it run now, in order, on this thread. */
    void releaseForPort() {
        synchronized (lock) {
            if (!portHeld) {
                return;
            }
            portHeld = false;
        }
        release();
    }

    /**
     * One hold less (the connect call returned, or the port is up); with none left, what waited runs
     * now, in order, on this thread.
     */
    private void release() {
        synchronized (lock) {
            holds--;
        }
        while (true) {
            Runnable next;
            synchronized (lock) {
                if (holds > 0) {
                    return;
                }
                if (afterConnect == null || afterConnect.isEmpty()) {
                    afterConnect = null;
                    return;
                }
                next = afterConnect.remove(0);
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                LOG.warn("{}: a call that waited for rdma_connect or the port failed", endpoint, e);
            }
        }
    }

    /**
     * Runs {@code task}, a call on the identifier or its queue pair, now, or, while {@code rdma_connect}
     * is still in the kernel, on the connect thread once it returns, after what was asked before (the
     * identifier's calls are serialized; waiting here would hold up the caller, the group thread
     * included).
     */
    void afterConnectCall(Runnable task) {
        synchronized (lock) {
            if (afterConnect != null) {
                afterConnect.add(task);
                return;
            }
        }
        task.run();
    }

    /**
     * Group thread: ESTABLISHED ({@code event}), or the first successful completion ({@code event}
     * null, {@link #establishedByCompletion}): the endpoint is established ({@link #established}),
     * the read depths in effect and the addresses are read, and {@code onEstablished} is delivered
     * with the peer's accept private data (active side).
     */
    void onEstablished(VerbsBackend.CmEvent event) {
        if (!established(event)) {
            return;
        }
        establishedSeen = true;
        readDepthsInEffect();
        try {
            InetSocketAddress local = backend.localAddress(id);
            endpoint.localAddress(local);
            endpoint.peerAddress(backend.peerAddress(id));
        } catch (IOException e) {
            LOG.debug("addresses of {} unavailable: {}", endpoint, e.getMessage());
        }
        if (!endpoint.isClosed()) {
            try {
                // the peer's accept private data (active side); DiSNI 2.0 surfaces none
                handler.onEstablished(event == null || passive || !features.privateData()
                        || event.privateData().length == 0 ? endpoint.empty
                                : ByteBuffer.wrap(event.privateData()).asReadOnlyBuffer());
            } catch (RuntimeException e) {
                LOG.error("onEstablished handler of {} failed", endpoint, e);
            }
        }
    }

    /** Group thread: a successful completion proves the connection is up; onEstablished first if not yet. */
    void establishedByCompletion() {
        if (!establishedSeen) {
            onEstablished(null);
        }
    }

    /**
     * Group thread, ESTABLISHED (or the first successful completion: {@code event} null): moves a
     * connecting or accepting endpoint to ESTABLISHED with the read depths the CM reports; false
     * when it was in another state.
     */
    boolean established(VerbsBackend.CmEvent event) {
        synchronized (lock) {
            VerbsEndpoint.State state = endpoint.stateHeld();
            if (state != VerbsEndpoint.State.CONNECTING && state != VerbsEndpoint.State.ACCEPTING) {
                return false;
            }
            if (event != null && features.negotiatesReadDepth() && !passive) {
                // the accept's values as the CM reports them to us: initiator_depth is the peer's
                // responder resources (bounds our ORD), responder_resources its initiator depth
                if (event.initiatorDepth() > 0) {
                    outboundReadDepth = Math.min(outboundReadDepth, event.initiatorDepth());
                }
                if (event.responderResources() > 0) {
                    inboundReadDepth = Math.min(inboundReadDepth, event.responderResources());
                }
            }
            endpoint.stateHeld(VerbsEndpoint.State.ESTABLISHED);
            return true;
        }
    }

    /**
     * Group thread, once established: the IRD and ORD the device put in effect on the queue pair
     * ({@code ibv_query_qp}) replace those asked for, whether lower or higher (siw sets the IRD it
     * chooses and puts it on the wire); what the endpoint reports, and what the engine logs and
     * shows, is then what the connection has. Without the query (DiSNI) the values negotiated stay.
     */
    void readDepthsInEffect() {
        VerbsBackend.QueuePairReadDepths depths;
        try {
            depths = backend.queryReadDepths(qp);
        } catch (IOException e) {
            LOG.debug("{}: the read depths in effect are unknown: {}", endpoint, e.getMessage());
            return;
        }
        if (depths == null) {
            return;
        }
        int ird = StatusMapper.inboundReadDepth(depths, provider.device());
        int ord = StatusMapper.outboundReadDepth(depths, provider.device());
        synchronized (lock) {
            if (ird > 0 || ord > 0) {
                LOG.debug("{}: IRD/ORD in effect {}/{} (asked {}/{})", endpoint, ird, ord, inboundReadDepth,
                        outboundReadDepth);
            }
            if (ird > 0) {
                inboundReadDepth = ird;
            }
            if (ord > 0) {
                outboundReadDepth = ord;
            }
        }
    }

    int inboundReadDepth() {
        synchronized (lock) {
            return inboundReadDepth;
        }
    }

    int outboundReadDepth() {
        synchronized (lock) {
            return outboundReadDepth;
        }
    }
}
