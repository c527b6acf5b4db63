package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static smbdirect.api.rdma.MemoryAccess.LOCAL_WRITE;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.WorkRequestType;

/** Every reason a connection ends with names the operation that failed and the side it failed at. */
class FailureReasonTest {

    @Test
    void aSendWithInvalidateOfABadTokenBlamesThePeersRefusalAndNamesTheToken() throws Exception {
        Harness h = new Harness(Harness.withSendWithInvalidate());
        RecordingHandler handler = new RecordingHandler();
        VerbsEndpoint ep = h.established(handler, 4, 4);
        MemoryRegion region = ep.register(Harness.direct(64), Harness.access(LOCAL_WRITE));
        ep.postSendWithInvalidate(region, 0, 64, 0xdead01, 9L);
        h.backend.completeSend(Harness.qp(ep), VerbsConstants.WC_REM_INV_REQ_ERR, 0, 0, 0);
        h.pump();
        assertEquals(DisconnectCause.QP_ERROR, handler.cause);
        assertEquals("Send with Invalidate of rkey 0xdead01 completed with IBV_WC_REM_INV_REQ_ERR: failed at the "
                + "peer: it refused the request as invalid (the rkey 0xdead01 names nothing it can invalidate (not "
                + "registered there, already invalid, or not of this connection), or its posted receive was shorter "
                + "than the message) (vendor_err 0x0)", handler.detail);
    }

    @Test
    void aPlainSendRefusedAsInvalidSaysThePeersReceiveWasTooShort() {
        String text = StatusMapper.describeFailedCompletion(WorkRequestType.SEND, false, 0,
                VerbsConstants.WC_REM_INV_REQ_ERR, 0x12);
        assertEquals("SEND completed with IBV_WC_REM_INV_REQ_ERR: failed at the peer: it refused the request as invalid "
                + "(its posted receive was shorter than the message) (vendor_err 0x12)", text);
    }

    @Test
    void aReceiveTooShortForTheMessageIsThisSidesFailure() {
        String text = StatusMapper.describeFailedCompletion(WorkRequestType.RECEIVE, false, 0,
                VerbsConstants.WC_LOC_LEN_ERR, 0);
        assertTrue(text.startsWith("RECEIVE completed with IBV_WC_LOC_LEN_ERR: failed at this side: the message that "
                + "arrived was longer than this side's posted receive"), text);
    }

    @Test
    void anRdmaOperationNamesTheTokenItUsed() {
        String text = StatusMapper.describeFailedCompletion(WorkRequestType.RDMA_WRITE, false, 0x4711,
                VerbsConstants.WC_RETRY_EXC_ERR, 0);
        assertTrue(text.startsWith("RDMA_WRITE (rkey 0x4711) completed with IBV_WC_RETRY_EXC_ERR: the peer did not "
                + "acknowledge it"), text);
    }

    @Test
    void everyErrorStatusOfEveryOperationNamesASide() {
        for (WorkRequestType type : WorkRequestType.values()) {
            for (int status = 1; status <= 21; status++) {
                if (status == VerbsConstants.WC_WR_FLUSH_ERR) {
                    continue;
                }
                String text = StatusMapper.describeFailedCompletion(type, false, 1, status, 0);
                assertTrue(text.startsWith(type.name()), text);
                assertTrue(text.contains("this side") || text.contains("the peer"), text);
            }
        }
    }

    @Test
    void theCmEventsThatEndAConnectionNameThePhaseAndTheSide() {
        assertEquals("RDMA_CM_EVENT_ROUTE_ERROR (status -110: -errno): route resolution to the peer failed at this side",
                StatusMapper.describeCmEvent(VerbsConstants.CM_EVENT_ROUTE_ERROR, -110,
                        smbdirect.api.rdma.TransportType.IWARP));
        assertTrue(StatusMapper.describeCmEvent(VerbsConstants.CM_EVENT_REJECTED, 28,
                smbdirect.api.rdma.TransportType.ROCE).endsWith(": the connect was refused at the peer"));
        assertFalse(StatusMapper.describeCmEvent(VerbsConstants.CM_EVENT_ESTABLISHED, 0,
                smbdirect.api.rdma.TransportType.ROCE).contains(":"));
    }
}
