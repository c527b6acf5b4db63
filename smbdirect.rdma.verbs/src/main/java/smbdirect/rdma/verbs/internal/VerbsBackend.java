package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The seam over every native RDMA call the provider makes: RDMA CM (event channel, identifiers,
 * address and route resolution, connect, accept, disconnect) and verbs (protection domain,
 * completion queue, queue pair, memory registration, posting, polling).
 *
 * <p>The production implementation ({@code smbdirect.rdma.verbs.internal.disni.DisniBackend})
 * forwards each call to DiSNI; tests use a recording fake. Everything that decides <em>what</em>
 * to post or how to interpret a completion lives outside this interface, in code that the fake
 * exercises.
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
        /** A stable key for the device context (used to share one completion group per device). */
        int key();
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
     * An RDMA CM event.
     *
     * @param type the {@code rdma_cm_event_type} value ({@link VerbsConstants#CM_EVENT_CONNECT_REQUEST} ...)
     * @param listenId the listening identifier (CONNECT_REQUEST only), else {@code null}
     * @param id the identifier the event is about (the new identifier for CONNECT_REQUEST)
     */
    record CmEvent(int type, CmId listenId, CmId id) {
    }

    // ---- connection manager ----

    CmId createId() throws IOException;

    void bindAddr(CmId id, InetSocketAddress address) throws IOException;

    void listen(CmId id, int backlog) throws IOException;

    void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException;

    void resolveRoute(CmId id, int timeoutMillis) throws IOException;

    /**
     * {@code rdma_connect}. {@code privateData} (position to limit, at most
     * {@link VerbsConstants#MAX_CONNECT_PRIVATE_DATA} bytes) is copied before the call returns.
     */
    void connect(CmId id, ByteBuffer privateData, int retryCount, int rnrRetryCount) throws IOException;

    /** {@code rdma_accept} (without private data: DiSNI 2.0 cannot send any). */
    void accept(CmId id, int retryCount, int rnrRetryCount) throws IOException;

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

    /** Creates a completion queue of {@code entries} and its completion channel. */
    CompletionQueue createCq(Device device, int entries, int pollBatch) throws IOException;

    /** Creates the RC queue pair of {@code id} with single-SGE work requests on {@code cq}. */
    QueuePair createQp(CmId id, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException;

    void destroyQp(CmId id, QueuePair qp);

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

    void destroyCq(CompletionQueue cq);

    void deallocPd(ProtectionDomain pd);
}
