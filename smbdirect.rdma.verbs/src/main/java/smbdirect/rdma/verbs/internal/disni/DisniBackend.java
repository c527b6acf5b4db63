package smbdirect.rdma.verbs.internal.disni;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaEventChannel;
import com.ibm.disni.verbs.RdmaVerbs;
import com.ibm.disni.verbs.SVCDeregMr;
import com.ibm.disni.verbs.SVCRegMr;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsBackend;
import smbdirect.rdma.verbs.internal.VerbsSettings;

/**
 * {@link VerbsBackend} over DiSNI 2.0 ({@code com.ibm.disni.verbs}), embedded in this bundle. This
 * class is the seam: each call is handed to the class of its concern, the CM to {@link DisniCm},
 * queue pairs and posting to {@link DisniQp}, completion queues to {@link DisniCq}; devices,
 * protection domains and registrations ({@code ibv_reg_mr}, {@code ibv_dereg_mr}) are here.
 *
 * <p>Stateful verb calls: each queue pair pre-builds one {@code SVCPostSend} per opcode it posts
 * and refills only the modifiable fields before {@code execute()}; receive calls are cached per
 * (address, length, lkey) ({@link DisniQp}); polling uses one {@code SVCPollCq} over a reused
 * {@code IbvWC} array per completion queue ({@link DisniCq}).
 *
 * <p>Thread-safety: CM calls are thread-safe (DiSNI's natives are); posts for one queue pair must
 * be serialised by the caller (the endpoint's lock); each completion queue is polled by one thread.
 */
public final class DisniBackend implements VerbsBackend {

    private static final Logger LOG = LoggerFactory.getLogger(DisniBackend.class);
    /** DiSNI 2.0: no private data beyond rdma_connect's, IRD/ORD forced to the device maximum, IPv4 only. */
    static final Features FEATURES = new Features(VerbsSettings.DISNI, false, false, false);

    private final DisniCm cm;
    private final RdmaVerbs verbs;
    private final Map<Integer, DisniDevice> devices = new ConcurrentHashMap<>();

    /** @param channel the event channel the probe opened (owned by this backend from now on) */
    public DisniBackend(RdmaEventChannel channel) throws IOException {
        this.cm = new DisniCm(channel);
        this.verbs = RdmaVerbs.open();
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

        @Override
        public int completionVectors() {
            try {
                return Math.max(1, context.getNumCompVectors());
            } catch (IOException e) {
                return 1;
            }
        }
    }

    static final class DisniPd implements ProtectionDomain {
        final IbvPd pd;

        DisniPd(IbvPd pd) {
            this.pd = pd;
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

    @Override
    public Features features() {
        return FEATURES;
    }

    // ------------------------------------------------------------------ CM (DisniCm)

    @Override
    public CmId createId() throws IOException {
        return cm.createId();
    }

    @Override
    public void bindAddr(CmId id, InetSocketAddress address) throws IOException {
        cm.bindAddr(id, address);
    }

    @Override
    public void listen(CmId id, int backlog) throws IOException {
        cm.listen(id, backlog);
    }

    @Override
    public void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException {
        cm.resolveAddr(id, destination, timeoutMillis);
    }

    @Override
    public void resolveRoute(CmId id, int timeoutMillis) throws IOException {
        cm.resolveRoute(id, timeoutMillis);
    }

    /** DiSNI 2.0 sets initiator_depth = responder_resources = the device's max_qp_rd_atom itself. */
    @Override
    public void connect(CmId id, CmConnParam parameters) throws IOException {
        cm.connect(id, parameters);
    }

    /** DiSNI 2.0's rdma_accept carries no private data and the device's max_qp_rd_atom as IRD/ORD. */
    @Override
    public void accept(CmId id, CmConnParam parameters) throws IOException {
        cm.accept(id, parameters);
    }

    /** DiSNI 2.0 has no rdma_reject ({@link Features#privateData()} is false: never called). */
    @Override
    public void reject(CmId id, ByteBuffer privateData) throws IOException {
        throw new IOException("rdma_reject: DiSNI 2.0 has none (destroying the identifier rejects the request)");
    }

    @Override
    public int disconnect(CmId id) {
        return cm.disconnect(id);
    }

    @Override
    public void destroyId(CmId id) {
        cm.destroyId(id);
    }

    @Override
    public InetSocketAddress localAddress(CmId id) throws IOException {
        return cm.localAddress(id);
    }

    @Override
    public InetSocketAddress peerAddress(CmId id) throws IOException {
        return cm.peerAddress(id);
    }

    @Override
    public CmEvent nextCmEvent(int timeoutMillis) throws IOException {
        return cm.nextCmEvent(timeoutMillis);
    }

    @Override
    public void close() {
        cm.close();
    }

    // ------------------------------------------------------------------ verbs

    @Override
    public Device device(CmId id) throws IOException {
        IbvContext context = DisniCm.id(id).getVerbs();
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
    public CompletionQueue createCq(Device device, int entries, int pollBatch, int vector) throws IOException {
        return DisniCq.create(verbs, ((DisniDevice) device).context, entries, pollBatch, vector);
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
        IbvQP qp = DisniCm.id(id).createQP(((DisniPd) pd).pd, attr);
        try {
            return new DisniQp(qp, maxRecvWr);
        } catch (IOException e) {
            DisniCm.id(id).destroyQP();
            throw e;
        }
    }

    @Override
    public void destroyQp(CmId id, QueuePair qp) {
        ((DisniQp) qp).free();
        try {
            DisniCm.id(id).destroyQP();
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

    // ------------------------------------------------------------------ posting (DisniQp), completions (DisniCq)

    @Override
    public void postSend(QueuePair qp, SendRequest request) throws IOException {
        ((DisniQp) qp).postSend(request);
    }

    @Override
    public void postRecv(QueuePair qp, long wrId, long address, int length, int localKey) throws IOException {
        ((DisniQp) qp).postRecv(wrId, address, length, localKey);
    }

    @Override
    public int poll(CompletionQueue cq, CompletionBatch batch) throws IOException {
        return ((DisniCq) cq).poll(batch);
    }

    @Override
    public void requestNotify(CompletionQueue cq) throws IOException {
        ((DisniCq) cq).requestNotify();
    }

    @Override
    public boolean awaitCompletionEvent(CompletionQueue cq, int timeoutMillis) throws IOException {
        return ((DisniCq) cq).awaitEvent(verbs, timeoutMillis);
    }

    @Override
    public void destroyCq(CompletionQueue cq) {
        ((DisniCq) cq).destroy(verbs);
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
