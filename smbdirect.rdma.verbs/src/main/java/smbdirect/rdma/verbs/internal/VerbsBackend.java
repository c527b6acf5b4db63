package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The seam over every native RDMA call the provider makes: RDMA CM (event channel, identifiers,
 * address and route resolution, connect, accept, disconnect) and verbs (protection domain,
 * completion queue, queue pair, memory registration, posting, polling).
 *
 * <p>Two production implementations: {@code smbdirect.rdma.verbs.internal.rdmacore.RdmaCoreBackend}
 * calls libibverbs and librdmacm through the Foreign Function &amp; Memory API (JDK 22+), and
 * {@code smbdirect.rdma.verbs.internal.disni.DisniBackend} forwards each call to DiSNI 2.0. What a
 * backend can do beyond DiSNI's common ground it declares in {@link #features()}; the provider works
 * around what is missing. Tests use a recording fake and a software loopback device. Everything that
 * decides <em>what</em> to post or how to interpret a completion lives outside this interface, in
 * code that the fakes exercise.
 *
 * <p>Threading: CM calls come from the CM event thread and from callers of the SPI; verbs posts for
 * one queue pair are serialised by the caller; {@link #poll} and {@link #awaitCompletionEvent} for
 * one completion queue are called only by its completion thread. Implementations must be safe
 * under that regime.
 */
public interface VerbsBackend {

    /** An RDMA CM identifier ({@code rdma_cm_id}). Identity equality. */
    interface CmId {
    }

    /** An opened device context ({@code ibv_context}); the same object for the same device. */
    interface Device {
        /** A stable key for the device context (its completion groups and protection domain are per key). */
        int key();

        /**
         * {@code ibv_context.num_comp_vectors}: the completion vectors (interrupt vectors, each served
         * by its own CPU) a completion queue of the device may be created on; at least 1.
         */
        default int completionVectors() {
            return 1;
        }
    }

    /** A protection domain ({@code ibv_pd}). */
    interface ProtectionDomain {
    }

    /** A completion queue ({@code ibv_cq}) with its completion channel. */
    interface CompletionQueue {
    }

    /** A reliable-connected queue pair ({@code ibv_qp}). */
    interface QueuePair {
    }

    /** A memory registration ({@code ibv_mr}). */
    interface RegisteredMemory {
        /** The registered virtual address (the address the peer names in RDMA requests). */
        long address();

        int length();

        int localKey();

        int remoteKey();
    }

    /**
     * A type 2 memory window ({@code ibv_mw}): allocated on a protection domain, then bound to a
     * range of a registration on one queue pair by a work request ({@link VerbsConstants#WR_BIND_MW});
     * a peer reaches the range only through that queue pair, under the window's rkey, and a peer's
     * Send with Invalidate naming that rkey invalidates the window.
     */
    interface MemoryWindow {
        /** The rkey {@code ibv_alloc_mw} gave the window (a bind replaces its low 8 bits). */
        int remoteKey();
    }

    /**
     * An asynchronous event of a device ({@code struct ibv_async_event}), already acknowledged.
     *
     * @param type the {@code ibv_event_type} ({@link VerbsConstants#EVENT_QP_FATAL} ...)
     * @param qp the queue pair of a QP event (one of this backend's), else {@code null}
     * @param cq the completion queue of IBV_EVENT_CQ_ERR (one of this backend's), else {@code null}
     * @param port the port of a port event, else 0
     */
    record AsyncEvent(int type, QueuePair qp, CompletionQueue cq, int port) {
    }

    /** Receives a device's asynchronous events on a backend thread; must not block. */
    @FunctionalInterface
    interface AsyncEventHandler {
        void onAsyncEvent(AsyncEvent event);
    }

    /**
     * What a backend can do beyond DiSNI 2.0 (which can do none of it).
     *
     * @param name the backend's name ({@code rdma-core}, {@code disni}, ...) as the {@code backend} setting spells it
     * @param privateData private data on {@code rdma_accept} and in CM events (CONNECT_REQUEST,
     *     ESTABLISHED, REJECTED), the peer's IRD/ORD and the reject status in CM events, and
     *     {@link #reject} with private data
     * @param negotiatesReadDepth {@code rdma_connect}/{@code rdma_accept} take the IRD/ORD given
     *     ({@code responder_resources}/{@code initiator_depth}) instead of the device maximum
     * @param ipv6 {@code sockaddr_in6} addresses for bind, listen and resolve
     */
    record Features(String name, boolean privateData, boolean negotiatesReadDepth, boolean ipv6) {
    }

    /**
     * An RDMA CM event.
     *
     * @param type the {@code rdma_cm_event_type} value ({@link VerbsConstants#CM_EVENT_CONNECT_REQUEST} ...)
     * @param listenId the listening identifier (CONNECT_REQUEST only), else {@code null}
     * @param id the identifier the event is about (the new identifier for CONNECT_REQUEST)
     * @param status {@code rdma_cm_event.status}: for REJECTED the reject reason (an InfiniBand CM
     *     reject reason, or a negative errno on iWARP), else 0 or a negative errno
     * @param privateData a copy of {@code param.conn.private_data} (CONNECT_REQUEST, ESTABLISHED,
     *     REJECTED); as long as the CM reports it, which on InfiniBand and RoCE is the whole
     *     private data field of the CM message, zero-padded
     * @param responderResources {@code param.conn.responder_resources}: the peer's initiator depth (its ORD)
     * @param initiatorDepth {@code param.conn.initiator_depth}: the peer's responder resources (its IRD)
     */
    record CmEvent(int type, CmId listenId, CmId id, int status, byte[] privateData, int responderResources,
            int initiatorDepth) {

        private static final byte[] NONE = new byte[0];

        /** An event without status, private data or IRD/ORD (what DiSNI 2.0 surfaces). */
        public CmEvent(int type, CmId listenId, CmId id) {
            this(type, listenId, id, 0, NONE, 0, 0);
        }

        public CmEvent {
            privateData = privateData == null ? NONE : privateData;
        }
    }

    /**
     * {@code struct rdma_conn_param} of {@code rdma_connect} and {@code rdma_accept}.
     *
     * @param privateData position to limit, copied before the call returns
     * @param responderResources the IRD offered (RDMA Reads the peer may have outstanding against us)
     * @param initiatorDepth the ORD asked for (RDMA Reads we may have outstanding)
     * @param retryCount transport retries (ignored by {@code rdma_accept})
     * @param rnrRetryCount receiver-not-ready retries
     */
    record CmConnParam(ByteBuffer privateData, int responderResources, int initiatorDepth, int retryCount,
            int rnrRetryCount) {
    }

    /** What this backend can do beyond DiSNI 2.0. */
    Features features();

    // ---- connection manager ----

    CmId createId() throws IOException;

    void bindAddr(CmId id, InetSocketAddress address) throws IOException;

    void listen(CmId id, int backlog) throws IOException;

    void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException;

    void resolveRoute(CmId id, int timeoutMillis) throws IOException;

    /**
     * {@code rdma_connect}. The private data (at most {@link VerbsConstants#MAX_CONNECT_PRIVATE_DATA}
     * bytes) is copied before the call returns. A backend without
     * {@link Features#negotiatesReadDepth()} ignores the IRD/ORD given.
     */
    void connect(CmId id, CmConnParam parameters) throws IOException;

    /**
     * {@code rdma_accept}. A backend without {@link Features#privateData()} sends no private data, one
     * without {@link Features#negotiatesReadDepth()} ignores the IRD/ORD given.
     */
    void accept(CmId id, CmConnParam parameters) throws IOException;

    /**
     * {@code rdma_reject} of a connection request with {@code privateData} (position to limit, copied
     * before the call returns); the caller then destroys the identifier. Only with
     * {@link Features#privateData()}: without it, destroying the identifier is the reject.
     */
    void reject(CmId id, ByteBuffer privateData) throws IOException;

    /** {@code rdma_disconnect}; returns its result code (non-zero when not connected). */
    int disconnect(CmId id);

    /** {@code rdma_destroy_id}; on an unaccepted connection request this rejects it. */
    void destroyId(CmId id);

    InetSocketAddress localAddress(CmId id) throws IOException;

    InetSocketAddress peerAddress(CmId id) throws IOException;

    /** Waits up to {@code timeoutMillis} for the next CM event; {@code null} when none arrived. */
    CmEvent nextCmEvent(int timeoutMillis) throws IOException;

    /** Destroys the event channel. */
    void close();

    // ---- verbs ----

    /** The device context of a bound or resolved identifier. */
    Device device(CmId id) throws IOException;

    ProtectionDomain allocPd(Device device) throws IOException;

    /**
     * Creates a completion queue of {@code entries} and its completion channel, on completion vector
     * {@code vector} ({@code ibv_create_cq}'s {@code comp_vector}: 0 to
     * {@link Device#completionVectors()} - 1).
     */
    CompletionQueue createCq(Device device, int entries, int pollBatch, int vector) throws IOException;

    /** Creates the RC queue pair of {@code id} with single-SGE work requests on {@code cq}. */
    QueuePair createQp(CmId id, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException;

    void destroyQp(CmId id, QueuePair qp);

    /**
     * What {@code ibv_query_qp} reports of a connected queue pair's read depths, as the device
     * reports them: {@code max_rd_atomic} (by the verbs definition the ORD, the RDMA Reads this side
     * may have outstanding) and {@code max_dest_rd_atomic} (the IRD, those the peer may have
     * outstanding against this side).
     */
    record QueuePairReadDepths(int maxRdAtomic, int maxDestRdAtomic) {
    }

    /**
     * {@code ibv_query_qp} of the read depths the device put in effect on an established queue pair;
     * {@code null} where the backend cannot query it (DiSNI 2.0 has no {@code ibv_query_qp}).
     */
    default QueuePairReadDepths queryReadDepths(QueuePair qp) throws IOException {
        return null;
    }

    /** {@code ibv_reg_mr} of the bytes between position and limit of a direct buffer. */
    RegisteredMemory register(ProtectionDomain pd, ByteBuffer buffer, int accessFlags) throws IOException;

    /** {@code ibv_dereg_mr}: the keys are invalid when this returns. */
    void deregister(RegisteredMemory memory) throws IOException;

    /** Posts one send-queue work request described by {@code request} (read during the call only). */
    void postSend(QueuePair qp, SendRequest request) throws IOException;

    /** Posts one single-SGE receive. */
    void postRecv(QueuePair qp, long wrId, long address, int length, int localKey) throws IOException;

    /** Polls up to {@code batch.capacity()} completions into {@code batch}; returns how many. */
    int poll(CompletionQueue cq, CompletionBatch batch) throws IOException;

    /** Arms the completion channel for the next completion ({@code ibv_req_notify_cq}). */
    void requestNotify(CompletionQueue cq) throws IOException;

    /**
     * Waits up to {@code timeoutMillis} for a completion event of an armed queue and acknowledges
     * it; returns whether one arrived.
     */
    boolean awaitCompletionEvent(CompletionQueue cq, int timeoutMillis) throws IOException;

    /**
     * Ends a wait of {@link #awaitCompletionEvent} on {@code cq} at once (any thread; never blocks): work
     * was handed to the completion thread. A wake while nobody waits makes the next wait return at once.
     * Returns false where the backend cannot (the wait then lasts until a completion or its timeout).
     */
    default boolean wakeCompletionWait(CompletionQueue cq) {
        return false;
    }

    void destroyCq(CompletionQueue cq);

    void deallocPd(ProtectionDomain pd);

    // ---- asynchronous events ----

    /**
     * Starts reading the asynchronous events of {@code device} ({@code ibv_get_async_event}, each
     * acknowledged with {@code ibv_ack_async_event} before it is handed on): those of this backend's
     * queue pairs and completion queues, and the port and device events, go to {@code handler} on a
     * thread of the backend until {@link #unwatchAsyncEvents}. Returns false when the backend cannot
     * read them (DiSNI 2.0 has no {@code ibv_get_async_event}).
     */
    default boolean watchAsyncEvents(Device device, AsyncEventHandler handler) {
        return false;
    }

    /** Stops handing over the events of {@code device} (bounded: the reader's wait is short). */
    default void unwatchAsyncEvents(Device device) {
    }

    // ---- type 2 memory windows ----

    /**
     * {@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}; bind it with a {@link VerbsConstants#WR_BIND_MW} work
     * request ({@link SendRequest#bindWindow}) on a connected queue pair.
     *
     * @throws IOException naming the call and errno, also where the backend has no windows
     */
    default MemoryWindow allocMw(ProtectionDomain pd) throws IOException {
        throw new NativeCallException("ibv_alloc_mw", 95, "EOPNOTSUPP", "the " + features().name()
                + " backend has no memory windows");
    }

    /** {@code ibv_dealloc_mw}: the window's rkey is invalid when this returns. */
    default void deallocMw(MemoryWindow window) throws IOException {
        throw new NativeCallException("ibv_dealloc_mw", 95, "EOPNOTSUPP", "the " + features().name()
                + " backend has no memory windows");
    }
}
