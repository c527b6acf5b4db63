package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import smbdirect.rdma.verbs.internal.VerbsBackend.QueuePair;

/**
 * An {@code ibv_qp} (created by {@code rdma_create_qp} on an identifier) and its prepared work
 * requests: one native {@code ibv_send_wr} + {@code ibv_sge} and one {@code ibv_recv_wr} +
 * {@code ibv_sge}, set up once (single SGE, no chaining) and refilled per post; and the inline
 * verbs' function pointers, read once from {@code ibv_context.ops} (they never change after the
 * context was opened).
 */
final class QpHandle extends NativeHandle implements QueuePair {

    final MemorySegment qp;
    /** The identifier the queue pair was created on (for rdma_notify); {@code null} in tests. */
    CmIdHandle id;
    final MemorySegment postSend;
    final MemorySegment postRecv;
    final MemorySegment sendWr;
    final MemorySegment sendSge;
    final MemorySegment recvWr;
    final MemorySegment recvSge;
    final MemorySegment badWr;
    /**
     * Set (before {@link #destroyed}) by a destroy, which then waits while {@link #posting}: a post
     * that sets {@code posting} and then finds {@code retired} clear runs before the queue pair is
     * freed. The two volatile fields replace a monitor on the post path: the caller serializes the
     * posts of one queue pair (the endpoint's lock), so a post takes that one lock only.
     */
    volatile boolean retired;
    /** A post is between its check of {@link #retired} and its return; written by the (one) posting thread. */
    volatile boolean posting;

    QpHandle(MemorySegment qp) {
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

    @Override
    String gone() {
        return "the queue pair was destroyed";
    }
}
