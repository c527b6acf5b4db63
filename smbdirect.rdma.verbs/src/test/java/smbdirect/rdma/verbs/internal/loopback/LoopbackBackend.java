package smbdirect.rdma.verbs.internal.loopback;

import static smbdirect.rdma.verbs.internal.VerbsConstants.*;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend;

/**
 * A functional software RC device behind the {@link VerbsBackend} seam: one per provider, attached
 * to a shared {@link LoopbackNetwork}. It behaves as librdmacm and libibverbs do, as far as the
 * provider can observe:
 *
 * <ul>
 * <li><b>RDMA CM.</b> Binding refuses an address in use; {@code rdma_resolve_addr} reports
 * ADDR_RESOLVED when a device owns the address, ADDR_ERROR otherwise; {@code rdma_connect} to a
 * port without listener is REJECTED (what the IB CM's REJ "invalid service ID" and iWARP's
 * ECONNREFUSED become in librdmacm); otherwise the listener's device gets CONNECT_REQUEST with a
 * new identifier that keeps the connect private data ({@link #requestPrivateData}). {@code rdma_accept}
 * establishes the connection and both sides get ESTABLISHED; {@code rdma_reject}, or destroying an
 * unaccepted request, rejects it (REJECTED at the active side).</li>
 * <li><b>What the CM events carry</b> depends on the backend it stands for. {@link #AS_DISNI}: the
 * type and identifiers only, as DiSNI 2.0 surfaces them. {@link #AS_RDMA_CORE}: as librdmacm on an
 * InfiniBand CM (InfiniBand, RoCE): CONNECT_REQUEST with the private data and the peer's IRD/ORD
 * (responder_resources = its initiator depth, initiator_depth = its responder resources), the
 * active side's ESTABLISHED with the accept's private data and values the same way, REJECTED with
 * the reject's private data and the reject reason as status (8, invalid service ID, for a port
 * without listener; 28, consumer defined, for {@code rdma_reject} or a destroyed request). It
 * carries the private data as an InfiniBand CM reports it: the whole field of the CM message, the
 * bytes sent first, then zeros (as Linux rxe does).
 * {@code rdma_disconnect} moves the local queue pair to the error state and both sides get
 * DISCONNECTED; the peer's queue pair goes to the error state when the peer calls
 * {@code rdma_disconnect} in turn.</li>
 * <li><b>Queue pairs.</b> Work requests execute when posted, completions are queued on the queue
 * pair's CQ in order. A Send consumes the peer's oldest posted receive, copying between the
 * registered direct buffers; with no receive posted it fails with RNR_RETRY_EXC_ERR (RNR retry 0);
 * a receive too short completes with LOC_LEN_ERR and the Send with REM_INV_REQ_ERR. RDMA Read and
 * Write are checked against the peer's live registration (rkey, access, bounds) and fail with
 * REM_ACCESS_ERR. Send with Invalidate invalidates the receiver's registration and reports its rkey
 * with IBV_WC_WITH_INV. A failed work request moves its queue pair to the error state; a queue
 * pair in the error state completes every outstanding and later receive and send as
 * WR_FLUSH_ERR.</li>
 * <li><b>Completion channel.</b> {@code ibv_req_notify_cq} arms the CQ; the next completion
 * queued after arming raises one event, which {@link #awaitCompletionEvent} waits for and
 * acknowledges.</li>
 * <li><b>Type 2 memory windows</b> (as rxe and mlx5 have them): {@code ibv_alloc_mw} on a
 * protection domain; an {@code IBV_WR_BIND_MW} work request binds one over a range of a registration
 * made with {@code IBV_ACCESS_MW_BIND} (and local write for a writable window), under the rkey the
 * request names; the peer reaches the range through that queue pair only; {@code ibv_dealloc_mw}
 * and a peer's Send with Invalidate naming the rkey end it.</li>
 * <li><b>Asynchronous events</b> (a backend standing for rdma-core): the responder of a refused RDMA
 * Read or Write gets IBV_EVENT_QP_ACCESS_ERR and its queue pair goes to the error state, as an
 * InfiniBand responder (class C) and Linux siw do; {@link #raiseAsyncEvent} raises any event.</li>
 * </ul>
 *
 * <p>Memory: a registration keeps a view of the registered bytes and gets a virtual address range
 * of its own from the network; work requests name (address, length, key), resolved to the view
 * through the live registration of that key.
 *
 * <p>Thread-safe: all state is guarded by the network's monitor (see {@link LoopbackNetwork}).
 */
public final class LoopbackBackend implements VerbsBackend {

    /** A backend that shows what DiSNI 2.0 shows. */
    public static final Features AS_DISNI = new Features("loopback (as disni)", false, false, false);
    /** A backend that shows what rdma-core shows. */
    public static final Features AS_RDMA_CORE = new Features("loopback (as rdma-core)", true, true, true);

    private final LoopbackNetwork net;
    private final Features features;
    final InetAddress ip;
    private final Dev device;
    private final Deque<CmEvent> events = new ArrayDeque<>();
    private final Set<Id> ids = new LinkedHashSet<>();
    private final Set<Pd> pds = new LinkedHashSet<>();
    /** Every protection domain ever allocated (a deallocated one must have no registration left). */
    private final List<Pd> allPds = new ArrayList<>();
    private int nextId = 1;
    private final Set<Cq> cqs = new LinkedHashSet<>();
    private final Set<Qp> qps = new LinkedHashSet<>();
    private final Set<Mw> windows = new LinkedHashSet<>();
    /** The asynchronous event handler (rdma-core personality only); guarded by the network. */
    private AsyncEventHandler asyncHandler;
    /** Events raised under the network's monitor, delivered after it is released; guarded by the network. */
    private final List<Runnable> pendingAsync = new ArrayList<>();
    /** Misuse the device would punish later (reported with the leaks); guarded by the network. */
    private final List<String> misuse = new ArrayList<>();
    boolean closed;

    /** The completion vectors every loopback device reports (as a 4-vector RNIC does). */
    static final int COMPLETION_VECTORS = 4;

    LoopbackBackend(LoopbackNetwork net, InetAddress ip, int deviceKey, Features features) {
        this.net = net;
        this.features = features;
        this.ip = ip;
        this.device = new Dev(deviceKey, COMPLETION_VECTORS);
    }

    /** The device's address. */
    public InetAddress address() {
        return ip;
    }

    enum IdState { IDLE, BOUND, LISTENING, RESOLVED, CONNECTING, REQUEST, CONNECTED, DISCONNECTED, REJECTED }

    /** An {@code rdma_cm_id}. */
    static final class Id implements CmId {
        final LoopbackBackend owner;
        final int n;
        IdState state = IdState.IDLE;
        InetSocketAddress local;
        InetSocketAddress peer;
        Qp qp;
        /** The other end: the passive request of a connecting active id, or the connected peer. */
        Id remote;
        byte[] privateData = new byte[0];
        /** The IRD (responder resources) and ORD (initiator depth) this identifier connected or accepted with. */
        int responderResources;
        int initiatorDepth;
        boolean destroyed;

        Id(LoopbackBackend owner, int n) {
            this.owner = owner;
            this.n = n;
        }

        @Override
        public String toString() {
            return "cm_id " + n + "@" + owner.ip.getHostAddress() + " " + state + " " + local + " -> " + peer;
        }
    }

    /** The device; {@code completionVectors} as {@code ibv_context.num_comp_vectors} says. */
    record Dev(int key, int completionVectors) implements Device {
    }

    static final class Pd implements ProtectionDomain {
        final Map<Integer, Mr> byLocalKey = new HashMap<>();
        final Map<Integer, Mr> byRemoteKey = new HashMap<>();
    }

    static final class Cq implements CompletionQueue {
        final Deque<long[]> entries = new ArrayDeque<>();
        boolean armed;
        int events;
        boolean destroyed;
    }

    record Recv(long wrId, long address, int length, int localKey) {
    }

    static final class Qp implements QueuePair {
        final Id id;
        final Pd pd;
        final Cq cq;
        final int number;
        final int maxRecv;
        final Deque<Recv> receives = new ArrayDeque<>();
        /** The connected peer's queue pair. */
        Qp peer;
        boolean error;
        boolean destroyed;

        Qp(Id id, Pd pd, Cq cq, int number, int maxRecv) {
            this.id = id;
            this.pd = pd;
            this.cq = cq;
            this.number = number;
            this.maxRecv = maxRecv;
        }
    }

    static final class Mr implements RegisteredMemory {
        final Pd pd;
        final long address;
        final int length;
        final int localKey;
        final int remoteKey;
        final int access;
        final ByteBuffer view;
        /** Invalidated by a peer's Send with Invalidate: neither key is usable any more. */
        boolean invalidated;
        /** A memory window's range: the only queue pair it can be reached through (type 2B). */
        Qp boundTo;
        /** A memory window's range: the registration it lies in. */
        Mr parent;

        Mr(Pd pd, long address, int length, int localKey, int remoteKey, int access, ByteBuffer view) {
            this.pd = pd;
            this.address = address;
            this.length = length;
            this.localKey = localKey;
            this.remoteKey = remoteKey;
            this.access = access;
            this.view = view;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public int localKey() {
            return localKey;
        }

        @Override
        public int remoteKey() {
            return remoteKey;
        }

        /** The view of [address, address + length) when it lies inside the registration, else null. */
        ByteBuffer slice(long at, int bytes) {
            if (invalidated || bytes < 0 || at < address || at + bytes > address + length) {
                return null;
            }
            return view.duplicate().position((int) (at - address)).limit((int) (at - address) + bytes).slice();
        }
    }

    /** A type 2 memory window: free until a bind gives it a range and an rkey. */
    static final class Mw implements MemoryWindow {
        final Pd pd;
        final int initialKey;
        /** The bound range (an Mr standing for the window), {@code null} while free. */
        Mr bound;

        Mw(Pd pd, int initialKey) {
            this.pd = pd;
            this.initialKey = initialKey;
        }

        @Override
        public int remoteKey() {
            return initialKey;
        }
    }

    // ------------------------------------------------------------------ RDMA CM

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException("event channel destroyed");
        }
    }

    private void event(LoopbackBackend to, int type, Id listenId, Id id) {
        event(to, type, listenId, id, 0, null, 0, 0);
    }

    /**
     * Queues an event; a backend standing for DiSNI drops status, private data and IRD/ORD, as DiSNI
     * does. Private data comes as an InfiniBand CM reports it ({@link #field}).
     */
    private void event(LoopbackBackend to, int type, Id listenId, Id id, int status, byte[] data, int responder,
            int initiator) {
        to.events.add(to.features.privateData()
                ? new CmEvent(type, listenId, id, status, field(type, data), responder, initiator)
                : new CmEvent(type, listenId, id));
        net.notifyAll();
    }

    /**
     * The private data of a CM event as librdmacm reports it on an InfiniBand CM (InfiniBand, RoCE):
     * the whole private data field of the CM message, the bytes sent first, then zeros: 56 bytes for
     * CONNECT_REQUEST (the REQ's 92 less the RDMA CM's 36-byte header), 196 for the active side's
     * ESTABLISHED (the REP's), 148 for REJECTED (the REJ's, also when no listener sent it). The
     * passive side's ESTABLISHED (an RTU) carries none. Seen so on Linux rxe 6.1 (rdma-core 44).
     */
    static byte[] field(int type, byte[] data) {
        int size = switch (type) {
            case CM_EVENT_CONNECT_REQUEST -> MAX_CONNECT_PRIVATE_DATA;
            case CM_EVENT_ESTABLISHED -> data == null ? 0 : MAX_ACCEPT_PRIVATE_DATA;
            case CM_EVENT_REJECTED -> MAX_REJECT_PRIVATE_DATA;
            default -> data == null ? 0 : data.length;
        };
        return java.util.Arrays.copyOf(data == null ? new byte[0] : data, size);
    }

    @Override
    public Features features() {
        return features;
    }

    @Override
    public CmId createId() throws IOException {
        synchronized (net) {
            checkOpen();
            Id id = new Id(this, nextId++);
            ids.add(id);
            return id;
        }
    }

    private Id live(CmId cmId) throws IOException {
        Id id = (Id) cmId;
        if (id.destroyed || id.owner != this) {
            throw new IOException("EINVAL: " + id + " is destroyed or not of this channel");
        }
        return id;
    }

    @Override
    public void bindAddr(CmId cmId, InetSocketAddress address) throws IOException {
        synchronized (net) {
            Id id = live(cmId);
            if (id.local != null) {
                throw new IOException("EINVAL: " + id + " is already bound");
            }
            if (!address.getAddress().equals(ip) && !address.getAddress().isAnyLocalAddress()) {
                throw new IOException("EADDRNOTAVAIL: " + address + " is not an address of this device (" + ip + ")");
            }
            InetSocketAddress local = address.getPort() == 0
                    ? new InetSocketAddress(address.getAddress(), net.allocatePort()) : address;
            if (net.bound.containsKey(local)) {
                throw new IOException("EADDRINUSE: " + local);
            }
            net.bound.put(local, id);
            id.local = local;
            id.state = IdState.BOUND;
        }
    }

    @Override
    public void listen(CmId cmId, int backlog) throws IOException {
        synchronized (net) {
            Id id = live(cmId);
            if (id.state != IdState.BOUND) {
                throw new IOException("EINVAL: listen on " + id);
            }
            id.state = IdState.LISTENING;
            net.listeners.put(id.local, id);
        }
    }

    @Override
    public void resolveAddr(CmId cmId, InetSocketAddress destination, int timeoutMillis) throws IOException {
        synchronized (net) {
            Id id = live(cmId);
            id.peer = destination;
            id.state = IdState.RESOLVED;
            boolean reachable = net.backendAt(destination.getAddress()) != null;
            event(this, reachable ? CM_EVENT_ADDR_RESOLVED : CM_EVENT_ADDR_ERROR, null, id);
        }
    }

    @Override
    public void resolveRoute(CmId cmId, int timeoutMillis) throws IOException {
        synchronized (net) {
            Id id = live(cmId);
            event(this, CM_EVENT_ROUTE_RESOLVED, null, id);
        }
    }

    @Override
    public void connect(CmId cmId, CmConnParam parameters) throws IOException {
        ByteBuffer privateData = parameters.privateData();
        synchronized (net) {
            Id id = live(cmId);
            if (id.state != IdState.RESOLVED || id.qp == null) {
                throw new IOException("EINVAL: rdma_connect on " + id + (id.qp == null ? " without queue pair" : ""));
            }
            if (privateData.remaining() > MAX_CONNECT_PRIVATE_DATA) {
                throw new IOException("EINVAL: " + privateData.remaining() + " bytes of private data");
            }
            byte[] data = new byte[privateData.remaining()];
            privateData.duplicate().get(data);
            id.state = IdState.CONNECTING;
            id.responderResources = parameters.responderResources();
            id.initiatorDepth = parameters.initiatorDepth();
            LoopbackBackend server = net.backendAt(id.peer.getAddress());
            Id listener = net.listeners.get(id.peer);
            if (listener == null) {
                listener = net.listeners.get(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), id.peer.getPort()));
            }
            if (server == null || listener == null || listener.owner != server) {
                id.state = IdState.REJECTED;
                event(this, CM_EVENT_REJECTED, null, id, IB_CM_REJ_INVALID_SERVICE_ID, null, 0, 0);
                return;
            }
            Id request = new Id(server, server.nextId++);
            server.ids.add(request);
            request.state = IdState.REQUEST;
            request.local = id.peer;
            request.peer = id.local;
            request.privateData = data;
            request.remote = id;
            id.remote = request;
            event(server, CM_EVENT_CONNECT_REQUEST, listener, request, 0, data, id.initiatorDepth,
                    id.responderResources);
        }
    }

    @Override
    public void accept(CmId cmId, CmConnParam parameters) throws IOException {
        synchronized (net) {
            Id id = live(cmId);
            Id active = id.remote;
            if (id.state != IdState.REQUEST || id.qp == null) {
                throw new IOException("EINVAL: rdma_accept on " + id + (id.qp == null ? " without queue pair" : ""));
            }
            if (active == null || active.destroyed || active.state != IdState.CONNECTING || active.qp == null) {
                throw new IOException("ECONNABORTED: the active side of " + id + " gave up");
            }
            if (parameters.privateData().remaining() > MAX_ACCEPT_PRIVATE_DATA) {
                throw new IOException("EINVAL: " + parameters.privateData().remaining() + " bytes of private data");
            }
            byte[] data = new byte[features.privateData() ? parameters.privateData().remaining() : 0];
            parameters.privateData().duplicate().get(data);
            id.responderResources = parameters.responderResources();
            id.initiatorDepth = parameters.initiatorDepth();
            id.state = IdState.CONNECTED;
            active.state = IdState.CONNECTED;
            id.qp.peer = active.qp;
            active.qp.peer = id.qp;
            // librdmacm: the active side's ESTABLISHED comes with the REP, the passive side's with the RTU
            event(active.owner, CM_EVENT_ESTABLISHED, null, active, 0, data, id.initiatorDepth,
                    id.responderResources);
            if (net.holdPassiveEstablished) {
                net.heldEvents.add(() -> event(this, CM_EVENT_ESTABLISHED, null, id));
            } else {
                event(this, CM_EVENT_ESTABLISHED, null, id);
            }
        }
    }

    @Override
    public int disconnect(CmId cmId) {
        synchronized (net) {
            Id id = (Id) cmId;
            if (id.destroyed) {
                return -1;
            }
            moveToError(id.qp);
            switch (id.state) {
                case CONNECTED:
                    id.state = IdState.DISCONNECTED;
                    event(this, CM_EVENT_DISCONNECTED, null, id);
                    Id peer = id.remote;
                    if (peer != null && !peer.destroyed && peer.state == IdState.CONNECTED) {
                        peer.state = IdState.DISCONNECTED;
                        event(peer.owner, CM_EVENT_DISCONNECTED, null, peer);
                    }
                    return 0;
                case DISCONNECTED:
                    return 0;
                case CONNECTING:
                    // gives up: an unanswered request at the passive side can no longer be accepted
                    id.state = IdState.DISCONNECTED;
                    return 0;
                default:
                    return -1;
            }
        }
    }

    @Override
    public void destroyId(CmId cmId) {
        synchronized (net) {
            Id id = (Id) cmId;
            if (id.destroyed) {
                return;
            }
            if (id.state == IdState.CONNECTED) {
                disconnect(id);
            }
            if (id.state == IdState.REQUEST) {
                rejectRequest(id, new byte[0]);
            }
            if (id.state == IdState.LISTENING) {
                net.listeners.remove(id.local, id);
            }
            if (id.local != null) {
                net.bound.remove(id.local, id);
            }
            id.destroyed = true;
            ids.remove(id);
        }
    }

    @Override
    public void reject(CmId cmId, ByteBuffer privateData) throws IOException {
        synchronized (net) {
            Id id = live(cmId);
            if (id.state != IdState.REQUEST) {
                throw new IOException("EINVAL: rdma_reject on " + id);
            }
            if (privateData.remaining() > MAX_REJECT_PRIVATE_DATA) {
                throw new IOException("EINVAL: " + privateData.remaining() + " bytes of private data");
            }
            byte[] data = new byte[privateData.remaining()];
            privateData.duplicate().get(data);
            rejectRequest(id, data);
            id.state = IdState.REJECTED;
        }
    }

    private void rejectRequest(Id request, byte[] data) {
        Id active = request.remote;
        if (active != null && !active.destroyed && active.state == IdState.CONNECTING) {
            active.state = IdState.REJECTED;
            event(active.owner, CM_EVENT_REJECTED, null, active, IB_CM_REJ_CONSUMER_DEFINED, data, 0, 0);
        }
    }

    @Override
    public InetSocketAddress localAddress(CmId cmId) {
        synchronized (net) {
            return ((Id) cmId).local;
        }
    }

    @Override
    public InetSocketAddress peerAddress(CmId cmId) {
        synchronized (net) {
            return ((Id) cmId).peer;
        }
    }

    @Override
    public CmEvent nextCmEvent(int timeoutMillis) throws IOException {
        synchronized (net) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (events.isEmpty() && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                waitNanos(left);
            }
            return events.poll();
        }
    }

    private void waitNanos(long nanos) {
        try {
            TimeUnit.NANOSECONDS.timedWait(net, nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        synchronized (net) {
            closed = true;
            net.notifyAll();
        }
    }

    /** The private data the active side gave {@code rdma_connect}, as the device received it with the request. */
    public byte[] requestPrivateData(CmId request) {
        synchronized (net) {
            return ((Id) request).privateData.clone();
        }
    }

    /** The connection requests that arrived at this device and were neither accepted nor rejected. */
    public List<CmId> pendingRequests() {
        synchronized (net) {
            return ids.stream().filter(id -> id.state == IdState.REQUEST).map(id -> (CmId) id).toList();
        }
    }

    // ------------------------------------------------------------------ verbs

    @Override
    public Device device(CmId cmId) throws IOException {
        synchronized (net) {
            live(cmId);
            return device;
        }
    }

    @Override
    public ProtectionDomain allocPd(Device device) throws IOException {
        synchronized (net) {
            checkOpen();
            Pd pd = new Pd();
            pds.add(pd);
            allPds.add(pd);
            return pd;
        }
    }

    @Override
    public CompletionQueue createCq(Device device, int entries, int pollBatch, int vector) throws IOException {
        synchronized (net) {
            checkOpen();
            if (vector < 0 || vector >= device.completionVectors()) {
                throw new IOException("ibv_create_cq: comp_vector " + vector + " of " + device.completionVectors()
                        + " (EINVAL)");
            }
            Cq cq = new Cq();
            cqs.add(cq);
            return cq;
        }
    }

    @Override
    public QueuePair createQp(CmId cmId, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException {
        synchronized (net) {
            Id id = live(cmId);
            if (id.qp != null && !id.qp.destroyed) {
                throw new IOException("EINVAL: " + id + " already has a queue pair");
            }
            Qp qp = new Qp(id, (Pd) pd, (Cq) cq, net.allocateQpNumber(), maxRecvWr);
            id.qp = qp;
            qps.add(qp);
            return qp;
        }
    }

    @Override
    public void destroyQp(CmId cmId, QueuePair queuePair) {
        synchronized (net) {
            Qp qp = (Qp) queuePair;
            for (Mw mw : windows) {
                if (mw.bound != null && mw.bound.boundTo == qp && !mw.bound.invalidated) {
                    // rxe keeps the queue pair of a bound type 2 window: its destroy waits 50 s and warns
                    misuse.add("queue pair " + qp.number + " destroyed with memory window rkey 0x"
                            + Integer.toHexString(mw.bound.remoteKey) + " still bound to it");
                }
            }
            qp.destroyed = true;
            qp.receives.clear();
            qps.remove(qp);
        }
    }

    @Override
    public RegisteredMemory register(ProtectionDomain protectionDomain, ByteBuffer buffer, int accessFlags)
            throws IOException {
        if (!buffer.isDirect()) {
            throw new IOException("EFAULT: not a direct buffer");
        }
        if ((accessFlags & ACCESS_REMOTE_WRITE) != 0 && (accessFlags & ACCESS_LOCAL_WRITE) == 0) {
            throw new IOException("EINVAL: remote write without local write");
        }
        synchronized (net) {
            checkOpen();
            Pd pd = (Pd) protectionDomain;
            int length = buffer.remaining();
            // as rxe: a registration no peer may access gets rkey 0 (the provider must not key its regions by rkey)
            int rkey = (accessFlags & (ACCESS_REMOTE_READ | ACCESS_REMOTE_WRITE)) == 0 ? 0 : net.allocateKey();
            Mr mr = new Mr(pd, net.allocateAddress(length), length, net.allocateKey(), rkey, accessFlags,
                    buffer.slice());
            pd.byLocalKey.put(mr.localKey, mr);
            if (rkey != 0) {
                pd.byRemoteKey.put(mr.remoteKey, mr);
            }
            return mr;
        }
    }

    @Override
    public void deregister(RegisteredMemory memory) throws IOException {
        synchronized (net) {
            Mr mr = (Mr) memory;
            for (Mw mw : windows) {
                if (mw.bound != null && mw.bound.parent == mr && !mw.bound.invalidated) {
                    // as rxe (rxe_dereg_mr: "Attempt to deregister an MR while bound to MWs")
                    throw new IOException("EINVAL: " + memory + " has a memory window bound to it");
                }
            }
            if (mr.pd.byLocalKey.remove(mr.localKey, mr)) {
                mr.pd.byRemoteKey.remove(mr.remoteKey, mr);
            } else {
                throw new IOException("EINVAL: " + memory + " is not registered");
            }
        }
    }

    @Override
    public void postRecv(QueuePair queuePair, long wrId, long address, int length, int localKey) throws IOException {
        synchronized (net) {
            Qp qp = (Qp) queuePair;
            if (qp.destroyed) {
                throw new IOException("EINVAL: queue pair destroyed");
            }
            if (qp.receives.size() >= qp.maxRecv) {
                throw new IOException("ENOMEM: receive queue full (" + qp.maxRecv + ")");
            }
            if (qp.error) {
                complete(qp, wrId, WC_WR_FLUSH_ERR, WC_RECV, 0, 0, 0);
                return;
            }
            qp.receives.add(new Recv(wrId, address, length, localKey));
        }
    }

    @Override
    public void postSend(QueuePair queuePair, SendRequest r) throws IOException {
        synchronized (net) {
            Qp qp = (Qp) queuePair;
            if (qp.destroyed) {
                throw new IOException("EINVAL: queue pair destroyed");
            }
            int opcode = completionOpcode(r.opcode);
            if (qp.error) {
                complete(qp, r.wrId, WC_WR_FLUSH_ERR, opcode, 0, 0, 0);
                return;
            }
            if (qp.peer == null) {
                throw new IOException("EINVAL: ibv_post_send on a queue pair that is not connected");
            }
            if (r.opcode == WR_BIND_MW) {
                bind(qp, r);
            } else {
                execute(qp, r, opcode);
            }
        }
        deliverAsyncEvents();
    }

    /** A bind of a type 2 memory window, checked as rxe checks it (rxe_mw.c). */
    private void bind(Qp qp, SendRequest r) {
        Mw mw = (Mw) r.bindWindow;
        Mr mr = (Mr) r.bindRegion;
        boolean writable = (r.bindAccess & ACCESS_REMOTE_WRITE) != 0;
        if (mw == null || !windows.contains(mw) || mw.pd != qp.pd || mw.bound != null || mr == null
                || qp.pd.byLocalKey.get(mr.localKey) != mr || (mr.access & ACCESS_MW_BIND) == 0
                || (writable && (mr.access & ACCESS_LOCAL_WRITE) == 0) || r.bindLength <= 0
                || r.bindAddress < mr.address || r.bindAddress + r.bindLength > mr.address + mr.length
                || (r.bindKey & ~0xff) != (mw.initialKey & ~0xff) || qp.pd.byRemoteKey.containsKey(r.bindKey)) {
            fail(qp, r.wrId, WC_MW_BIND_ERR, WC_BIND_MW);
            return;
        }
        Mr range = new Mr(qp.pd, r.bindAddress, (int) r.bindLength, 0, r.bindKey, r.bindAccess | ACCESS_LOCAL_WRITE,
                mr.slice(r.bindAddress, (int) r.bindLength));
        range.boundTo = qp;
        range.parent = mr;
        qp.pd.byRemoteKey.put(r.bindKey, range);
        mw.bound = range;
        complete(qp, r.wrId, WC_SUCCESS, WC_BIND_MW, 0, 0, 0);
    }

    @Override
    public MemoryWindow allocMw(ProtectionDomain pd) throws IOException {
        synchronized (net) {
            checkOpen();
            Mw mw = new Mw((Pd) pd, net.allocateKey() & ~0xff);
            windows.add(mw);
            return mw;
        }
    }

    @Override
    public void deallocMw(MemoryWindow window) throws IOException {
        synchronized (net) {
            Mw mw = (Mw) window;
            if (!windows.remove(mw)) {
                throw new IOException("EINVAL: memory window deallocated already");
            }
            if (mw.bound != null) {
                mw.bound.invalidated = true;
                mw.pd.byRemoteKey.remove(mw.bound.remoteKey, mw.bound);
            }
        }
    }

    @Override
    public boolean watchAsyncEvents(Device device, AsyncEventHandler handler) {
        synchronized (net) {
            if (!features.privateData()) {
                return false; // DiSNI 2.0 reads no asynchronous events
            }
            asyncHandler = handler;
            return true;
        }
    }

    @Override
    public void unwatchAsyncEvents(Device device) {
        synchronized (net) {
            asyncHandler = null;
        }
    }

    /**
     * Raises an asynchronous event as the device would: of {@code queuePair} (a QP event; the queue
     * pair goes to the error state for QP_FATAL, QP_REQ_ERR and QP_ACCESS_ERR), of
     * {@code completionQueue} (CQ_ERR), or of the port or device (both {@code null}).
     */
    public void raiseAsyncEvent(QueuePair queuePair, CompletionQueue completionQueue, int type, int port) {
        synchronized (net) {
            Qp qp = (Qp) queuePair;
            if (qp != null && (type == EVENT_QP_FATAL || type == EVENT_QP_REQ_ERR || type == EVENT_QP_ACCESS_ERR)) {
                moveToError(qp);
            }
            queueAsync(this, new AsyncEvent(type, qp, completionQueue, port));
        }
        deliverAsyncEvents();
    }

    /** The queue pairs of this device that are not destroyed, in creation order (tests). */
    public List<QueuePair> queuePairs() {
        synchronized (net) {
            return new ArrayList<>(qps);
        }
    }

    /** Guarded by the network: an event for {@code to}'s handler, delivered once the monitor is released. */
    private void queueAsync(LoopbackBackend to, AsyncEvent event) {
        AsyncEventHandler handler = to.asyncHandler;
        if (handler != null) {
            to.pendingAsync.add(() -> handler.onAsyncEvent(event));
        }
    }

    /** Delivers the events raised on any device of the network, outside its monitor. */
    private void deliverAsyncEvents() {
        List<Runnable> due = new ArrayList<>();
        synchronized (net) {
            for (LoopbackBackend b : net.backends) {
                due.addAll(b.pendingAsync);
                b.pendingAsync.clear();
            }
        }
        due.forEach(Runnable::run);
    }

    private static int completionOpcode(int wrOpcode) {
        switch (wrOpcode) {
            case WR_BIND_MW:
                return WC_BIND_MW;
            case WR_RDMA_WRITE:
                return WC_RDMA_WRITE;
            case WR_RDMA_READ:
                return WC_RDMA_READ;
            default:
                return WC_SEND;
        }
    }

    /** The local bytes a work request names, or null when the key, bounds or access do not allow it. */
    private static ByteBuffer local(Pd pd, int localKey, long address, int length, boolean write) {
        Mr mr = pd.byLocalKey.get(localKey);
        if (mr == null || (write && (mr.access & ACCESS_LOCAL_WRITE) == 0)) {
            return null;
        }
        return mr.slice(address, length);
    }

    private void execute(Qp qp, SendRequest r, int opcode) {
        ByteBuffer source = local(qp.pd, r.sgeLocalKey, r.sgeAddress, r.sgeLength, r.opcode == WR_RDMA_READ);
        if (source == null) {
            fail(qp, r.wrId, WC_LOC_PROT_ERR, opcode);
            return;
        }
        Qp peer = qp.peer;
        if (peer.destroyed || peer.error) {
            // nobody answers: the requester's retries run out
            fail(qp, r.wrId, WC_RETRY_EXC_ERR, opcode);
            return;
        }
        switch (r.opcode) {
            case WR_SEND:
            case WR_SEND_WITH_INV:
                send(qp, peer, r, source);
                return;
            case WR_RDMA_WRITE:
            case WR_RDMA_READ: {
                boolean write = r.opcode == WR_RDMA_WRITE;
                Mr target = peer.pd.byRemoteKey.get(r.remoteKey);
                ByteBuffer remote = target == null || (target.boundTo != null && target.boundTo != peer)
                        || (target.access & (write ? ACCESS_REMOTE_WRITE : ACCESS_REMOTE_READ)) == 0 ? null
                        : target.slice(r.remoteAddress, r.sgeLength);
                if (remote == null) {
                    fail(qp, r.wrId, WC_REM_ACCESS_ERR, opcode);
                    // the responder's queue pair breaks too, and says why
                    moveToError(peer);
                    queueAsync(peer.id.owner, new AsyncEvent(EVENT_QP_ACCESS_ERR, peer, null, 0));
                    return;
                }
                if (write) {
                    remote.put(source);
                } else {
                    source.put(remote);
                }
                complete(qp, r.wrId, WC_SUCCESS, opcode, r.sgeLength, 0, 0);
                return;
            }
            default:
                fail(qp, r.wrId, WC_LOC_QP_OP_ERR, opcode);
        }
    }

    private void send(Qp qp, Qp peer, SendRequest r, ByteBuffer source) {
        Recv recv = peer.receives.poll();
        if (recv == null) {
            fail(qp, r.wrId, WC_RNR_RETRY_EXC_ERR, WC_SEND);
            return;
        }
        if (r.sgeLength > recv.length()) {
            fail(peer, recv.wrId(), WC_LOC_LEN_ERR, WC_RECV);
            fail(qp, r.wrId, WC_REM_INV_REQ_ERR, WC_SEND);
            return;
        }
        ByteBuffer target = local(peer.pd, recv.localKey(), recv.address(), r.sgeLength, true);
        if (target == null) {
            fail(peer, recv.wrId(), WC_LOC_PROT_ERR, WC_RECV);
            fail(qp, r.wrId, WC_REM_OP_ERR, WC_SEND);
            return;
        }
        int flags = 0;
        if (r.opcode == WR_SEND_WITH_INV) {
            Mr invalidated = peer.pd.byRemoteKey.get(r.invalidateKey);
            if (invalidated == null || invalidated.invalidated
                    || (invalidated.boundTo != null && invalidated.boundTo != peer)) {
                fail(peer, recv.wrId(), WC_LOC_PROT_ERR, WC_RECV);
                fail(qp, r.wrId, WC_REM_INV_REQ_ERR, WC_SEND);
                return;
            }
            invalidated.invalidated = true;
            flags = WC_WITH_INV;
        }
        target.put(source);
        complete(peer, recv.wrId(), WC_SUCCESS, WC_RECV, r.sgeLength, flags == 0 ? 0 : r.invalidateKey, flags);
        complete(qp, r.wrId, WC_SUCCESS, WC_SEND, 0, 0, 0);
    }

    /** A failed work request: its completion, then the queue pair goes to the error state. */
    private void fail(Qp qp, long wrId, int status, int opcode) {
        complete(qp, wrId, status, opcode, 0, 0, 0);
        moveToError(qp);
    }

    /** The queue pair enters the error state: every posted receive is flushed, in order. */
    private void moveToError(Qp qp) {
        if (qp == null || qp.destroyed || qp.error) {
            return;
        }
        qp.error = true;
        Recv recv;
        while ((recv = qp.receives.poll()) != null) {
            complete(qp, recv.wrId(), WC_WR_FLUSH_ERR, WC_RECV, 0, 0, 0);
        }
    }

    private void complete(Qp qp, long wrId, int status, int opcode, int byteLength, int immData, int flags) {
        Cq cq = qp.cq;
        if (cq.destroyed) {
            return;
        }
        cq.entries.add(new long[] {wrId, status, opcode, 0, byteLength, immData, flags, qp.number});
        if (cq.armed) {
            cq.armed = false;
            cq.events++;
        }
        net.notifyAll();
    }

    @Override
    public int poll(CompletionQueue completionQueue, CompletionBatch batch) throws IOException {
        synchronized (net) {
            Cq cq = (Cq) completionQueue;
            if (cq.destroyed) {
                throw new IOException("EINVAL: completion queue destroyed");
            }
            int n = 0;
            long[] e;
            while (n < batch.capacity() && (e = cq.entries.poll()) != null) {
                batch.set(n++, e[0], (int) e[1], (int) e[2], (int) e[3], (int) e[4], (int) e[5], (int) e[6], (int) e[7]);
            }
            return n;
        }
    }

    @Override
    public void requestNotify(CompletionQueue completionQueue) throws IOException {
        synchronized (net) {
            ((Cq) completionQueue).armed = true;
        }
    }

    @Override
    public boolean awaitCompletionEvent(CompletionQueue completionQueue, int timeoutMillis) throws IOException {
        synchronized (net) {
            Cq cq = (Cq) completionQueue;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (cq.events == 0 && !cq.destroyed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                waitNanos(left);
            }
            if (cq.events > 0) {
                cq.events--;
                return true;
            }
            return false;
        }
    }

    @Override
    public void destroyCq(CompletionQueue completionQueue) {
        synchronized (net) {
            Cq cq = (Cq) completionQueue;
            cq.destroyed = true;
            cqs.remove(cq);
            net.notifyAll();
        }
    }

    @Override
    public void deallocPd(ProtectionDomain pd) {
        synchronized (net) {
            pds.remove(pd);
        }
    }

    /** Guarded by the network. */
    void leaks(List<String> out) {
        String device = "device " + this.device.key() + " (" + ip.getHostAddress() + "): ";
        for (Id id : ids) {
            out.add(device + id + " not destroyed");
        }
        for (Qp qp : qps) {
            out.add(device + "queue pair " + qp.number + " of " + qp.id + " not destroyed");
        }
        for (Pd pd : pds) {
            out.add(device + "protection domain not deallocated");
        }
        for (Pd pd : allPds) {
            for (Mr mr : pd.byLocalKey.values()) {
                out.add(device + "registration of " + mr.length + " bytes (rkey 0x" + Integer.toHexString(mr.remoteKey)
                        + ") not deregistered");
            }
        }
        for (Cq cq : cqs) {
            out.add(device + "completion queue not destroyed (" + cq.entries.size() + " entries)");
        }
        for (Mw mw : windows) {
            out.add(device + "memory window not deallocated" + (mw.bound == null ? ""
                    : " (bound, rkey 0x" + Integer.toHexString(mw.bound.remoteKey) + ")"));
        }
        for (String m : misuse) {
            out.add(device + m);
        }
        if (!closed) {
            out.add(device + "event channel not destroyed");
        }
    }
}
