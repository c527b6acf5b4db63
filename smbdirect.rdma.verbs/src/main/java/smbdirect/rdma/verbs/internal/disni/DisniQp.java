package smbdirect.rdma.verbs.internal.disni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend.QueuePair;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * A queue pair over DiSNI and its posting. Stateful verb calls: the queue pair pre-builds one
 * {@link SVCPostSend} per opcode it posts (SEND, RDMA WRITE, RDMA READ) and refills only the
 * modifiable fields (wr_id, send_flags, SGE address/length/lkey, remote address/rkey) before
 * {@code execute()}; DiSNI 2.0 cannot modify the opcode or {@code imm_data} of a built call, so
 * SEND_WITH_INV (raw opcode 9, invalidate rkey in the {@code imm_data} union, both serialised
 * unchanged by {@code NatIbvSendWR.writeBack}) builds a one-off call. DiSNI's {@link SVCPostRecv}
 * has no modifiable fields at all, so receive calls are cached per (address, length, lkey)
 * ({@link ReceiveCallCache}): an engine re-posting a fixed pool of receive buffers reuses them
 * without allocation.
 *
 * <p>The posts of one queue pair are serialised by the caller (the endpoint's lock); this class
 * takes no lock of its own.
 */
final class DisniQp implements QueuePair {

    final IbvQP qp;
    final PreparedSend send;
    final PreparedSend write;
    final PreparedSend read;
    final ReceiveCallCache receives;

    DisniQp(IbvQP qp, int maxRecvWr) throws IOException {
        this.qp = qp;
        this.send = new PreparedSend(qp, VerbsConstants.WR_SEND);
        this.write = new PreparedSend(qp, VerbsConstants.WR_RDMA_WRITE);
        this.read = new PreparedSend(qp, VerbsConstants.WR_RDMA_READ);
        this.receives = new ReceiveCallCache(maxRecvWr * 2);
    }

    /** Frees the prepared and cached calls (before the queue pair is destroyed). */
    void free() {
        send.call.free();
        write.call.free();
        read.call.free();
        receives.free();
    }

    /** One pre-built single-SGE send call and its modifiers. */
    static final class PreparedSend {
        final SVCPostSend call;
        final SVCPostSend.SendWRMod wr;
        final SVCPostSend.SgeMod sge;
        final SVCPostSend.RdmaMod rdma;

        PreparedSend(IbvQP qp, int opcode) throws IOException {
            List<IbvSendWR> list = new ArrayList<>(1);
            list.add(sendWr(opcode, 0, 0, 0, 0, 0, 0, 0));
            this.call = qp.postSend(list, null);
            this.wr = call.getWrMod(0);
            this.sge = wr.getSgeMod(0);
            this.rdma = wr.getRdmaMod();
        }

        void execute(SendRequest r) throws IOException {
            wr.setWr_id(r.wrId);
            wr.setSend_flags(r.sendFlags);
            sge.setAddr(r.sgeAddress);
            sge.setLength(r.sgeLength);
            sge.setLkey(r.sgeLocalKey);
            rdma.setRemote_addr(r.remoteAddress);
            rdma.setRkey(r.remoteKey);
            call.execute();
        }
    }

    static IbvSendWR sendWr(int opcode, long wrId, int flags, long address, int length, int lkey, long remoteAddress,
            int rkey) {
        IbvSge sge = new IbvSge();
        sge.setAddr(address);
        sge.setLength(length);
        sge.setLkey(lkey);
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvSendWR wr = new IbvSendWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sges);
        wr.setNum_sge(1);
        wr.setOpcode(opcode);
        wr.setSend_flags(flags);
        wr.getRdma().setRemote_addr(remoteAddress);
        wr.getRdma().setRkey(rkey);
        return wr;
    }

    /** {@code ibv_post_send} of {@code request}: through the prepared call of its opcode, or a one-off call. */
    void postSend(SendRequest request) throws IOException {
        switch (request.opcode) {
            case VerbsConstants.WR_SEND:
                send.execute(request);
                return;
            case VerbsConstants.WR_RDMA_WRITE:
                write.execute(request);
                return;
            case VerbsConstants.WR_RDMA_READ:
                read.execute(request);
                return;
            case VerbsConstants.WR_SEND_WITH_INV:
                IbvSendWR wr = sendWr(VerbsConstants.WR_SEND_WITH_INV, request.wrId, request.sendFlags,
                        request.sgeAddress, request.sgeLength, request.sgeLocalKey, 0, 0);
                wr.setImm_data(request.invalidateKey);
                List<IbvSendWR> list = new ArrayList<>(1);
                list.add(wr);
                SVCPostSend call = qp.postSend(list, null);
                try {
                    call.execute();
                } finally {
                    call.free();
                }
                return;
            default:
                throw new IOException("opcode " + request.opcode + " is not posted by this provider");
        }
    }

    /** {@code ibv_post_recv} of one buffer: through its cached call, or a new one (cached while there is room). */
    void postRecv(long wrId, long address, int length, int localKey) throws IOException {
        SVCPostRecv call = receives.get(address, length, localKey, wrId);
        if (call != null) {
            call.execute();
            return;
        }
        IbvSge sge = new IbvSge();
        sge.setAddr(address);
        sge.setLength(length);
        sge.setLkey(localKey);
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvRecvWR wr = new IbvRecvWR();
        wr.setWr_id(wrId);
        wr.setSg_list(sges);
        wr.setNum_sge(1);
        List<IbvRecvWR> list = new ArrayList<>(1);
        list.add(wr);
        call = qp.postRecv(list, null);
        boolean cached = receives.put(address, length, localKey, wrId, call);
        try {
            call.execute();
        } finally {
            if (!cached) {
                call.free();
            }
        }
    }
}
