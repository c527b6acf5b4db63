package smbdirect.rdma.verbs.internal.disni;

import java.io.IOException;
import java.lang.ref.Reference;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;

import smbdirect.rdma.verbs.internal.VerbsBackend.CmConnParam;
import smbdirect.rdma.verbs.internal.VerbsBackend.CmEvent;
import smbdirect.rdma.verbs.internal.VerbsBackend.CmId;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * The RDMA CM over DiSNI: the event channel the backend owns and its identifiers (each DiSNI
 * {@link RdmaCmId} with its one handle, so that a CM event names the identifier the provider
 * knows), bind, listen, resolve, connect, accept, disconnect, destroy, the addresses, the next CM
 * event, and the channel's destroy. DiSNI 2.0's gaps stay: no private data on accept, no reject, no
 * private data or IRD/ORD in CM events. Thread-safe (DiSNI's natives are; the identifiers' map is
 * synchronized).
 */
final class DisniCm {

    private static final Logger LOG = LoggerFactory.getLogger(DisniBackend.class);

    private final RdmaEventChannel channel;
    private final Map<RdmaCmId, DisniCmId> ids = Collections.synchronizedMap(new IdentityHashMap<>());

    /** @param channel the event channel the probe opened (owned by the backend) */
    DisniCm(RdmaEventChannel channel) {
        this.channel = channel;
    }

    /** A DiSNI identifier as the provider holds it. */
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

    /** The DiSNI identifier behind {@code id}. */
    static RdmaCmId id(CmId id) {
        return ((DisniCmId) id).id;
    }

    CmId createId() throws IOException {
        RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        DisniCmId handle = new DisniCmId(id);
        ids.put(id, handle);
        return handle;
    }

    void bindAddr(CmId id, InetSocketAddress address) throws IOException {
        id(id).bindAddr(address);
    }

    void listen(CmId id, int backlog) throws IOException {
        id(id).listen(backlog);
    }

    void resolveAddr(CmId id, InetSocketAddress destination, int timeoutMillis) throws IOException {
        id(id).resolveAddr(null, destination, timeoutMillis);
    }

    void resolveRoute(CmId id, int timeoutMillis) throws IOException {
        id(id).resolveRoute(timeoutMillis);
    }

    /** DiSNI 2.0 sets initiator_depth = responder_resources = the device's max_qp_rd_atom itself. */
    void connect(CmId id, CmConnParam parameters) throws IOException {
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
    void accept(CmId id, CmConnParam parameters) throws IOException {
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count((byte) parameters.retryCount());
        param.setRnr_retry_count((byte) parameters.rnrRetryCount());
        id(id).accept(param);
    }

    int disconnect(CmId id) {
        try {
            return id(id).disconnect();
        } catch (IOException e) {
            LOG.debug("rdma_disconnect failed: {}", e.getMessage());
            return -1;
        }
    }

    void destroyId(CmId id) {
        RdmaCmId cmId = id(id);
        ids.remove(cmId);
        try {
            cmId.destroyId();
        } catch (IOException e) {
            LOG.warn("rdma_destroy_id failed: {}", e.getMessage());
        }
    }

    InetSocketAddress localAddress(CmId id) throws IOException {
        return inet(id(id).getSource());
    }

    InetSocketAddress peerAddress(CmId id) throws IOException {
        return inet(id(id).getDestination());
    }

    private static InetSocketAddress inet(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }

    /**
     * The next CM event within {@code timeoutMillis}, acknowledged, with its identifiers as the
     * provider knows them (a connection request's new identifier gets its handle here); null when
     * none came.
     */
    CmEvent nextCmEvent(int timeoutMillis) throws IOException {
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

    /** Destroys the event channel (the backend's close). */
    void close() {
        try {
            channel.destroyEventChannel();
        } catch (IOException e) {
            LOG.warn("rdma_destroy_event_channel failed: {}", e.getMessage());
        }
    }
}
