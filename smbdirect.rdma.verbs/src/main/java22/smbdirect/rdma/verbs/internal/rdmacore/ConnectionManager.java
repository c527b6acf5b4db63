package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.VerbsBackend.CmConnParam;
import smbdirect.rdma.verbs.internal.VerbsBackend.CmEvent;
import smbdirect.rdma.verbs.internal.VerbsBackend.CmId;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * The RDMA CM: the event channel and the identifiers on it ({@code rdma_create_id} to
 * {@code rdma_destroy_id}), binding, listening, resolving, connecting, accepting, rejecting and
 * disconnecting, and the CM events read from the channel (non-blocking, waited for in
 * {@code poll(2)} with the timeout given). Each identifier's calls run under its monitor; the
 * channel is guarded by its own lock, which the wait in {@code poll(2)} does not hold: an
 * identifier is created while the CM thread waits for the next event.
 */
final class ConnectionManager {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreBackend.class);

    private final BackendState state;
    private final QueuePairs queuePairs;
    /** rdma_event_channel*, guarded by {@link #lock}. */
    private final MemorySegment channel;
    final Object lock = new Object();
    /**
     * Held by the reader of the channel (the CM thread) from its wait to the event's ack, so that
     * the buffers below have one user; never taken by any other call.
     */
    private final Object readerLock = new Object();
    /** Whether the reader is in its wait in {@code poll(2)}; guarded by {@link #lock}. */
    private boolean waiting;
    /** For the reader's waits: a pollfd, the event pointer, errno; only under {@link #readerLock}. */
    private final MemorySegment cmPoll;
    private final MemorySegment cmEventOut;
    private final MemorySegment cmCapture;
    private final Map<Long, CmIdHandle> ids = new ConcurrentHashMap<>();

    /** @param channel the event channel the access opened (owned from now on) */
    ConnectionManager(BackendState state, QueuePairs queuePairs, MemorySegment channel) throws IOException {
        this.state = state;
        this.queuePairs = queuePairs;
        this.channel = channel.reinterpret(Abi.RDMA_EVENT_CHANNEL.byteSize());
        Arena arena = Arena.ofAuto();
        this.cmPoll = arena.allocate(Abi.POLLFD);
        this.cmEventOut = arena.allocate(ADDRESS);
        this.cmCapture = arena.allocate(Natives.CAPTURE);
        int fd = this.channel.get(JAVA_INT, Abi.EVENT_CHANNEL_FD);
        Descriptors.nonBlocking(fd, "the RDMA CM event channel");
        cmPoll.set(JAVA_INT, Abi.POLLFD_FD, fd);
        cmPoll.set(JAVA_SHORT, Abi.POLLFD_EVENTS, Abi.POLLIN);
    }

    /** The live identifier {@code cmId}, or refused naming {@code fn}. */
    CmIdHandle live(CmId cmId, NativeFunction fn) throws NativeCallException {
        CmIdHandle id = (CmIdHandle) cmId;
        fn.requireLive(id, state);
        return id;
    }

    CmId createId() throws IOException {
        synchronized (lock) {
            NativeFunction fn = Natives.RDMA_CREATE_ID;
            fn.requireOpen(state);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment out = a.allocate(ADDRESS);
                fn.call(a, a.allocate(Natives.CAPTURE), "",
                        (h, arena, capture) -> (int) h.invokeExact(capture, channel, out, MemorySegment.NULL,
                                Abi.RDMA_PS_TCP));
                CmIdHandle id = new CmIdHandle(out.get(ADDRESS, 0));
                ids.put(id.ptr.address(), id);
                return id;
            }
        }
    }

    /** Calls {@code int fn(capture, id, args...)} on a live identifier, under its monitor. */
    private void call(NativeFunction fn, CmId cmId, String context, CmCall invocation) throws IOException {
        CmIdHandle id = (CmIdHandle) cmId;
        synchronized (id) {
            live(id, fn);
            fn.call(context, (h, a, capture) -> invocation.invoke(h, a, capture, id.ptr));
        }
    }

    @FunctionalInterface
    private interface CmCall {
        int invoke(java.lang.invoke.MethodHandle handle, Arena arena, MemorySegment capture, MemorySegment id)
                throws Throwable;
    }

    void bindAddr(CmId id, InetSocketAddress address) throws IOException {
        call(Natives.RDMA_BIND_ADDR, id, String.valueOf(address),
                (h, a, capture, ptr) -> (int) h.invokeExact(capture, ptr, CmStructs.sockaddr(a, address)));
    }

    void listen(CmId id, int backlog) throws IOException {
        call(Natives.RDMA_LISTEN, id, "", (h, a, capture, ptr) -> (int) h.invokeExact(capture, ptr, backlog));
    }

    void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException {
        call(Natives.RDMA_RESOLVE_ADDR, id, String.valueOf(destination), (h, a, capture, ptr) -> (int) h
                .invokeExact(capture, ptr, MemorySegment.NULL, CmStructs.sockaddr(a, destination), timeoutMillis));
    }

    void resolveRoute(CmId id, int timeoutMillis) throws IOException {
        call(Natives.RDMA_RESOLVE_ROUTE, id, "",
                (h, a, capture, ptr) -> (int) h.invokeExact(capture, ptr, timeoutMillis));
    }

    void connect(CmId id, CmConnParam parameters) throws IOException {
        NativeFunction fn = Natives.RDMA_CONNECT;
        if (parameters.privateData().remaining() > 255) {
            throw fn.refused(Abi.EINVAL, parameters.privateData().remaining()
                    + " bytes of private data (private_data_len is a uint8_t)");
        }
        call(fn, id, "", (h, a, capture, ptr) -> (int) h.invokeExact(capture, ptr,
                CmStructs.connParam(a, parameters)));
    }

    void accept(CmId id, CmConnParam parameters) throws IOException {
        NativeFunction fn = Natives.RDMA_ACCEPT;
        if (parameters.privateData().remaining() > 255) {
            throw fn.refused(Abi.EINVAL, parameters.privateData().remaining()
                    + " bytes of private data (private_data_len is a uint8_t)");
        }
        call(fn, id, "", (h, a, capture, ptr) -> (int) h.invokeExact(capture, ptr,
                CmStructs.connParam(a, parameters)));
    }

    void reject(CmId id, ByteBuffer privateData) throws IOException {
        int length = Math.min(255, privateData.remaining());
        call(Natives.RDMA_REJECT, id, "", (h, a, capture, ptr) -> {
            MemorySegment data = MemorySegment.NULL;
            if (length > 0) {
                data = a.allocate(length);
                data.copyFrom(MemorySegment.ofBuffer(privateData.duplicate().limit(privateData.position() + length)));
            }
            return (int) h.invokeExact(capture, ptr, data, (byte) length);
        });
    }

    int disconnect(CmId cmId) {
        CmIdHandle id = (CmIdHandle) cmId;
        synchronized (id) {
            if (state.closed || id.destroyed) {
                return -1;
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                int rc = Natives.RDMA_DISCONNECT.call(a, capture, "",
                        (h, arena, c) -> (int) h.invokeExact(c, id.ptr));
                if (rc != 0) {
                    LOG.debug("rdma_disconnect of {}: errno {}", id, Natives.errno(capture));
                }
                return rc;
            } catch (NativeCallException e) {
                LOG.warn("rdma_disconnect of {} failed: {}", id, e.getCause());
                return -1;
            }
        }
    }

    void destroyId(CmId cmId) {
        CmIdHandle id = (CmIdHandle) cmId;
        synchronized (id) {
            if (id.destroyed) {
                return;
            }
            if (id.qp != null && !id.qp.destroyed) {
                queuePairs.destroy(id, id.qp);
            }
            id.destroyed = true;
            ids.remove(id.ptr.address());
            try {
                Natives.RDMA_DESTROY_ID.call(id.toString(), (h, a, capture) -> (int) h.invokeExact(capture, id.ptr));
            } catch (NativeCallException e) {
                LOG.warn("{}", e.getMessage());
            }
        }
    }

    /** {@code rdma_get_local_addr}/{@code rdma_get_peer_addr} are inline: they read id->route.addr. */
    InetSocketAddress address(CmId cmId, long offset, String call) throws IOException {
        CmIdHandle id = (CmIdHandle) cmId;
        synchronized (id) {
            if (state.closed) {
                throw Natives.refused(call, Abi.ENODEV, "the RDMA backend is closed");
            }
            if (id.destroyed) {
                throw Natives.refused(call, Abi.EINVAL, id.gone());
            }
            return CmStructs.inet(id.ptr.asSlice(offset, Abi.SOCKADDR_STORAGE_SIZE));
        }
    }

    /** The verbs context an identifier is bound to (NULL when none), read under its monitor. */
    MemorySegment verbs(CmId cmId) throws IOException {
        CmIdHandle id = (CmIdHandle) cmId;
        synchronized (id) {
            if (state.closed) {
                throw Natives.refused("rdma_cm_id.verbs", Abi.ENODEV, "the RDMA backend is closed");
            }
            if (id.destroyed) {
                throw Natives.refused("rdma_cm_id.verbs", Abi.EINVAL, id.gone());
            }
            return id.ptr.get(ADDRESS, Abi.CM_ID_VERBS);
        }
    }

    CmEvent nextCmEvent(int timeoutMillis) throws IOException {
        NativeFunction get = Natives.RDMA_GET_CM_EVENT;
        synchronized (readerLock) {
            synchronized (lock) {
                get.requireOpen(state);
                waiting = true;
            }
            // the wait holds no lock another call takes: a monitor held across poll(2) is taken back
            // at once by this thread's next wait, and a thread blocked on it (rdma_create_id for a
            // new connection) starves
            boolean readable;
            try {
                readable = Descriptors.waitReadable(cmPoll, 1L, cmCapture, timeoutMillis, "the RDMA CM event channel");
            } finally {
                synchronized (lock) {
                    waiting = false;
                    lock.notifyAll();
                }
            }
            if (!readable) {
                return null;
            }
            synchronized (lock) {
                get.requireOpen(state);
                int rc = get.invokeCapturing(cmCapture, channel, cmEventOut);
                if (rc != 0) {
                    int errno = Natives.errno(cmCapture);
                    if (errno == Abi.EAGAIN || errno == Abi.EINTR) {
                        return null;
                    }
                    throw get.failed(errno, "");
                }
                MemorySegment event = cmEventOut.get(ADDRESS, 0).reinterpret(Abi.RDMA_CM_EVENT.byteSize());
                CmEvent result;
                try {
                    result = read(event);
                } finally {
                    int ack = Natives.RDMA_ACK_CM_EVENT.invokeCapturing(cmCapture, event);
                    if (ack != 0) {
                        LOG.warn("{}", Natives.RDMA_ACK_CM_EVENT.failed(Natives.errno(cmCapture), "").getMessage());
                    }
                }
                return result;
            }
        }
    }

    /**
     * Under {@link #lock}, before the channel is destroyed: waits (bounded) until the reader has
     * left its wait in {@code poll(2)} on the channel's descriptor, which ends by its timeout (the
     * provider stops its CM thread before it closes the backend, so there is normally none).
     */
    void awaitNoWaitingReader(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        boolean interrupted = false;
        while (waiting) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                LOG.warn("the RDMA CM event channel is destroyed while a thread still waits on it");
                break;
            }
            try {
                lock.wait(Math.max(1L, TimeUnit.NANOSECONDS.toMillis(left)));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private CmEvent read(MemorySegment event) {
        int type = event.get(JAVA_INT, Abi.EVENT_EVENT);
        int status = event.get(JAVA_INT, Abi.EVENT_STATUS);
        MemorySegment idPtr = event.get(ADDRESS, Abi.EVENT_ID);
        MemorySegment listenPtr = event.get(ADDRESS, Abi.EVENT_LISTEN_ID);
        CmIdHandle id = ids.get(idPtr.address());
        if (id == null && type == VerbsConstants.CM_EVENT_CONNECT_REQUEST && !idPtr.equals(MemorySegment.NULL)) {
            id = new CmIdHandle(idPtr);
            ids.put(idPtr.address(), id);
        }
        CmIdHandle listen = listenPtr.equals(MemorySegment.NULL) ? null : ids.get(listenPtr.address());
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
     * Destroys every identifier still open (their queue pairs first; librdmacm requires them gone
     * before the channel), then the event channel; under {@link #lock}, before {@code closed} is set.
     */
    void closeIds() {
        List<CmIdHandle> open = new ArrayList<>(ids.values());
        if (!open.isEmpty()) {
            LOG.warn("closing the RDMA backend with {} identifiers still open: destroying them", open.size());
        }
        for (CmIdHandle id : open) {
            destroyId(id);
        }
    }

    /** Destroys the event channel (after {@link #closeIds}). */
    void destroyChannel() {
        try {
            Natives.RDMA_DESTROY_EVENT_CHANNEL.call("", (h, a, capture) -> {
                h.invokeExact(capture, channel);
                return 0;
            });
        } catch (NativeCallException e) {
            LOG.warn("rdma_destroy_event_channel failed: {}", e.getCause());
        }
    }
}
