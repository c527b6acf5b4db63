package smbdirect.rdma.verbs.internal.disni;

import java.io.IOException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaVerbs;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCReqNotify;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.VerbsBackend.CompletionQueue;
import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * A completion queue over DiSNI with its completion channel: polling through one {@link SVCPollCq}
 * over a reused {@link IbvWC} array, arming through one {@link SVCReqNotify}, waiting for the
 * channel's next event, destroying. Polled, armed and waited on by one thread (the completion
 * group's); allocates nothing on those paths.
 *
 * <p>DiSNI 2.0's poll reads only wr_id, status and opcode of a failed completion (its other
 * {@code IbvWC} fields keep the values of an earlier completion), so this backend reports 0 for the
 * byte length, flags, immediate data and vendor error of failed completions.
 */
final class DisniCq implements CompletionQueue {

    private static final Logger LOG = LoggerFactory.getLogger(DisniBackend.class);

    final IbvCompChannel compChannel;
    final IbvCQ cq;
    final IbvWC[] wcs;
    final SVCPollCq pollCall;
    final SVCReqNotify notifyCall;

    DisniCq(IbvCompChannel compChannel, IbvCQ cq, IbvWC[] wcs, SVCPollCq poll, SVCReqNotify notify) {
        this.compChannel = compChannel;
        this.cq = cq;
        this.wcs = wcs;
        this.pollCall = poll;
        this.notifyCall = notify;
    }

    /** {@code ibv_create_comp_channel}, {@code ibv_create_cq} and the calls its polls and arms reuse. */
    static DisniCq create(RdmaVerbs verbs, IbvContext context, int entries, int pollBatch, int vector)
            throws IOException {
        IbvCompChannel compChannel = verbs.createCompChannel(context);
        IbvCQ cq = verbs.createCQ(context, compChannel, entries, vector);
        IbvWC[] wcs = new IbvWC[pollBatch];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWC();
        }
        SVCPollCq poll = verbs.pollCQ(cq, wcs, pollBatch);
        SVCReqNotify notify = verbs.reqNotifyCQ(cq, false);
        return new DisniCq(compChannel, cq, wcs, poll, notify);
    }

    /** {@code ibv_poll_cq} into the reused array, copied into {@code batch}; the count. */
    int poll(CompletionBatch batch) throws IOException {
        int n = pollCall.execute().getPolls();
        if (n < 0) {
            throw new IOException("ibv_poll_cq returned " + n);
        }
        for (int i = 0; i < n; i++) {
            IbvWC wc = wcs[i];
            if (wc.getStatus() == VerbsConstants.WC_SUCCESS) {
                batch.set(i, wc.getWr_id(), wc.getStatus(), wc.getOpcode(), wc.getVendor_err(), wc.getByte_len(),
                        wc.getImm_data(), wc.getWc_flags(), wc.getQp_num());
            } else {
                batch.set(i, wc.getWr_id(), wc.getStatus(), wc.getOpcode(), 0, 0, 0, 0, 0);
            }
        }
        return n;
    }

    /** {@code ibv_req_notify_cq}. */
    void requestNotify() throws IOException {
        notifyCall.execute();
    }

    /** Waits up to {@code timeoutMillis} for the channel's next event ({@code ibv_get_cq_event}), acknowledging it. */
    boolean awaitEvent(RdmaVerbs verbs, int timeoutMillis) throws IOException {
        boolean event = verbs.getCqEvent(compChannel, cq, timeoutMillis);
        if (event) {
            verbs.ackCqEvents(cq, 1);
        }
        return event;
    }

    /** Frees the reused calls, then {@code ibv_destroy_cq} and {@code ibv_destroy_comp_channel}. */
    void destroy(RdmaVerbs verbs) {
        pollCall.free();
        notifyCall.free();
        try {
            verbs.destroyCQ(cq);
            verbs.destroyCompChannel(compChannel);
        } catch (IOException e) {
            LOG.warn("destroying a completion queue failed: {}", e.getMessage());
        }
    }
}
