package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend.CmId;
import smbdirect.rdma.verbs.internal.VerbsBackend.CompletionQueue;
import smbdirect.rdma.verbs.internal.VerbsBackend.ProtectionDomain;
import smbdirect.rdma.verbs.internal.VerbsBackend.QueuePair;
import smbdirect.rdma.verbs.internal.VerbsBackend.QueuePairReadDepths;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * Queue pairs and posting: {@code rdma_create_qp} on an identifier (one send and one receive queue
 * on one completion queue, one SGE each), {@code ibv_query_qp} for the read depths,
 * {@code rdma_destroy_qp}; and the two inline posts, which refill the queue pair's prepared work
 * request and call {@code ibv_context.ops} without allocating. The posts of one queue pair are
 * serialized by the caller (the endpoint's lock: {@code VerbsBackend.postSend}); a post takes no
 * lock of its own: it announces itself ({@code QpHandle.posting}) and a destroy retires the queue
 * pair first, then waits for a post in progress, so the queue pair is never freed under a post.
 */
final class QueuePairs {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCoreBackend.class);

    private final BackendState state;
    /** This backend's queue pairs by address, for their asynchronous events. */
    final Map<Long, QpHandle> byAddress = new ConcurrentHashMap<>();

    QueuePairs(BackendState state) {
        this.state = state;
    }

    QueuePair create(CmId cmId, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException {
        NativeFunction fn = Natives.RDMA_CREATE_QP;
        CmIdHandle id = (CmIdHandle) cmId;
        PdHandle p = (PdHandle) pd;
        CqHandle c = (CqHandle) cq;
        synchronized (id) {
            fn.requireLive(id, state);
            if (id.ptr.get(ADDRESS, Abi.CM_ID_VERBS).equals(MemorySegment.NULL)) {
                throw fn.refused(Abi.EINVAL, id + " is not bound to an RDMA device");
            }
            if (id.qp != null && !id.qp.destroyed) {
                throw fn.refused(Abi.EINVAL, id + " has a queue pair already");
            }
            synchronized (p) {
                if (p.destroyed) {
                    throw fn.refused(Abi.EINVAL, p.gone());
                }
                synchronized (c) {
                    if (c.destroyed) {
                        throw fn.refused(Abi.EINVAL, c.gone());
                    }
                    fn.call("send " + maxSendWr + ", receive " + maxRecvWr + " work requests, 1 SGE each",
                            (h, a, capture) -> {
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
                                return (int) h.invokeExact(capture, id.ptr, p.ptr, attr);
                            });
                    QpHandle qp = new QpHandle(id.ptr.get(ADDRESS, Abi.CM_ID_QP));
                    qp.id = id;
                    id.qp = qp;
                    byAddress.put(qp.qp.address(), qp);
                    return qp;
                }
            }
        }
    }

    QueuePairReadDepths queryReadDepths(QueuePair queuePair) throws IOException {
        NativeFunction fn = Natives.IBV_QUERY_QP;
        QpHandle qp = (QpHandle) queuePair;
        synchronized (qp) {
            fn.requireUsable(qp, state);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment capture = a.allocate(Natives.CAPTURE);
                MemorySegment attr = a.allocate(Abi.IBV_QP_ATTR);
                MemorySegment init = a.allocate(Abi.IBV_QP_INIT_ATTR);
                int rc = fn.call(a, capture, "", (h, arena, c) -> (int) h.invokeExact(c, qp.qp, attr,
                        Abi.IBV_QP_MAX_QP_RD_ATOMIC | Abi.IBV_QP_MAX_DEST_RD_ATOMIC, init));
                if (rc != 0) {
                    throw fn.failed(rc > 0 ? rc : Natives.errno(capture), "read depths");
                }
                return new QueuePairReadDepths(Byte.toUnsignedInt(attr.get(JAVA_BYTE, Abi.QP_ATTR_MAX_RD_ATOMIC)),
                        Byte.toUnsignedInt(attr.get(JAVA_BYTE, Abi.QP_ATTR_MAX_DEST_RD_ATOMIC)));
            }
        }
    }

    void destroy(CmId cmId, QueuePair queuePair) {
        CmIdHandle id = (CmIdHandle) cmId;
        QpHandle qp = (QpHandle) queuePair;
        synchronized (id) {
            synchronized (qp) {
                if (qp.destroyed || id.destroyed) {
                    return;
                }
                qp.retired = true;
                while (qp.posting) {
                    Thread.onSpinWait(); // a post in progress: one non-blocking native call
                }
                qp.destroyed = true;
                if (id.qp == qp) {
                    id.qp = null;
                }
                // rdma_destroy_qp waits until every asynchronous event of the queue pair that was read
                // is acknowledged: the event reader acknowledges before it hands an event on
                byAddress.remove(qp.qp.address(), qp);
                try {
                    Natives.RDMA_DESTROY_QP.call("", (h, a, capture) -> {
                        h.invokeExact(capture, id.ptr);
                        return 0;
                    });
                } catch (NativeCallException e) {
                    LOG.warn("rdma_destroy_qp of {} failed: {}", id, e.getCause());
                }
            }
        }
    }

    void postSend(QueuePair queuePair, SendRequest r) throws IOException {
        NativeFunction fn = Natives.POST_SEND;
        QpHandle qp = (QpHandle) queuePair;
        qp.posting = true;
        try {
            requirePostable(fn, qp);
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
                MwHandle mw = (MwHandle) r.bindWindow;
                MrHandle mr = (MrHandle) r.bindRegion;
                if (mw.destroyed || mr.destroyed) {
                    throw fn.refused(Abi.EINVAL, "bind of a deallocated memory window or onto a deregistered region");
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
            int rc = fn.invoke(qp.postSend, qp.qp, wr, qp.badWr);
            if (rc != 0) {
                // ibv_post_send returns the errno
                throw fn.failed(rc, "opcode " + r.opcode + ", wr_id 0x" + Long.toHexString(r.wrId));
            }
        } finally {
            qp.posting = false;
        }
    }

    void postRecv(QueuePair queuePair, long wrId, long address, int length, int localKey) throws IOException {
        NativeFunction fn = Natives.POST_RECV;
        QpHandle qp = (QpHandle) queuePair;
        qp.posting = true;
        try {
            requirePostable(fn, qp);
            qp.recvWr.set(JAVA_LONG, Abi.RECV_WR_WR_ID, wrId);
            MemorySegment sge = qp.recvSge;
            sge.set(JAVA_LONG, Abi.SGE_ADDR, address);
            sge.set(JAVA_INT, Abi.SGE_LENGTH, length);
            sge.set(JAVA_INT, Abi.SGE_LKEY, localKey);
            int rc = fn.invoke(qp.postRecv, qp.qp, qp.recvWr, qp.badWr);
            if (rc != 0) {
                throw fn.failed(rc, "wr_id 0x" + Long.toHexString(wrId));
            }
        } finally {
            qp.posting = false;
        }
    }

    /** Refuses a post on a retired (destroyed) queue pair (EINVAL) or a closed backend (ENODEV). */
    private void requirePostable(NativeFunction fn, QpHandle qp) throws NativeCallException {
        if (qp.retired) {
            throw fn.refused(Abi.EINVAL, qp.gone());
        }
        fn.requireOpen(state);
    }
}
