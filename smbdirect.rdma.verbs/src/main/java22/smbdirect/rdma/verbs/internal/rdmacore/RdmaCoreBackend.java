package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsConstants;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * {@link VerbsBackend} over rdma-core's libibverbs and librdmacm through the Foreign Function &amp;
 * Memory API. What DiSNI 2.0 lacks it has: private data on accept and reject and in CM events, the
 * peer's IRD/ORD and the reject status, IRD/ORD as given to {@code rdma_connect}/{@code rdma_accept},
 * {@code sockaddr_in6}.
 *
 * <p><b>Handles.</b> Every native object is held by a handle with a state; a call on a destroyed
 * handle, on an identifier without device, or after {@link #close} is refused with a
 * {@link NativeCallException} naming the call and an errno (EINVAL, ENODEV) before anything reaches
 * C, so a use after free cannot happen through this class. Each handle's calls run under its
 * monitor, so a destroy waits for a call in progress on it.
 *
 * <p><b>Posting and polling</b> allocate nothing: each queue pair has its own native
 * {@code ibv_send_wr} + {@code ibv_sge} and {@code ibv_recv_wr} + {@code ibv_sge}, prepared once
 * (single SGE, no chaining) and refilled per post; each completion queue a native {@code ibv_wc}
 * array of the poll batch. The inline verbs are called through the function pointers of
 * {@code ibv_context.ops}, read once per queue pair or completion queue (the ops of a context never
 * change after it was opened).
 *
 * <p><b>Waiting.</b> The CM event channel and the completion channels are non-blocking;
 * {@link #nextCmEvent} and {@link #awaitCompletionEvent} wait in {@code poll(2)} with the timeout
 * given.
 *
 * <p>Thread-safety: as {@link VerbsBackend} requires; every handle is guarded by its monitor, the
 * event channel by its own lock.
 */
public final class RdmaCoreBackend implements VerbsBackend {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreBackend.class);
    static final Features FEATURES = new Features(VerbsSettings.RDMA_CORE, true, true, true);

    private final Natives n;
    /** rdma_event_channel*, guarded by {@link #cmLock}. */
    private final MemorySegment channel;
    private final Object cmLock = new Object();
    /** For the CM thread's waits: a pollfd, the event pointer, errno; only under {@link #cmLock}. */
    private final MemorySegment cmPoll;
    private final MemorySegment cmEventOut;
    private final MemorySegment cmCapture;
    private volatile boolean closed;
    private final Map<Long, Id> ids = new ConcurrentHashMap<>();
    private final Map<Long, Dev> devices = new ConcurrentHashMap<>();
    /** This backend's queue pairs and completion queues by address, for their asynchronous events. */
    private final Map<Long, Qp> qps = new ConcurrentHashMap<>();
    private final Map<Long, Cq> cqs = new ConcurrentHashMap<>();
    /** The devices whose asynchronous events this backend watches. */
    private final Map<Dev, AsyncEventHandler> watched = new ConcurrentHashMap<>();
    private final AtomicInteger deviceKeys = new AtomicInteger();

    /** @param channel the event channel the access opened (owned by this backend from now on) */
    RdmaCoreBackend(Natives natives, MemorySegment channel) throws IOException {
        this.n = natives;
        this.channel = channel.reinterpret(Abi.RDMA_EVENT_CHANNEL.byteSize());
        Arena arena = Arena.ofAuto();
        this.cmPoll = arena.allocate(Abi.POLLFD);
        this.cmEventOut = arena.allocate(ADDRESS);
        this.cmCapture = arena.allocate(Natives.CAPTURE);
        int fd = this.channel.get(JAVA_INT, Abi.EVENT_CHANNEL_FD);
        nonBlocking(natives, fd, "the RDMA CM event channel");
        cmPoll.set(JAVA_INT, Abi.POLLFD_FD, fd);
        cmPoll.set(JAVA_SHORT, Abi.POLLFD_EVENTS, Abi.POLLIN);
    }

    @Override
    public Features features() {
        return FEATURES;
    }

    // ------------------------------------------------------------------ handles

    /** An rdma_cm_id. */
    static final class Id implements CmId {
        final MemorySegment ptr;
        /** Guarded by this. */
        boolean destroyed;
        /** The queue pair created on this identifier, guarded by this. */
        Qp qp;

        Id(MemorySegment ptr) {
            this.ptr = ptr.reinterpret(Abi.RDMA_CM_ID.byteSize());
        }

        @Override
        public String toString() {
            return "rdma_cm_id@0x" + Long.toHexString(ptr.address());
        }
    }

    /** An ibv_context opened by librdmacm. */
    static final class Dev implements Device {
        final MemorySegment context;
        final int key;

        Dev(MemorySegment context, int key) {
            this.context = context.reinterpret(Abi.IBV_CONTEXT.byteSize());
            this.key = key;
        }

        @Override
        public int key() {
            return key;
        }
    }

    /** An ibv_pd. */
    static final class Pd implements ProtectionDomain {
        final MemorySegment ptr;
        final Dev device;
        boolean destroyed;

        Pd(MemorySegment ptr, Dev device) {
            this.ptr = ptr.reinterpret(Abi.IBV_PD.byteSize());
            this.device = device;
        }
    }

    /** An ibv_cq with its completion channel, and what polling and waiting reuse. */
    static final class Cq implements CompletionQueue {
        final MemorySegment cq;
        final MemorySegment channel;
        final MemorySegment pollCq;
        final MemorySegment reqNotifyCq;
        final int capacity;
        final MemorySegment wcs;
        /** Two pollfds: the completion channel's and the wake eventfd's. */
        final MemorySegment pollFd;
        final MemorySegment eventCq;
        final MemorySegment eventContext;
        final MemorySegment capture;
        /** The eventfd that {@link #wakeCompletionWait} writes to end a wait at once; -1 without one. */
        final int wakeFd;
        /** 8 bytes holding 1: what a wake writes (read-only once built). */
        final MemorySegment wakeValue;
        /** 8 bytes the waiting thread reads the eventfd's counter into. */
        final MemorySegment wakeDrain;
        /** Guards {@link #wakeFd} against its close: a wake never writes to a closed (reused) descriptor. */
        final Object wakeLock = new Object();
        boolean wakeClosed;
        boolean destroyed;

        /** @param cq an ibv_cq whose context's ops are read here; {@code channel} may be NULL (tests) */
        Cq(MemorySegment cq, MemorySegment channel, int capacity) {
            this(cq, channel, capacity, -1);
        }

        /** @param wakeFd a non-blocking eventfd polled beside the channel, -1 for none */
        Cq(MemorySegment cq, MemorySegment channel, int capacity, int wakeFd) {
            this.cq = cq.reinterpret(Abi.IBV_CQ.byteSize());
            this.channel = channel.reinterpret(Abi.IBV_COMP_CHANNEL.byteSize());
            MemorySegment context = this.cq.get(ADDRESS, Abi.CQ_CONTEXT).reinterpret(Abi.IBV_CONTEXT.byteSize());
            this.pollCq = context.get(ADDRESS, Abi.CONTEXT_POLL_CQ);
            this.reqNotifyCq = context.get(ADDRESS, Abi.CONTEXT_REQ_NOTIFY_CQ);
            this.capacity = capacity;
            Arena arena = Arena.ofAuto();
            this.wcs = arena.allocate(Abi.IBV_WC.byteSize() * capacity, Abi.IBV_WC.byteAlignment());
            this.pollFd = arena.allocate(Abi.POLLFD.byteSize() * 2, Abi.POLLFD.byteAlignment());
            this.eventCq = arena.allocate(ADDRESS);
            this.eventContext = arena.allocate(ADDRESS);
            this.capture = arena.allocate(Natives.CAPTURE);
            this.wakeFd = wakeFd;
            this.wakeValue = arena.allocate(JAVA_LONG);
            this.wakeValue.set(JAVA_LONG, 0, 1L);
            this.wakeDrain = arena.allocate(JAVA_LONG);
            pollFd.set(JAVA_INT, Abi.POLLFD_FD, -1); // poll(2) ignores a negative descriptor
            pollFd.set(JAVA_INT, Abi.POLLFD.byteSize() + Abi.POLLFD_FD, wakeFd);
            pollFd.set(JAVA_SHORT, Abi.POLLFD.byteSize() + Abi.POLLFD_EVENTS, Abi.POLLIN);
            if (!channel.equals(MemorySegment.NULL)) {
                pollFd.set(JAVA_INT, Abi.POLLFD_FD, this.channel.get(JAVA_INT, Abi.COMP_CHANNEL_FD));
                pollFd.set(JAVA_SHORT, Abi.POLLFD_EVENTS, Abi.POLLIN);
            }
        }
    }

    /** An ibv_qp (created by rdma_create_qp on an identifier) and its prepared work requests. */
    static final class Qp implements QueuePair {
        final MemorySegment qp;
        /** The identifier the queue pair was created on (for rdma_notify); {@code null} in tests. */
        Id id;
        final MemorySegment postSend;
        final MemorySegment postRecv;
        final MemorySegment sendWr;
        final MemorySegment sendSge;
        final MemorySegment recvWr;
        final MemorySegment recvSge;
        final MemorySegment badWr;
        boolean destroyed;

        Qp(MemorySegment qp) {
            this.qp = qp.reinterpret(Abi.IBV_QP.byteSize());
            MemorySegment context = this.qp.get(ADDRESS, Abi.QP_CONTEXT).reinterpret(Abi.IBV_CONTEXT.byteSize());
            this.postSend = context.get(ADDRESS, Abi.CONTEXT_POST_SEND);
            this.postRecv = context.get(ADDRESS, Abi.CONTEXT_POST_RECV);
            Arena arena = Arena.ofAuto();
            this.sendWr = arena.allocate(Abi.IBV_SEND_WR);
            this.sendSge = arena.allocate(Abi.IBV_SGE);
            this.recvWr = arena.allocate(Abi.IBV_RECV_WR);
            this.recvSge = arena.allocate(Abi.IBV_SGE);
            this.badWr = arena.allocate(ADDRESS);
            sendWr.set(ADDRESS, Abi.SEND_WR_NEXT, MemorySegment.NULL);
            sendWr.set(ADDRESS, Abi.SEND_WR_SG_LIST, sendSge);
            sendWr.set(JAVA_INT, Abi.SEND_WR_NUM_SGE, 1);
            recvWr.set(ADDRESS, Abi.RECV_WR_NEXT, MemorySegment.NULL);
            recvWr.set(ADDRESS, Abi.RECV_WR_SG_LIST, recvSge);
            recvWr.set(JAVA_INT, Abi.RECV_WR_NUM_SGE, 1);
        }

        int qpNum() {
            return qp.get(JAVA_INT, Abi.QP_QP_NUM);
        }
    }

    /** An ibv_mr; keeps the registered buffer reachable while registered. */
    static final class Mr implements RegisteredMemory {
        final MemorySegment ptr;
        final long address;
        final int length;
        final int lkey;
        final int rkey;
        ByteBuffer buffer;
        boolean destroyed;

        Mr(MemorySegment ptr, ByteBuffer buffer) {
            this.ptr = ptr.reinterpret(Abi.IBV_MR.byteSize());
            this.address = this.ptr.get(JAVA_LONG, Abi.MR_ADDR);
            this.length = (int) this.ptr.get(JAVA_LONG, Abi.MR_LENGTH);
            this.lkey = this.ptr.get(JAVA_INT, Abi.MR_LKEY);
            this.rkey = this.ptr.get(JAVA_INT, Abi.MR_RKEY);
            this.buffer = buffer;
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
            return lkey;
        }

        @Override
        public int remoteKey() {
            return rkey;
        }
    }

    /** A type 2 ibv_mw of a protection domain. */
    static final class Mw implements MemoryWindow {
        final MemorySegment ptr;
        final int rkey;
        boolean destroyed;

        Mw(MemorySegment ptr) {
            this.ptr = ptr.reinterpret(Abi.IBV_MW.byteSize());
            this.rkey = this.ptr.get(JAVA_INT, Abi.MW_RKEY);
        }

        @Override
        public int remoteKey() {
            return rkey;
        }
    }

    private void open(String call) throws NativeCallException {
        if (closed) {
            throw Natives.refused(call, Abi.ENODEV, "the RDMA backend is closed");
        }
    }

    /** Refuses {@code call} on a destroyed handle (EINVAL) or a closed backend (ENODEV); allocates nothing otherwise. */
    private void usable(boolean destroyed, String call, String why) throws NativeCallException {
        if (destroyed) {
            throw Natives.refused(call, Abi.EINVAL, why);
        }
        open(call);
    }

    private Id live(CmId cmId, String call) throws NativeCallException {
        Id id = (Id) cmId;
        open(call);
        if (id.destroyed) {
            throw Natives.refused(call, Abi.EINVAL, id + " was destroyed");
        }
        return id;
    }

    // ------------------------------------------------------------------ CM

    @Override
    public CmId createId() throws IOException {
        synchronized (cmLock) {
            open("rdma_create_id");
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                MemorySegment out = a.allocate(ADDRESS);
                int rc = (int) n.rdmaCreateId.invokeExact(capture, channel, out, MemorySegment.NULL, Abi.RDMA_PS_TCP);
                if (rc != 0) {
                    throw n.failure("rdma_create_id", Natives.errno(capture), "");
                }
                Id id = new Id(out.get(ADDRESS, 0));
                ids.put(id.ptr.address(), id);
                return id;
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected("rdma_create_id", t);
            }
        }
    }

    /** Calls {@code int f(capture, id, args...)}; -1 with errno is a failure. */
    private void cmCall(String call, CmId cmId, String context, CmInvocation invocation) throws IOException {
        Id id = (Id) cmId;
        synchronized (id) {
            live(id, call);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                int rc = invocation.invoke(a, capture, id.ptr);
                if (rc != 0) {
                    throw n.failure(call, Natives.errno(capture), context);
                }
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected(call, t);
            }
        }
    }

    @FunctionalInterface
    private interface CmInvocation {
        int invoke(Arena arena, MemorySegment capture, MemorySegment id) throws Throwable;
    }

    @Override
    public void bindAddr(CmId id, InetSocketAddress address) throws IOException {
        cmCall("rdma_bind_addr", id, String.valueOf(address),
                (a, capture, ptr) -> (int) n.rdmaBindAddr.invokeExact(capture, ptr, sockaddr(a, address)));
    }

    @Override
    public void listen(CmId id, int backlog) throws IOException {
        cmCall("rdma_listen", id, "", (a, capture, ptr) -> (int) n.rdmaListen.invokeExact(capture, ptr, backlog));
    }

    @Override
    public void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException {
        cmCall("rdma_resolve_addr", id, String.valueOf(destination), (a, capture, ptr) -> (int) n.rdmaResolveAddr
                .invokeExact(capture, ptr, MemorySegment.NULL, sockaddr(a, destination), timeoutMillis));
    }

    @Override
    public void resolveRoute(CmId id, int timeoutMillis) throws IOException {
        cmCall("rdma_resolve_route", id, "",
                (a, capture, ptr) -> (int) n.rdmaResolveRoute.invokeExact(capture, ptr, timeoutMillis));
    }

    /** A struct rdma_conn_param in {@code a}: private data copied, IRD/ORD as given (at most 255). */
    static MemorySegment connParam(Arena a, CmConnParam p) {
        MemorySegment param = a.allocate(Abi.RDMA_CONN_PARAM);
        ByteBuffer data = p.privateData();
        if (data.hasRemaining()) {
            MemorySegment copy = a.allocate(data.remaining());
            copy.copyFrom(MemorySegment.ofBuffer(data.duplicate()));
            param.set(ADDRESS, Abi.CONN_PARAM_PRIVATE_DATA, copy);
            param.set(JAVA_BYTE, Abi.CONN_PARAM_PRIVATE_DATA_LEN, (byte) data.remaining());
        }
        param.set(JAVA_BYTE, Abi.CONN_PARAM_RESPONDER_RESOURCES, (byte) Math.min(255, p.responderResources()));
        param.set(JAVA_BYTE, Abi.CONN_PARAM_INITIATOR_DEPTH, (byte) Math.min(255, p.initiatorDepth()));
        param.set(JAVA_BYTE, Abi.CONN_PARAM_RETRY_COUNT, (byte) p.retryCount());
        param.set(JAVA_BYTE, Abi.CONN_PARAM_RNR_RETRY_COUNT, (byte) p.rnrRetryCount());
        return param;
    }

    @Override
    public void connect(CmId id, CmConnParam parameters) throws IOException {
        if (parameters.privateData().remaining() > 255) {
            throw Natives.refused("rdma_connect", Abi.EINVAL, parameters.privateData().remaining()
                    + " bytes of private data (private_data_len is a uint8_t)");
        }
        cmCall("rdma_connect", id, "", (a, capture, ptr) -> (int) n.rdmaConnect.invokeExact(capture, ptr,
                connParam(a, parameters)));
    }

    @Override
    public void accept(CmId id, CmConnParam parameters) throws IOException {
        if (parameters.privateData().remaining() > 255) {
            throw Natives.refused("rdma_accept", Abi.EINVAL, parameters.privateData().remaining()
                    + " bytes of private data (private_data_len is a uint8_t)");
        }
        cmCall("rdma_accept", id, "", (a, capture, ptr) -> (int) n.rdmaAccept.invokeExact(capture, ptr,
                connParam(a, parameters)));
    }

    @Override
    public void reject(CmId id, ByteBuffer privateData) throws IOException {
        int length = Math.min(255, privateData.remaining());
        cmCall("rdma_reject", id, "", (a, capture, ptr) -> {
            MemorySegment data = MemorySegment.NULL;
            if (length > 0) {
                data = a.allocate(length);
                data.copyFrom(MemorySegment.ofBuffer(privateData.duplicate().limit(privateData.position() + length)));
            }
            return (int) n.rdmaReject.invokeExact(capture, ptr, data, (byte) length);
        });
    }

    @Override
    public int disconnect(CmId cmId) {
        Id id = (Id) cmId;
        synchronized (id) {
            if (closed || id.destroyed) {
                return -1;
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                int rc = (int) n.rdmaDisconnect.invokeExact(capture, id.ptr);
                if (rc != 0) {
                    LOG.debug("rdma_disconnect of {}: errno {}", id, Natives.errno(capture));
                }
                return rc;
            } catch (Throwable t) {
                LOG.warn("rdma_disconnect of {} failed: {}", id, t.toString());
                return -1;
            }
        }
    }

    @Override
    public void destroyId(CmId cmId) {
        Id id = (Id) cmId;
        synchronized (id) {
            if (id.destroyed) {
                return;
            }
            if (id.qp != null && !id.qp.destroyed) {
                destroyQp(id, id.qp);
            }
            id.destroyed = true;
            ids.remove(id.ptr.address());
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                int rc = (int) n.rdmaDestroyId.invokeExact(capture, id.ptr);
                if (rc != 0) {
                    LOG.warn("{}", n.failure("rdma_destroy_id", Natives.errno(capture), id.toString()).getMessage());
                }
            } catch (Throwable t) {
                LOG.warn("rdma_destroy_id of {} failed: {}", id, t.toString());
            }
        }
    }

    @Override
    public InetSocketAddress localAddress(CmId cmId) throws IOException {
        return address(cmId, Abi.CM_ID_SRC_ADDR, "rdma_get_local_addr");
    }

    @Override
    public InetSocketAddress peerAddress(CmId cmId) throws IOException {
        return address(cmId, Abi.CM_ID_DST_ADDR, "rdma_get_peer_addr");
    }

    /** {@code rdma_get_local_addr}/{@code rdma_get_peer_addr} are inline: they read id->route.addr. */
    private InetSocketAddress address(CmId cmId, long offset, String call) throws IOException {
        Id id = (Id) cmId;
        synchronized (id) {
            live(id, call);
            return inet(id.ptr.asSlice(offset, Abi.SOCKADDR_STORAGE_SIZE));
        }
    }

    @Override
    public CmEvent nextCmEvent(int timeoutMillis) throws IOException {
        synchronized (cmLock) {
            open("rdma_get_cm_event");
            try {
                if (!waitReadable(cmPoll, cmCapture, timeoutMillis, "the RDMA CM event channel")) {
                    return null;
                }
                int rc = (int) n.rdmaGetCmEvent.invokeExact(cmCapture, channel, cmEventOut);
                if (rc != 0) {
                    int errno = Natives.errno(cmCapture);
                    if (errno == Abi.EAGAIN || errno == Abi.EINTR) {
                        return null;
                    }
                    throw n.failure("rdma_get_cm_event", errno, "");
                }
                MemorySegment event = cmEventOut.get(ADDRESS, 0).reinterpret(Abi.RDMA_CM_EVENT.byteSize());
                CmEvent result;
                try {
                    result = read(event);
                } finally {
                    int ack = (int) n.rdmaAckCmEvent.invokeExact(cmCapture, event);
                    if (ack != 0) {
                        LOG.warn("{}", n.failure("rdma_ack_cm_event", Natives.errno(cmCapture), "").getMessage());
                    }
                }
                return result;
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected("rdma_get_cm_event", t);
            }
        }
    }

    private CmEvent read(MemorySegment event) {
        int type = event.get(JAVA_INT, Abi.EVENT_EVENT);
        int status = event.get(JAVA_INT, Abi.EVENT_STATUS);
        MemorySegment idPtr = event.get(ADDRESS, Abi.EVENT_ID);
        MemorySegment listenPtr = event.get(ADDRESS, Abi.EVENT_LISTEN_ID);
        Id id = ids.get(idPtr.address());
        if (id == null && type == VerbsConstants.CM_EVENT_CONNECT_REQUEST && !idPtr.equals(MemorySegment.NULL)) {
            id = new Id(idPtr);
            ids.put(idPtr.address(), id);
        }
        Id listen = listenPtr.equals(MemorySegment.NULL) ? null : ids.get(listenPtr.address());
        byte[] data = new byte[0];
        int responder = 0;
        int initiator = 0;
        if (type == VerbsConstants.CM_EVENT_CONNECT_REQUEST || type == VerbsConstants.CM_EVENT_ESTABLISHED
                || type == VerbsConstants.CM_EVENT_REJECTED) {
            MemorySegment pd = event.get(ADDRESS, Abi.EVENT_PRIVATE_DATA);
            int length = Byte.toUnsignedInt(event.get(JAVA_BYTE, Abi.EVENT_PRIVATE_DATA_LEN));
            if (!pd.equals(MemorySegment.NULL) && length > 0) {
                data = pd.reinterpret(length).toArray(JAVA_BYTE);
            }
            responder = Byte.toUnsignedInt(event.get(JAVA_BYTE, Abi.EVENT_RESPONDER_RESOURCES));
            initiator = Byte.toUnsignedInt(event.get(JAVA_BYTE, Abi.EVENT_INITIATOR_DEPTH));
        }
        return new CmEvent(type, listen, id, status, data, responder, initiator);
    }

    /**
     * poll(2) on one descriptor; false on timeout or EINTR. Allocation-free: the call does not
     * capture errno; a failed one is asked again (timeout 0) through the capturing handle to learn why.
     */
    private boolean waitReadable(MemorySegment pollFd, MemorySegment capture, int timeoutMillis, String what)
            throws Throwable {
        return waitReadable(pollFd, 1L, capture, timeoutMillis, what);
    }

    /** As {@link #waitReadable(MemorySegment, MemorySegment, int, String)} on {@code count} descriptors. */
    private boolean waitReadable(MemorySegment pollFd, long count, MemorySegment capture, int timeoutMillis,
            String what) throws Throwable {
        for (long i = 0; i < count; i++) {
            pollFd.set(JAVA_SHORT, i * Abi.POLLFD.byteSize() + Abi.POLLFD_REVENTS, (short) 0);
        }
        int rc = (int) n.pollQuiet.invokeExact(pollFd, count, timeoutMillis);
        if (rc < 0) {
            rc = (int) n.poll.invokeExact(capture, pollFd, count, 0);
            if (rc < 0) {
                int errno = Natives.errno(capture);
                if (errno == Abi.EINTR) {
                    return false;
                }
                throw n.failure("poll", errno, what);
            }
        }
        return rc > 0;
    }

    /**
     * Destroys every identifier still open (their queue pairs first; librdmacm requires them gone
     * before the channel), then the event channel. Every later call is refused.
     */
    @Override
    public void close() {
        synchronized (cmLock) {
            if (closed) {
                return;
            }
            List<Id> open = new ArrayList<>(ids.values());
            if (!open.isEmpty()) {
                LOG.warn("closing the RDMA backend with {} identifiers still open: destroying them", open.size());
            }
            for (Dev dev : new ArrayList<>(watched.keySet())) {
                unwatchAsyncEvents(dev);
            }
            for (Id id : open) {
                destroyId(id);
            }
            closed = true;
            try {
                n.rdmaDestroyEventChannel.invokeExact(cmCapture, channel);
            } catch (Throwable t) {
                LOG.warn("rdma_destroy_event_channel failed: {}", t.toString());
            }
        }
    }

    // ------------------------------------------------------------------ verbs

    @Override
    public Device device(CmId cmId) throws IOException {
        Id id = (Id) cmId;
        MemorySegment context;
        synchronized (id) {
            live(id, "rdma_cm_id.verbs");
            context = id.ptr.get(ADDRESS, Abi.CM_ID_VERBS);
        }
        if (context.equals(MemorySegment.NULL)) {
            throw Natives.refused("rdma_cm_id.verbs", Abi.ENODEV, id + " is not bound to an RDMA device (bind or "
                    + "resolve it first)");
        }
        return devices.computeIfAbsent(context.address(), k -> new Dev(context, deviceKeys.incrementAndGet()));
    }

    @Override
    public ProtectionDomain allocPd(Device device) throws IOException {
        open("ibv_alloc_pd");
        Dev dev = (Dev) device;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            MemorySegment pd = (MemorySegment) n.ibvAllocPd.invokeExact(capture, dev.context);
            if (pd.equals(MemorySegment.NULL)) {
                throw n.failure("ibv_alloc_pd", Natives.errno(capture), "");
            }
            return new Pd(pd, dev);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw Natives.unexpected("ibv_alloc_pd", t);
        }
    }

    @Override
    public CompletionQueue createCq(Device device, int entries, int pollBatch) throws IOException {
        open("ibv_create_cq");
        Dev dev = (Dev) device;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            MemorySegment channel = (MemorySegment) n.ibvCreateCompChannel.invokeExact(capture, dev.context);
            if (channel.equals(MemorySegment.NULL)) {
                throw n.failure("ibv_create_comp_channel", Natives.errno(capture), "");
            }
            MemorySegment cq;
            int wakeFd = -1;
            try {
                int fd = channel.reinterpret(Abi.IBV_COMP_CHANNEL.byteSize()).get(JAVA_INT, Abi.COMP_CHANNEL_FD);
                nonBlocking(n, fd, "a completion channel");
                wakeFd = (int) n.eventfd.invokeExact(capture, 0, Abi.EFD_NONBLOCK | Abi.EFD_CLOEXEC);
                if (wakeFd < 0) {
                    throw n.failure("eventfd", Natives.errno(capture), "the completion thread's wake-up");
                }
                cq = (MemorySegment) n.ibvCreateCq.invokeExact(capture, dev.context, entries, MemorySegment.NULL,
                        channel, 0);
                if (cq.equals(MemorySegment.NULL)) {
                    throw n.failure("ibv_create_cq", Natives.errno(capture), entries + " entries");
                }
            } catch (Throwable t) {
                if (wakeFd >= 0) {
                    int closed = (int) n.closeQuiet.invokeExact(wakeFd);
                }
                int ignored = (int) n.ibvDestroyCompChannel.invokeExact(capture, channel);
                throw t;
            }
            Cq created = new Cq(cq, channel, pollBatch, wakeFd);
            cqs.put(created.cq.address(), created);
            return created;
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw Natives.unexpected("ibv_create_cq", t);
        }
    }

    @Override
    public QueuePair createQp(CmId cmId, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException {
        Id id = (Id) cmId;
        Pd p = (Pd) pd;
        Cq c = (Cq) cq;
        synchronized (id) {
            live(id, "rdma_create_qp");
            if (id.ptr.get(ADDRESS, Abi.CM_ID_VERBS).equals(MemorySegment.NULL)) {
                throw Natives.refused("rdma_create_qp", Abi.EINVAL, id + " is not bound to an RDMA device");
            }
            if (id.qp != null && !id.qp.destroyed) {
                throw Natives.refused("rdma_create_qp", Abi.EINVAL, id + " has a queue pair already");
            }
            synchronized (p) {
                if (p.destroyed) {
                    throw Natives.refused("rdma_create_qp", Abi.EINVAL, "the protection domain was deallocated");
                }
                synchronized (c) {
                    if (c.destroyed) {
                        throw Natives.refused("rdma_create_qp", Abi.EINVAL, "the completion queue was destroyed");
                    }
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment capture = a.allocate(Natives.CAPTURE);
                        MemorySegment attr = a.allocate(Abi.IBV_QP_INIT_ATTR);
                        attr.set(ADDRESS, Abi.QP_INIT_SEND_CQ, c.cq);
                        attr.set(ADDRESS, Abi.QP_INIT_RECV_CQ, c.cq);
                        attr.set(JAVA_INT, Abi.QP_INIT_MAX_SEND_WR, maxSendWr);
                        attr.set(JAVA_INT, Abi.QP_INIT_MAX_RECV_WR, maxRecvWr);
                        attr.set(JAVA_INT, Abi.QP_INIT_MAX_SEND_SGE, 1);
                        attr.set(JAVA_INT, Abi.QP_INIT_MAX_RECV_SGE, 1);
                        attr.set(JAVA_INT, Abi.QP_INIT_MAX_INLINE_DATA, 0);
                        attr.set(JAVA_INT, Abi.QP_INIT_QP_TYPE, Abi.IBV_QPT_RC);
                        attr.set(JAVA_INT, Abi.QP_INIT_SQ_SIG_ALL, 0);
                        int rc = (int) n.rdmaCreateQp.invokeExact(capture, id.ptr, p.ptr, attr);
                        if (rc != 0) {
                            throw n.failure("rdma_create_qp", Natives.errno(capture),
                                    "send " + maxSendWr + ", receive " + maxRecvWr + " work requests, 1 SGE each");
                        }
                        Qp qp = new Qp(id.ptr.get(ADDRESS, Abi.CM_ID_QP));
                        qp.id = id;
                        id.qp = qp;
                        qps.put(qp.qp.address(), qp);
                        return qp;
                    } catch (IOException e) {
                        throw e;
                    } catch (Throwable t) {
                        throw Natives.unexpected("rdma_create_qp", t);
                    }
                }
            }
        }
    }

    @Override
    public QueuePairReadDepths queryReadDepths(QueuePair queuePair) throws IOException {
        Qp qp = (Qp) queuePair;
        synchronized (qp) {
            usable(qp.destroyed, "ibv_query_qp", "the queue pair was destroyed");
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                MemorySegment attr = a.allocate(Abi.IBV_QP_ATTR);
                MemorySegment init = a.allocate(Abi.IBV_QP_INIT_ATTR);
                int rc = (int) n.ibvQueryQp.invokeExact(capture, qp.qp, attr,
                        Abi.IBV_QP_MAX_QP_RD_ATOMIC | Abi.IBV_QP_MAX_DEST_RD_ATOMIC, init);
                if (rc != 0) {
                    throw n.failure("ibv_query_qp", rc > 0 ? rc : Natives.errno(capture), "read depths");
                }
                return new QueuePairReadDepths(Byte.toUnsignedInt(attr.get(JAVA_BYTE, Abi.QP_ATTR_MAX_RD_ATOMIC)),
                        Byte.toUnsignedInt(attr.get(JAVA_BYTE, Abi.QP_ATTR_MAX_DEST_RD_ATOMIC)));
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_query_qp", t);
            }
        }
    }

    @Override
    public void destroyQp(CmId cmId, QueuePair queuePair) {
        Id id = (Id) cmId;
        Qp qp = (Qp) queuePair;
        synchronized (id) {
            synchronized (qp) {
                if (qp.destroyed || id.destroyed) {
                    return;
                }
                qp.destroyed = true;
                if (id.qp == qp) {
                    id.qp = null;
                }
                // rdma_destroy_qp waits until every asynchronous event of the queue pair that was read
                // is acknowledged: the event reader acknowledges before it hands an event on
                qps.remove(qp.qp.address(), qp);
                try (Arena a = Arena.ofConfined()) {
                    n.rdmaDestroyQp.invokeExact(a.allocate(Natives.CAPTURE), id.ptr);
                } catch (Throwable t) {
                    LOG.warn("rdma_destroy_qp of {} failed: {}", id, t.toString());
                }
            }
        }
    }

    @Override
    public RegisteredMemory register(ProtectionDomain pd, ByteBuffer buffer, int accessFlags) throws IOException {
        Pd p = (Pd) pd;
        if (!buffer.isDirect()) {
            throw Natives.refused("ibv_reg_mr", Abi.EINVAL, "the buffer is not direct");
        }
        MemorySegment bytes = MemorySegment.ofBuffer(buffer);
        synchronized (p) {
            open("ibv_reg_mr");
            if (p.destroyed) {
                throw Natives.refused("ibv_reg_mr", Abi.EINVAL, "the protection domain was deallocated");
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                MemorySegment mr = (MemorySegment) n.ibvRegMr.invokeExact(capture, p.ptr, bytes, bytes.byteSize(),
                        accessFlags);
                if (mr.equals(MemorySegment.NULL)) {
                    throw n.failure("ibv_reg_mr", Natives.errno(capture), bytes.byteSize() + " bytes at 0x"
                            + Long.toHexString(bytes.address()) + ", access 0x" + Integer.toHexString(accessFlags));
                }
                return new Mr(mr, buffer);
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_reg_mr", t);
            } finally {
                Reference.reachabilityFence(buffer);
            }
        }
    }

    @Override
    public void deregister(RegisteredMemory memory) throws IOException {
        Mr mr = (Mr) memory;
        synchronized (mr) {
            if (mr.destroyed) {
                throw Natives.refused("ibv_dereg_mr", Abi.EINVAL, "the region was deregistered already");
            }
            mr.destroyed = true;
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                int rc = (int) n.ibvDeregMr.invokeExact(capture, mr.ptr);
                if (rc != 0) {
                    // ibv_dereg_mr returns the errno
                    throw n.failure("ibv_dereg_mr", rc, "");
                }
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_dereg_mr", t);
            } finally {
                mr.buffer = null;
            }
        }
    }

    @Override
    public void postSend(QueuePair queuePair, SendRequest r) throws IOException {
        Qp qp = (Qp) queuePair;
        synchronized (qp) {
            usable(qp.destroyed, "ibv_post_send", "the queue pair was destroyed");
            MemorySegment wr = qp.sendWr;
            wr.set(JAVA_LONG, Abi.SEND_WR_WR_ID, r.wrId);
            wr.set(JAVA_INT, Abi.SEND_WR_OPCODE, r.opcode);
            wr.set(JAVA_INT, Abi.SEND_WR_SEND_FLAGS, r.sendFlags);
            wr.set(JAVA_INT, Abi.SEND_WR_INVALIDATE_RKEY, r.invalidateKey);
            wr.set(JAVA_LONG, Abi.SEND_WR_REMOTE_ADDR, r.remoteAddress);
            // rdma-core's siw provider (libsiw, push_send_wqe) takes the STag a Send with Invalidate
            // names from wr.rdma.rkey instead of invalidate_rkey; every other provider ignores
            // wr.rdma for a Send, so both carry it
            wr.set(JAVA_INT, Abi.SEND_WR_RKEY, r.opcode == VerbsConstants.WR_SEND_WITH_INV ? r.invalidateKey
                    : r.remoteKey);
            if (r.opcode == VerbsConstants.WR_BIND_MW) {
                Mw mw = (Mw) r.bindWindow;
                Mr mr = (Mr) r.bindRegion;
                if (mw.destroyed || mr.destroyed) {
                    throw Natives.refused("ibv_post_send", Abi.EINVAL, "bind of a deallocated memory window or "
                            + "onto a deregistered region");
                }
                wr.set(JAVA_INT, Abi.SEND_WR_NUM_SGE, 0);
                wr.set(ADDRESS, Abi.SEND_WR_BIND_MW, mw.ptr);
                wr.set(JAVA_INT, Abi.SEND_WR_BIND_RKEY, r.bindKey);
                wr.set(ADDRESS, Abi.SEND_WR_BIND_MR, mr.ptr);
                wr.set(JAVA_LONG, Abi.SEND_WR_BIND_ADDR, r.bindAddress);
                wr.set(JAVA_LONG, Abi.SEND_WR_BIND_LENGTH, r.bindLength);
                wr.set(JAVA_INT, Abi.SEND_WR_BIND_ACCESS, r.bindAccess);
            } else {
                wr.set(JAVA_INT, Abi.SEND_WR_NUM_SGE, 1);
            }
            MemorySegment sge = qp.sendSge;
            sge.set(JAVA_LONG, Abi.SGE_ADDR, r.sgeAddress);
            sge.set(JAVA_INT, Abi.SGE_LENGTH, r.sgeLength);
            sge.set(JAVA_INT, Abi.SGE_LKEY, r.sgeLocalKey);
            int rc;
            try {
                rc = (int) Natives.POST.invokeExact(qp.postSend, qp.qp, wr, qp.badWr);
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_post_send", t);
            }
            if (rc != 0) {
                // ibv_post_send returns the errno
                throw n.failure("ibv_post_send", rc, "opcode " + r.opcode + ", wr_id 0x" + Long.toHexString(r.wrId));
            }
        }
    }

    @Override
    public void postRecv(QueuePair queuePair, long wrId, long address, int length, int localKey) throws IOException {
        Qp qp = (Qp) queuePair;
        synchronized (qp) {
            usable(qp.destroyed, "ibv_post_recv", "the queue pair was destroyed");
            qp.recvWr.set(JAVA_LONG, Abi.RECV_WR_WR_ID, wrId);
            MemorySegment sge = qp.recvSge;
            sge.set(JAVA_LONG, Abi.SGE_ADDR, address);
            sge.set(JAVA_INT, Abi.SGE_LENGTH, length);
            sge.set(JAVA_INT, Abi.SGE_LKEY, localKey);
            int rc;
            try {
                rc = (int) Natives.POST.invokeExact(qp.postRecv, qp.qp, qp.recvWr, qp.badWr);
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_post_recv", t);
            }
            if (rc != 0) {
                throw n.failure("ibv_post_recv", rc, "wr_id 0x" + Long.toHexString(wrId));
            }
        }
    }

    @Override
    public int poll(CompletionQueue completionQueue, CompletionBatch batch) throws IOException {
        Cq cq = (Cq) completionQueue;
        synchronized (cq) {
            usable(cq.destroyed, "ibv_poll_cq", "the completion queue was destroyed");
            int max = Math.min(cq.capacity, batch.capacity());
            int got;
            try {
                got = (int) Natives.POLL_CQ.invokeExact(cq.pollCq, cq.cq, max, cq.wcs);
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_poll_cq", t);
            }
            if (got < 0) {
                throw n.failure("ibv_poll_cq", -got, "returned " + got);
            }
            MemorySegment wcs = cq.wcs;
            for (int i = 0; i < got; i++) {
                long base = i * Abi.WC_SIZE;
                batch.set(i, wcs.get(JAVA_LONG, base + Abi.WC_WR_ID), wcs.get(JAVA_INT, base + Abi.WC_STATUS),
                        wcs.get(JAVA_INT, base + Abi.WC_OPCODE), wcs.get(JAVA_INT, base + Abi.WC_VENDOR_ERR),
                        wcs.get(JAVA_INT, base + Abi.WC_BYTE_LEN), wcs.get(JAVA_INT, base + Abi.WC_INVALIDATED_RKEY),
                        wcs.get(JAVA_INT, base + Abi.WC_WC_FLAGS), wcs.get(JAVA_INT, base + Abi.WC_QP_NUM));
            }
            return got;
        }
    }

    @Override
    public void requestNotify(CompletionQueue completionQueue) throws IOException {
        Cq cq = (Cq) completionQueue;
        synchronized (cq) {
            usable(cq.destroyed, "ibv_req_notify_cq", "the completion queue was destroyed");
            int rc;
            try {
                rc = (int) Natives.REQ_NOTIFY_CQ.invokeExact(cq.reqNotifyCq, cq.cq, 0);
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_req_notify_cq", t);
            }
            if (rc != 0) {
                throw n.failure("ibv_req_notify_cq", Math.abs(rc), "returned " + rc);
            }
        }
    }

    @Override
    public boolean awaitCompletionEvent(CompletionQueue completionQueue, int timeoutMillis) throws IOException {
        Cq cq = (Cq) completionQueue;
        synchronized (cq) {
            usable(cq.destroyed, "ibv_get_cq_event", "the completion queue was destroyed");
            try {
                if (!waitReadable(cq.pollFd, 2L, cq.capture, timeoutMillis, "a completion channel")) {
                    return false;
                }
                if (cq.pollFd.get(JAVA_SHORT, Abi.POLLFD.byteSize() + Abi.POLLFD_REVENTS) != 0) {
                    // woken (work was handed to this thread): reset the eventfd's counter
                    long ignored = (long) n.readQuiet.invokeExact(cq.wakeFd, cq.wakeDrain, 8L);
                }
                if (cq.pollFd.get(JAVA_SHORT, Abi.POLLFD_REVENTS) == 0) {
                    return false;
                }
                int rc = (int) n.ibvGetCqEventQuiet.invokeExact(cq.channel, cq.eventCq, cq.eventContext);
                if (rc != 0) {
                    // rare (the channel was readable): again, capturing errno this time
                    rc = (int) n.ibvGetCqEvent.invokeExact(cq.capture, cq.channel, cq.eventCq, cq.eventContext);
                    if (rc != 0) {
                        int errno = Natives.errno(cq.capture);
                        if (errno == Abi.EAGAIN || errno == Abi.EINTR) {
                            return false;
                        }
                        throw n.failure("ibv_get_cq_event", errno, "");
                    }
                }
                // the channel serves this CQ only, so the event is this CQ's (reading the returned
                // pointer back would allocate a segment per event)
                n.ibvAckCqEvents.invokeExact(cq.cq, 1);
                return true;
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_get_cq_event", t);
            }
        }
    }

    /**
     * Ends a wait of {@link #awaitCompletionEvent} at once: one 8-byte write to the queue's eventfd,
     * which the wait polls beside the completion channel (any thread; never blocks: the counter
     * only grows until the waiting thread reads it).
     */
    @Override
    public boolean wakeCompletionWait(CompletionQueue completionQueue) {
        Cq cq = (Cq) completionQueue;
        synchronized (cq.wakeLock) {
            if (cq.wakeFd < 0 || cq.wakeClosed) {
                return false;
            }
            try {
                long written = (long) n.writeQuiet.invokeExact(cq.wakeFd, cq.wakeValue, 8L);
                return written == 8L;
            } catch (Throwable t) {
                return false;
            }
        }
    }

    @Override
    public void destroyCq(CompletionQueue completionQueue) {
        Cq cq = (Cq) completionQueue;
        synchronized (cq) {
            if (cq.destroyed) {
                return;
            }
            cq.destroyed = true;
            synchronized (cq.wakeLock) {
                if (cq.wakeFd >= 0 && !cq.wakeClosed) {
                    cq.wakeClosed = true;
                    try {
                        int ignored = (int) n.closeQuiet.invokeExact(cq.wakeFd);
                    } catch (Throwable t) {
                        LOG.warn("closing the wake eventfd of a completion queue failed: {}", t.toString());
                    }
                }
            }
            cqs.remove(cq.cq.address(), cq);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                int rc = (int) n.ibvDestroyCq.invokeExact(capture, cq.cq);
                if (rc != 0) {
                    LOG.warn("{}", n.failure("ibv_destroy_cq", rc, "").getMessage());
                }
                rc = (int) n.ibvDestroyCompChannel.invokeExact(capture, cq.channel);
                if (rc != 0) {
                    LOG.warn("{}", n.failure("ibv_destroy_comp_channel", Natives.errno(capture), "").getMessage());
                }
            } catch (Throwable t) {
                LOG.warn("destroying a completion queue failed: {}", t.toString());
            }
        }
    }

    @Override
    public void deallocPd(ProtectionDomain pd) {
        Pd p = (Pd) pd;
        synchronized (p) {
            if (p.destroyed) {
                return;
            }
            p.destroyed = true;
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                int rc = (int) n.ibvDeallocPd.invokeExact(capture, p.ptr);
                if (rc != 0) {
                    LOG.warn("{}", n.failure("ibv_dealloc_pd", rc, "").getMessage());
                }
            } catch (Throwable t) {
                LOG.warn("ibv_dealloc_pd failed: {}", t.toString());
            }
        }
    }

    // ------------------------------------------------------------------ memory windows

    @Override
    public MemoryWindow allocMw(ProtectionDomain pd) throws IOException {
        Pd p = (Pd) pd;
        synchronized (p) {
            usable(p.destroyed, "ibv_alloc_mw", "the protection domain was deallocated");
            MemorySegment fn = p.device.context.get(ADDRESS, Abi.CONTEXT_ALLOC_MW);
            if (fn.equals(MemorySegment.NULL)) {
                throw Natives.refused("ibv_alloc_mw", 95, "the device's provider has no memory windows");
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                MemorySegment mw = (MemorySegment) Natives.ALLOC_MW.invokeExact(fn, capture, p.ptr,
                        VerbsConstants.MW_TYPE_2);
                if (mw.equals(MemorySegment.NULL)) {
                    throw n.failure("ibv_alloc_mw", Natives.errno(capture), "type 2");
                }
                return new Mw(mw);
            } catch (IOException e) {
                throw e;
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_alloc_mw", t);
            }
        }
    }

    @Override
    public void deallocMw(MemoryWindow window) throws IOException {
        Mw mw = (Mw) window;
        synchronized (mw) {
            if (mw.destroyed) {
                throw Natives.refused("ibv_dealloc_mw", Abi.EINVAL, "the memory window was deallocated already");
            }
            mw.destroyed = true;
            MemorySegment context = mw.ptr.get(ADDRESS, Abi.MW_CONTEXT).reinterpret(Abi.IBV_CONTEXT.byteSize());
            int rc;
            try {
                rc = (int) Natives.DEALLOC_MW.invokeExact(context.get(ADDRESS, Abi.CONTEXT_DEALLOC_MW), mw.ptr);
            } catch (Throwable t) {
                throw Natives.unexpected("ibv_dealloc_mw", t);
            }
            if (rc != 0) {
                throw n.failure("ibv_dealloc_mw", rc, "rkey 0x" + Integer.toHexString(mw.rkey));
            }
        }
    }

    // ------------------------------------------------------------------ asynchronous events

    @Override
    public boolean watchAsyncEvents(Device device, AsyncEventHandler handler) {
        Dev dev = (Dev) device;
        if (closed || watched.putIfAbsent(dev, handler) != null) {
            return !closed;
        }
        try {
            AsyncEventReader.subscribe(n, dev.context, this);
            return true;
        } catch (IOException e) {
            watched.remove(dev);
            LOG.warn("the asynchronous events of device {} cannot be read: {}", dev.key, e.getMessage());
            return false;
        }
    }

    @Override
    public void unwatchAsyncEvents(Device device) {
        Dev dev = (Dev) device;
        if (watched.remove(dev) != null) {
            AsyncEventReader.unsubscribe(dev.context, this);
        }
    }

    /**
     * The reader's thread, before it acknowledges the event: the event as this backend's handler of
     * {@code context} should see it, {@code null} when it is not about this backend (another
     * backend's queue pair or completion queue, or a device this backend does not watch). Looks at
     * maps only: a destroy of the queue pair waits for the acknowledgement, so the handle found is
     * the one the event is about.
     */
    AsyncEvent resolve(MemorySegment context, int type, long element, int port) {
        Dev dev = devices.get(context.address());
        if (dev == null || !watched.containsKey(dev)) {
            return null;
        }
        switch (type) {
            case VerbsConstants.EVENT_QP_FATAL, VerbsConstants.EVENT_QP_REQ_ERR, VerbsConstants.EVENT_QP_ACCESS_ERR,
                    VerbsConstants.EVENT_COMM_EST, VerbsConstants.EVENT_SQ_DRAINED, VerbsConstants.EVENT_PATH_MIG,
                    VerbsConstants.EVENT_PATH_MIG_ERR, VerbsConstants.EVENT_QP_LAST_WQE_REACHED -> {
                Qp qp = qps.get(element);
                return qp == null ? null : new AsyncEvent(type, qp, null, 0);
            }
            case VerbsConstants.EVENT_CQ_ERR -> {
                Cq cq = cqs.get(element);
                return cq == null ? null : new AsyncEvent(type, null, cq, 0);
            }
            case VerbsConstants.EVENT_SRQ_ERR, VerbsConstants.EVENT_SRQ_LIMIT_REACHED, VerbsConstants.EVENT_WQ_FATAL -> {
                return null; // no shared receive queues or work queues here
            }
            default -> {
                return new AsyncEvent(type, null, null, port);
            }
        }
    }

    /**
     * The reader's thread, after it acknowledged {@code event}: COMM_EST (data arrived on a passive
     * queue pair before the CM's ESTABLISHED) goes to librdmacm ({@code rdma_notify}), which then
     * reports ESTABLISHED even if the RTU got lost; then the event goes to the handler.
     */
    void deliver(MemorySegment context, AsyncEvent event) {
        Dev dev = devices.get(context.address());
        AsyncEventHandler handler = dev == null ? null : watched.get(dev);
        if (handler == null) {
            return;
        }
        if (event.type() == VerbsConstants.EVENT_COMM_EST && event.qp() instanceof Qp qp && qp.id != null) {
            Id id = qp.id;
            synchronized (id) {
                if (!id.destroyed && !closed) {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment capture = a.allocate(Natives.CAPTURE);
                        if ((int) n.rdmaNotify.invokeExact(capture, id.ptr, VerbsConstants.EVENT_COMM_EST) != 0) {
                            LOG.debug("{}", n.failure("rdma_notify", Natives.errno(capture), "IBV_EVENT_COMM_EST")
                                    .getMessage());
                        }
                    } catch (Throwable t) {
                        LOG.debug("rdma_notify failed: {}", t.toString());
                    }
                }
            }
        }
        try {
            handler.onAsyncEvent(event);
        } catch (RuntimeException e) {
            LOG.error("the handler of asynchronous event {} failed", event, e);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Sets O_NONBLOCK on {@code fd} (fcntl F_GETFL / F_SETFL). */
    static void nonBlocking(Natives n, int fd, String what) throws NativeCallException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = a.allocate(Natives.CAPTURE);
            int flags = (int) n.fcntl.invokeExact(capture, fd, Abi.F_GETFL, 0);
            if (flags < 0) {
                throw n.failure("fcntl", Natives.errno(capture), "F_GETFL of " + what);
            }
            if ((int) n.fcntl.invokeExact(capture, fd, Abi.F_SETFL, flags | Abi.O_NONBLOCK) < 0) {
                throw n.failure("fcntl", Natives.errno(capture), "F_SETFL O_NONBLOCK of " + what);
            }
        } catch (NativeCallException e) {
            throw e;
        } catch (Throwable t) {
            throw Natives.unexpected("fcntl", t);
        }
    }

    /** A sockaddr_in or sockaddr_in6 in {@code a}. */
    static MemorySegment sockaddr(Arena a, InetSocketAddress address) throws NativeCallException {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw Natives.refused("sockaddr", Abi.EINVAL, address + " is not resolved");
        }
        if (ip instanceof Inet4Address) {
            MemorySegment sa = a.allocate(Abi.SOCKADDR_IN);
            sa.set(JAVA_SHORT, Abi.SIN_FAMILY, (short) Abi.AF_INET);
            sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN_PORT, (short) address.getPort());
            MemorySegment.copy(ip.getAddress(), 0, sa, JAVA_BYTE, Abi.SIN_ADDR, 4);
            return sa;
        }
        Inet6Address v6 = (Inet6Address) ip;
        MemorySegment sa = a.allocate(Abi.SOCKADDR_IN6);
        sa.set(JAVA_SHORT, 0, (short) Abi.AF_INET6);
        sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN6_PORT, (short) address.getPort());
        sa.set(JAVA_INT, Abi.SIN6_FLOWINFO, 0);
        MemorySegment.copy(v6.getAddress(), 0, sa, JAVA_BYTE, Abi.SIN6_ADDR, 16);
        sa.set(JAVA_INT, Abi.SIN6_SCOPE_ID, v6.getScopeId());
        return sa;
    }

    /** The address in a sockaddr_storage; {@code null} for a family other than AF_INET / AF_INET6. */
    static InetSocketAddress inet(MemorySegment storage) {
        int family = Short.toUnsignedInt(storage.get(JAVA_SHORT, 0));
        try {
            if (family == Abi.AF_INET) {
                int port = Short.toUnsignedInt(storage.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN_PORT));
                byte[] ip = storage.asSlice(Abi.SIN_ADDR, 4).toArray(JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            if (family == Abi.AF_INET6) {
                int port = Short.toUnsignedInt(storage.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN6_PORT));
                byte[] ip = storage.asSlice(Abi.SIN6_ADDR, 16).toArray(JAVA_BYTE);
                int scope = storage.get(JAVA_INT, Abi.SIN6_SCOPE_ID);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope), port);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        return null;
    }
}
