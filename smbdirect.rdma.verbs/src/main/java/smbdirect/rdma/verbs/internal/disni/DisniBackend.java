package smbdirect.rdma.verbs.internal.disni;

import java.io.IOException;
import java.lang.ref.Reference;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaVerbs;
import com.ibm.disni.verbs.SVCDeregMr;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCRegMr;
import com.ibm.disni.verbs.SVCReqNotify;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsConstants;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * {@link VerbsBackend} over DiSNI 2.0 ({@code com.ibm.disni.verbs}), embedded in this bundle.
 *
 * <p>Stateful verb calls: each queue pair pre-builds one {@link SVCPostSend} per opcode it posts
 * (SEND, RDMA WRITE, RDMA READ) and refills only the modifiable fields (wr_id, send_flags, SGE
 * address/length/lkey, remote address/rkey) before {@code execute()}; DiSNI 2.0 cannot modify the
 * opcode or {@code imm_data} of a built call, so SEND_WITH_INV (raw opcode 9, invalidate rkey in
 * the {@code imm_data} union, both serialised unchanged by {@code NatIbvSendWR.writeBack}) builds
 * a one-off call. DiSNI's {@link SVCPostRecv} has no modifiable fields at all, so receive calls are
 * cached per (address, length, lkey): an engine re-posting a fixed pool of receive buffers
 * reuses them without allocation. Polling uses one {@link SVCPollCq} over a reused {@link IbvWC}
 * array per completion queue.
 *
 * <p>DiSNI 2.0's poll reads only wr_id, status and opcode of a failed completion (its other
 * {@code IbvWC} fields keep the values of an earlier completion), so this backend reports 0 for the
 * byte length, flags, immediate data and vendor error of failed completions.
 *
 * <p>Thread-safety: CM calls are thread-safe (DiSNI's natives are); posts for one queue pair must
 * be serialised by the caller (the endpoint's lock); each completion queue is polled by one thread.
 */
public final class DisniBackend implements VerbsBackend {

    private static final Logger LOG = LoggerFactory.getLogger(DisniBackend.class);
    /** DiSNI 2.0: no private data beyond rdma_connect's, IRD/ORD forced to the device maximum, IPv4 only. */
    static final Features FEATURES = new Features(VerbsSettings.DISNI, false, false, false);

    private final RdmaEventChannel channel;
    private final RdmaVerbs verbs;
    private final Map<RdmaCmId, DisniCmId> ids = Collections.synchronizedMap(new IdentityHashMap<>());
    private final Map<Integer, DisniDevice> devices = new ConcurrentHashMap<>();

    /** @param channel the event channel the probe opened (owned by this backend from now on) */
    public DisniBackend(RdmaEventChannel channel) throws IOException {
        this.channel = channel;
        this.verbs = RdmaVerbs.open();
    }

    static final class DisniCmId implements CmId {
        final RdmaCmId id;

        DisniCmId(RdmaCmId id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return "cm_id@" + Integer.toHexString(System.identityHashCode(id));
        }
    }

    static final class DisniDevice implements Device {
        final IbvContext context;
        final int key;

        DisniDevice(IbvContext context, int key) {
            this.context = context;
            this.key = key;
        }

        @Override
        public int key() {
            return key;
        }
    }

    static final class DisniPd implements ProtectionDomain {
        final IbvPd pd;

        DisniPd(IbvPd pd) {
            this.pd = pd;
        }
    }

    static final class DisniCq implements CompletionQueue {
        final IbvCompChannel compChannel;
        final IbvCQ cq;
        final IbvWC[] wcs;
        final SVCPollCq poll;
        final SVCReqNotify notify;

        DisniCq(IbvCompChannel compChannel, IbvCQ cq, IbvWC[] wcs, SVCPollCq poll, SVCReqNotify notify) {
            this.compChannel = compChannel;
            this.cq = cq;
            this.wcs = wcs;
            this.poll = poll;
            this.notify = notify;
        }
    }

    static final class DisniMr implements RegisteredMemory {
        final IbvMr mr;

        DisniMr(IbvMr mr) {
            this.mr = mr;
        }

        @Override
        public long address() {
            return mr.getAddr();
        }

        @Override
        public int length() {
            return mr.getLength();
        }

        @Override
        public int localKey() {
            return mr.getLkey();
        }

        @Override
        public int remoteKey() {
            return mr.getRkey();
        }
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

    static final class DisniQp implements QueuePair {
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

        void free() {
            send.call.free();
            write.call.free();
            read.call.free();
            receives.free();
        }
    }

    @Override
    public Features features() {
        return FEATURES;
    }

    // ------------------------------------------------------------------ CM

    @Override
    public CmId createId() throws IOException {
        RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        DisniCmId handle = new DisniCmId(id);
        ids.put(id, handle);
        return handle;
    }

    private static RdmaCmId id(CmId id) {
        return ((DisniCmId) id).id;
    }

    @Override
    public void bindAddr(CmId id, InetSocketAddress address) throws IOException {
        id(id).bindAddr(address);
    }

    @Override
    public void listen(CmId id, int backlog) throws IOException {
        id(id).listen(backlog);
    }

    @Override
    public void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException {
        id(id).resolveAddr(null, destination, timeoutMillis);
    }

    @Override
    public void resolveRoute(CmId id, int timeoutMillis) throws IOException {
        id(id).resolveRoute(timeoutMillis);
    }

    /** DiSNI 2.0 sets initiator_depth = responder_resources = the device's max_qp_rd_atom itself. */
    @Override
    public void connect(CmId id, CmConnParam parameters) throws IOException {
        ByteBuffer privateData = parameters.privateData();
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) parameters.retryCount());
        param.setRnr_retry_count((byte) parameters.rnrRetryCount());
        ByteBuffer data = null;
        if (privateData.hasRemaining()) {
            data = ByteBuffer.allocateDirect(privateData.remaining());
            data.put(privateData.duplicate()).flip();
            param.setPrivate_data(MemoryUtils.getAddress(data));
            param.setPrivate_data_len((byte) data.remaining());
        }
        try {
            id(id).connect(param);
        } finally {
            Reference.reachabilityFence(data);
        }
    }

    /** DiSNI 2.0's rdma_accept carries no private data and the device's max_qp_rd_atom as IRD/ORD. */
    @Override
    public void accept(CmId id, CmConnParam parameters) throws IOException {
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) parameters.retryCount());
        param.setRnr_retry_count((byte) parameters.rnrRetryCount());
        id(id).accept(param);
    }

    /** DiSNI 2.0 has no rdma_reject ({@link Features#privateData()} is false: never called). */
    @Override
    public void reject(CmId id, ByteBuffer privateData) throws IOException {
        throw new IOException("rdma_reject: DiSNI 2.0 has none (destroying the identifier rejects the request)");
    }

    @Override
    public int disconnect(CmId id) {
        try {
            return id(id).disconnect();
        } catch (IOException e) {
            LOG.debug("rdma_disconnect failed: {}", e.getMessage());
            return -1;
        }
    }

    @Override
    public void destroyId(CmId id) {
        RdmaCmId cmId = id(id);
        ids.remove(cmId);
        try {
            cmId.destroyId();
        } catch (IOException e) {
            LOG.warn("rdma_destroy_id failed: {}", e.getMessage());
        }
    }

    @Override
    public InetSocketAddress localAddress(CmId id) throws IOException {
        return inet(id(id).getSource());
    }

    @Override
    public InetSocketAddress peerAddress(CmId id) throws IOException {
        return inet(id(id).getDestination());
    }

    private static InetSocketAddress inet(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    @Override
    public CmEvent nextCmEvent(int timeoutMillis) throws IOException {
        RdmaCmEvent event = channel.getCmEvent(timeoutMillis);
        if (event == null) {
            return null;
        }
        int type = event.getEvent();
        DisniCmId listenId = event.getListenIdPriv() == null ? null : ids.get(event.getListenIdPriv());
        DisniCmId id = null;
        RdmaCmId conn = event.getConnIdPriv();
        if (conn != null) {
            id = ids.get(conn);
            if (id == null && type == VerbsConstants.CM_EVENT_CONNECT_REQUEST) {
                id = new DisniCmId(conn);
                ids.put(conn, id);
            }
        }
        event.ackEvent();
        return new CmEvent(type, listenId, id);
    }

    @Override
    public void close() {
        try {
            channel.destroyEventChannel();
        } catch (IOException e) {
            LOG.warn("rdma_destroy_event_channel failed: {}", e.getMessage());
        }
    }

    // ------------------------------------------------------------------ verbs

    @Override
    public Device device(CmId id) throws IOException {
        IbvContext context = id(id).getVerbs();
        if (context == null) {
            throw new IOException("no RDMA device behind the identifier's address");
        }
        int key = context.getCmd_fd();
        return devices.computeIfAbsent(key, k -> new DisniDevice(context, k));
    }

    @Override
    public ProtectionDomain allocPd(Device device) throws IOException {
        return new DisniPd(verbs.allocPd(((DisniDevice) device).context));
    }

    @Override
    public CompletionQueue createCq(Device device, int entries, int pollBatch) throws IOException {
        IbvContext context = ((DisniDevice) device).context;
        IbvCompChannel compChannel = verbs.createCompChannel(context);
        IbvCQ cq = verbs.createCQ(context, compChannel, entries, 0);
        IbvWC[] wcs = new IbvWC[pollBatch];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWC();
        }
        SVCPollCq poll = verbs.pollCQ(cq, wcs, pollBatch);
        SVCReqNotify notify = verbs.reqNotifyCQ(cq, false);
        return new DisniCq(compChannel, cq, wcs, poll, notify);
    }

    @Override
    public QueuePair createQp(CmId id, ProtectionDomain pd, CompletionQueue cq, int maxSendWr, int maxRecvWr)
            throws IOException {
        IbvCQ ibvCq = ((DisniCq) cq).cq;
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(maxSendWr);
        attr.cap().setMax_recv_wr(maxRecvWr);
        attr.cap().setMax_send_sge(1);
        attr.cap().setMax_recv_sge(1);
        attr.cap().setMax_inline_data(0);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(ibvCq);
        attr.setRecv_cq(ibvCq);
        IbvQP qp = id(id).createQP(((DisniPd) pd).pd, attr);
        try {
            return new DisniQp(qp, maxRecvWr);
        } catch (IOException e) {
            id(id).destroyQP();
            throw e;
        }
    }

    @Override
    public void destroyQp(CmId id, QueuePair qp) {
        ((DisniQp) qp).free();
        try {
            id(id).destroyQP();
        } catch (IOException e) {
            LOG.warn("rdma_destroy_qp failed: {}", e.getMessage());
        }
    }

    @Override
    public RegisteredMemory register(ProtectionDomain pd, ByteBuffer buffer, int accessFlags) throws IOException {
        long address = MemoryUtils.getAddress(buffer) + buffer.position();
        SVCRegMr call = verbs.regMr(((DisniPd) pd).pd, address, buffer.remaining(), accessFlags);
        try {
            return new DisniMr(call.execute().getMr());
        } finally {
            call.free();
        }
    }

    @Override
    public void deregister(RegisteredMemory memory) throws IOException {
        SVCDeregMr call = verbs.deregMr(((DisniMr) memory).mr);
        try {
            call.execute();
        } finally {
            call.free();
        }
    }

    @Override
    public void postSend(QueuePair qp, SendRequest request) throws IOException {
        DisniQp q = (DisniQp) qp;
        switch (request.opcode) {
            case VerbsConstants.WR_SEND:
                q.send.execute(request);
                return;
            case VerbsConstants.WR_RDMA_WRITE:
                q.write.execute(request);
                return;
            case VerbsConstants.WR_RDMA_READ:
                q.read.execute(request);
                return;
            case VerbsConstants.WR_SEND_WITH_INV:
                IbvSendWR wr = sendWr(VerbsConstants.WR_SEND_WITH_INV, request.wrId, request.sendFlags,
                        request.sgeAddress, request.sgeLength, request.sgeLocalKey, 0, 0);
                wr.setImm_data(request.invalidateKey);
                List<IbvSendWR> list = new ArrayList<>(1);
                list.add(wr);
                SVCPostSend call = q.qp.postSend(list, null);
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

    @Override
    public void postRecv(QueuePair qp, long wrId, long address, int length, int localKey) throws IOException {
        DisniQp q = (DisniQp) qp;
        SVCPostRecv call = q.receives.get(address, length, localKey, wrId);
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
        call = q.qp.postRecv(list, null);
        boolean cached = q.receives.put(address, length, localKey, wrId, call);
        try {
            call.execute();
        } finally {
            if (!cached) {
                call.free();
            }
        }
    }

    @Override
    public int poll(CompletionQueue cq, CompletionBatch batch) throws IOException {
        DisniCq q = (DisniCq) cq;
        int n = q.poll.execute().getPolls();
        if (n < 0) {
            throw new IOException("ibv_poll_cq returned " + n);
        }
        for (int i = 0; i < n; i++) {
            IbvWC wc = q.wcs[i];
            if (wc.getStatus() == VerbsConstants.WC_SUCCESS) {
                batch.set(i, wc.getWr_id(), wc.getStatus(), wc.getOpcode(), wc.getVendor_err(), wc.getByte_len(),
                        wc.getImm_data(), wc.getWc_flags(), wc.getQp_num());
            } else {
                batch.set(i, wc.getWr_id(), wc.getStatus(), wc.getOpcode(), 0, 0, 0, 0, 0);
            }
        }
        return n;
    }

    @Override
    public void requestNotify(CompletionQueue cq) throws IOException {
        ((DisniCq) cq).notify.execute();
    }

    @Override
    public boolean awaitCompletionEvent(CompletionQueue cq, int timeoutMillis) throws IOException {
        DisniCq q = (DisniCq) cq;
        boolean event = verbs.getCqEvent(q.compChannel, q.cq, timeoutMillis);
        if (event) {
            verbs.ackCqEvents(q.cq, 1);
        }
        return event;
    }

    @Override
    public void destroyCq(CompletionQueue cq) {
        DisniCq q = (DisniCq) cq;
        q.poll.free();
        q.notify.free();
        try {
            verbs.destroyCQ(q.cq);
            verbs.destroyCompChannel(q.compChannel);
        } catch (IOException e) {
            LOG.warn("destroying a completion queue failed: {}", e.getMessage());
        }
    }

    @Override
    public void deallocPd(ProtectionDomain pd) {
        try {
            verbs.deallocPd(((DisniPd) pd).pd);
        } catch (IOException e) {
            LOG.warn("ibv_dealloc_pd failed: {}", e.getMessage());
        }
    }
}
