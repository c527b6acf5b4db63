package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmEvent;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.WorkRequestType;

/** The verbs/CM numbers the provider uses are DiSNI's, and map onto the SPI enums as specified. */
class StatusMapperTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "IBV_WC_SUCCESS, SUCCESS",
        "IBV_WC_WR_FLUSH_ERR, FLUSHED",
        "IBV_WC_LOC_LEN_ERR, LOCAL_LENGTH_ERROR",
        "IBV_WC_LOC_PROT_ERR, LOCAL_PROTECTION_ERROR",
        "IBV_WC_RNR_RETRY_EXC_ERR, RECEIVER_NOT_READY",
        "IBV_WC_REM_INV_REQ_ERR, REMOTE_INVALID_REQUEST",
        "IBV_WC_REM_ACCESS_ERR, REMOTE_ACCESS_ERROR",
        "IBV_WC_RETRY_EXC_ERR, TRANSPORT_RETRY_EXCEEDED",
        "IBV_WC_LOC_QP_OP_ERR, GENERAL_ERROR",
        "IBV_WC_LOC_ACCESS_ERR, GENERAL_ERROR",
        "IBV_WC_REM_OP_ERR, GENERAL_ERROR",
        "IBV_WC_BAD_RESP_ERR, GENERAL_ERROR",
        "IBV_WC_FATAL_ERR, GENERAL_ERROR",
        "IBV_WC_GENERAL_ERR, GENERAL_ERROR"})
    void everyVerbsStatusMapsToItsSpiStatus(String verbs, CompletionStatus spi) {
        int value = IbvWC.IbvWcStatus.valueOf(verbs).ordinal();
        assertEquals(spi, StatusMapper.completionStatus(value));
        assertEquals(verbs, StatusMapper.wcStatusName(value));
    }

    @Test
    void unknownStatusIsGeneralError() {
        assertEquals(CompletionStatus.GENERAL_ERROR, StatusMapper.completionStatus(999));
        assertEquals("ibv_wc_status 999", StatusMapper.wcStatusName(999));
    }

    @Test
    void statusConstantsAreDisnisOrdinals() {
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal(), VerbsConstants.WC_SUCCESS);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal(), VerbsConstants.WC_WR_FLUSH_ERR);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_LOC_LEN_ERR.ordinal(), VerbsConstants.WC_LOC_LEN_ERR);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_LOC_PROT_ERR.ordinal(), VerbsConstants.WC_LOC_PROT_ERR);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_RNR_RETRY_EXC_ERR.ordinal(), VerbsConstants.WC_RNR_RETRY_EXC_ERR);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_REM_INV_REQ_ERR.ordinal(), VerbsConstants.WC_REM_INV_REQ_ERR);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_REM_ACCESS_ERR.ordinal(), VerbsConstants.WC_REM_ACCESS_ERR);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_RETRY_EXC_ERR.ordinal(), VerbsConstants.WC_RETRY_EXC_ERR);
        assertEquals(IbvWC.IbvWcStatus.IBV_WC_GENERAL_ERR.ordinal(), VerbsConstants.WC_GENERAL_ERR);
    }

    @Test
    void workRequestOpcodesAndFlagsAreDisnis() {
        assertEquals(IbvSendWR.IBV_WR_SEND, VerbsConstants.WR_SEND);
        assertEquals(IbvSendWR.IBV_WR_RDMA_WRITE, VerbsConstants.WR_RDMA_WRITE);
        assertEquals(IbvSendWR.IBV_WR_RDMA_READ, VerbsConstants.WR_RDMA_READ);
        assertEquals(IbvSendWR.IBV_SEND_SIGNALED, VerbsConstants.SEND_SIGNALED);
        assertEquals(IbvMr.IBV_ACCESS_LOCAL_WRITE, VerbsConstants.ACCESS_LOCAL_WRITE);
        assertEquals(IbvMr.IBV_ACCESS_REMOTE_READ, VerbsConstants.ACCESS_REMOTE_READ);
        assertEquals(IbvMr.IBV_ACCESS_REMOTE_WRITE, VerbsConstants.ACCESS_REMOTE_WRITE);
        // rdma-core: IBV_WR_ATOMIC_FETCH_AND_ADD = 6, LOCAL_INV = 7, BIND_MW = 8, SEND_WITH_INV = 9
        assertEquals(6, IbvSendWR.IBV_WR_ATOMIC_FETCH_AND_ADD);
        assertEquals(9, VerbsConstants.WR_SEND_WITH_INV);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"IBV_WC_SEND, SEND", "IBV_WC_RDMA_WRITE, RDMA_WRITE", "IBV_WC_RDMA_READ, RDMA_READ",
        "IBV_WC_RECV, RECEIVE"})
    void completionOpcodesMapToRequestTypes(String verbs, WorkRequestType type) {
        assertEquals(type, StatusMapper.workRequestType(IbvWC.IbvWcOpcode.valueOf(verbs).getOpcode()));
    }

    @Test
    void opcodesTheProviderNeverPostsHaveNoType() {
        assertNull(StatusMapper.workRequestType(IbvWC.IbvWcOpcode.IBV_WC_COMP_SWAP.getOpcode()));
        assertNull(StatusMapper.workRequestType(IbvWC.IbvWcOpcode.IBV_WC_RECV_RDMA_WITH_IMM.getOpcode()));
        assertEquals(WorkRequestType.LOCAL_INVALIDATE, StatusMapper.workRequestType(VerbsConstants.WC_LOCAL_INV));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "RDMA_CM_EVENT_ADDR_ERROR, UNREACHABLE",
        "RDMA_CM_EVENT_ROUTE_ERROR, UNREACHABLE",
        "RDMA_CM_EVENT_UNREACHABLE, UNREACHABLE",
        "RDMA_CM_EVENT_REJECTED, REJECTED",
        "RDMA_CM_EVENT_CONNECT_ERROR, CONNECT_ERROR",
        "RDMA_CM_EVENT_DISCONNECTED, PEER",
        "RDMA_CM_EVENT_DEVICE_REMOVAL, DEVICE_REMOVED"})
    void endingCmEventsMapToDisconnectCauses(String event, DisconnectCause cause) {
        int value = RdmaCmEvent.EventType.valueOf(event).ordinal();
        assertEquals(cause, StatusMapper.disconnectCause(value));
        assertEquals(event, StatusMapper.cmEventName(value));
    }

    @Test
    void progressCmEventsDoNotEndAConnection() {
        for (String event : new String[] {"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ROUTE_RESOLVED",
            "RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_TIMEWAIT_EXIT",
            "RDMA_CM_EVENT_ADDR_CHANGE"}) {
            assertNull(StatusMapper.disconnectCause(RdmaCmEvent.EventType.valueOf(event).ordinal()), event);
        }
    }

    @Test
    void cmEventConstantsAreDisnisOrdinals() {
        assertEquals(RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST.ordinal(),
                VerbsConstants.CM_EVENT_CONNECT_REQUEST);
        assertEquals(RdmaCmEvent.EventType.RDMA_CM_EVENT_ESTABLISHED.ordinal(), VerbsConstants.CM_EVENT_ESTABLISHED);
        assertEquals(RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal(), VerbsConstants.CM_EVENT_DISCONNECTED);
        assertEquals(RdmaCmEvent.EventType.RDMA_CM_EVENT_TIMEWAIT_EXIT.ordinal(),
                VerbsConstants.CM_EVENT_TIMEWAIT_EXIT);
        assertEquals(RdmaCmEvent.EventType.RDMA_CM_EVENT_ADDR_RESOLVED.ordinal(),
                VerbsConstants.CM_EVENT_ADDR_RESOLVED);
        assertEquals(RdmaCmEvent.EventType.RDMA_CM_EVENT_ROUTE_RESOLVED.ordinal(),
                VerbsConstants.CM_EVENT_ROUTE_RESOLVED);
    }

    @Test
    void failedCompletionsEndAsQpErrorExceptRetryExceededWhichIsPeerLost() {
        for (CompletionStatus s : EnumSet.complementOf(EnumSet.of(CompletionStatus.SUCCESS,
                CompletionStatus.TRANSPORT_RETRY_EXCEEDED))) {
            assertEquals(DisconnectCause.QP_ERROR, StatusMapper.causeOfFailedCompletion(s), s.name());
        }
        assertEquals(DisconnectCause.PEER_LOST,
                StatusMapper.causeOfFailedCompletion(CompletionStatus.TRANSPORT_RETRY_EXCEEDED));
    }

    @Test
    void accessFlagsRequireLocalWriteForRemoteWrite() {
        assertEquals(0, StatusMapper.accessFlags(EnumSet.noneOf(MemoryAccess.class)));
        assertEquals(7, StatusMapper.accessFlags(EnumSet.allOf(MemoryAccess.class)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StatusMapper.accessFlags(EnumSet.of(MemoryAccess.REMOTE_WRITE)));
        assertEquals(true, e.getMessage().contains("REMOTE_WRITE requires LOCAL_WRITE"));
    }
}
