package smbdirect.rdma.verbs.internal;

import java.util.List;
import java.util.Set;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.TransportType;
import smbdirect.api.rdma.WorkRequestType;

/** Translations between verbs / RDMA CM numbers and the SPI's enums. Stateless. */
public final class StatusMapper {

    private static final List<String> WC_STATUS_NAMES = List.of(
        "IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
        "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
        "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR", "IBV_WC_REM_OP_ERR",
        "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR",
        "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR", "IBV_WC_INV_EECN_ERR",
        "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR", "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR");

    private static final List<String> CM_EVENT_NAMES = List.of(
        "RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_RESOLVED",
        "RDMA_CM_EVENT_ROUTE_ERROR", "RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
        "RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE", "RDMA_CM_EVENT_REJECTED",
        "RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
        "RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR", "RDMA_CM_EVENT_ADDR_CHANGE",
        "RDMA_CM_EVENT_TIMEWAIT_EXIT");

    private static final List<String> ASYNC_EVENT_NAMES = List.of(
        "IBV_EVENT_CQ_ERR", "IBV_EVENT_QP_FATAL", "IBV_EVENT_QP_REQ_ERR", "IBV_EVENT_QP_ACCESS_ERR",
        "IBV_EVENT_COMM_EST", "IBV_EVENT_SQ_DRAINED", "IBV_EVENT_PATH_MIG", "IBV_EVENT_PATH_MIG_ERR",
        "IBV_EVENT_DEVICE_FATAL", "IBV_EVENT_PORT_ACTIVE", "IBV_EVENT_PORT_ERR", "IBV_EVENT_LID_CHANGE",
        "IBV_EVENT_PKEY_CHANGE", "IBV_EVENT_SM_CHANGE", "IBV_EVENT_SRQ_ERR", "IBV_EVENT_SRQ_LIMIT_REACHED",
        "IBV_EVENT_QP_LAST_WQE_REACHED", "IBV_EVENT_CLIENT_REREGISTER", "IBV_EVENT_GID_CHANGE",
        "IBV_EVENT_WQ_FATAL");

    private StatusMapper() {
    }

    /**
     * The {@code wc_flags} bit Linux rxe sets on a receive that invalidated an rkey: the kernel's
     * {@code IB_WC_WITH_INVALIDATE} (1 << 2), which rxe writes into the completion user space reads
     * (rxe_resp.c, do_complete, 6.1) and rdma-core's librxe copies unchanged; in {@code ibv_wc_flags}
     * that bit is {@code IBV_WC_IP_CSUM_OK}, meaningless on a reliable-connected receive, and
     * {@code IBV_WC_WITH_INV} is 1 << 3. The invalidated rkey is where user space expects it.
     */
    static final int RXE_KERNEL_WITH_INVALIDATE = 1 << 2;

    /**
     * The {@code wc_flags} bits that mean "this receive invalidated {@code invalidated_rkey}" on
     * {@code device}: {@code IBV_WC_WITH_INV}, and on Linux rxe also the kernel's flag it reports
     * instead ({@link #RXE_KERNEL_WITH_INVALIDATE}).
     */
    public static int withInvalidateFlags(DeviceAttributes device) {
        return device != null && device.vendorId() == DeviceAttributes.VENDOR_RXE
                ? VerbsConstants.WC_WITH_INV | RXE_KERNEL_WITH_INVALIDATE : VerbsConstants.WC_WITH_INV;
    }

    /** The verbs name of an asynchronous event type ({@code IBV_EVENT_...}), or the number when unknown. */
    public static String asyncEventName(int type) {
        return type >= 0 && type < ASYNC_EVENT_NAMES.size() ? ASYNC_EVENT_NAMES.get(type) : "ibv_event_type " + type;
    }

    /**
     * Whether an asynchronous event of a queue pair means the queue pair is in the error state (its
     * connection is over): QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR.
     */
    public static boolean breaksQueuePair(int type) {
        return type == VerbsConstants.EVENT_QP_FATAL || type == VerbsConstants.EVENT_QP_REQ_ERR
                || type == VerbsConstants.EVENT_QP_ACCESS_ERR;
    }

    /**
     * An asynchronous event of a queue pair in words, as the disconnect detail of the connection it
     * ends ({@code IBV_EVENT_QP_ACCESS_ERR: ...}).
     */
    public static String describeQueuePairEvent(int type) {
        String meaning = switch (type) {
            case VerbsConstants.EVENT_QP_FATAL ->
                "the device put the queue pair in the error state (a transport error it could not report in a "
                        + "completion, or on iWARP the peer's Terminate)";
            case VerbsConstants.EVENT_QP_REQ_ERR ->
                "the peer sent a request the queue pair could not execute (invalid request; on iWARP a Read "
                        + "Request whose source the device refused to send)";
            case VerbsConstants.EVENT_QP_ACCESS_ERR ->
                "the peer's RDMA request broke a registration's token, access rights or bounds (remote access "
                        + "error at this side)";
            case VerbsConstants.EVENT_PATH_MIG_ERR -> "path migration to the alternate path failed";
            default -> "";
        };
        return asyncEventName(type) + (meaning.isEmpty() ? "" : ": " + meaning);
    }

    /** {@code ibv_wc_status} to the SPI status. */
    public static CompletionStatus completionStatus(int wcStatus) {
        switch (wcStatus) {
            case VerbsConstants.WC_SUCCESS:
                return CompletionStatus.SUCCESS;
            case VerbsConstants.WC_WR_FLUSH_ERR:
                return CompletionStatus.FLUSHED;
            case VerbsConstants.WC_LOC_LEN_ERR:
                return CompletionStatus.LOCAL_LENGTH_ERROR;
            case VerbsConstants.WC_LOC_PROT_ERR:
                return CompletionStatus.LOCAL_PROTECTION_ERROR;
            case VerbsConstants.WC_RNR_RETRY_EXC_ERR:
                return CompletionStatus.RECEIVER_NOT_READY;
            case VerbsConstants.WC_REM_INV_REQ_ERR:
                return CompletionStatus.REMOTE_INVALID_REQUEST;
            case VerbsConstants.WC_REM_ACCESS_ERR:
                return CompletionStatus.REMOTE_ACCESS_ERROR;
            case VerbsConstants.WC_RETRY_EXC_ERR:
                return CompletionStatus.TRANSPORT_RETRY_EXCEEDED;
            default:
                return CompletionStatus.GENERAL_ERROR;
        }
    }

    /**
     * A failed work request in words, as the disconnect detail of the connection it ends: the
     * operation, the verbs status, which side failed and why as far as the status tells
     * ({@code SEND completed with IBV_WC_REM_INV_REQ_ERR: the peer refused it as invalid: ...}).
     *
     * @param operation the request as posted ({@code SEND}, {@code Send with Invalidate of rkey 0x..}, ...)
     * @param type the request's type
     * @param invalidates a Send with Invalidate
     * @param token the rkey an RDMA Read or Write named, or the one a Send with Invalidate named
     */
    public static String describeFailedCompletion(WorkRequestType type, boolean invalidates, int token, int wcStatus,
            int vendorError) {
        String rkey = "rkey 0x" + Integer.toHexString(token);
        String operation = invalidates ? "Send with Invalidate of " + rkey : type.name();
        boolean rdma = type == WorkRequestType.RDMA_READ || type == WorkRequestType.RDMA_WRITE;
        String why = switch (wcStatus) {
            case VerbsConstants.WC_LOC_LEN_ERR -> type == WorkRequestType.RECEIVE
                    ? "failed at this side: the message that arrived was longer than this side's posted receive"
                    : "failed at this side: the request's length is invalid for this side's device";
            case VerbsConstants.WC_LOC_QP_OP_ERR -> type == WorkRequestType.RECEIVE
                    ? "failed at this side: its queue pair could not take the message (rxe: the message that arrived "
                            + "was longer than this side's posted receive)"
                    : "failed at this side: its queue pair could not execute the request";
            case VerbsConstants.WC_LOC_PROT_ERR -> "failed at this side: the local buffer is no valid registration of "
                    + "this connection for that range";
            case VerbsConstants.WC_MW_BIND_ERR -> "failed at this side: the device refused the memory window bind";
            case VerbsConstants.WC_BAD_RESP_ERR -> "failed at the peer: it sent an unexpected transport response";
            case VerbsConstants.WC_LOC_ACCESS_ERR -> "failed at this side: a peer's request broke the token, access "
                    + "rights or bounds of a registration of this side";
            case VerbsConstants.WC_REM_INV_REQ_ERR -> "failed at the peer: it refused the request as invalid ("
                    + (invalidates ? "the " + rkey + " names nothing it can invalidate (not registered there, already "
                            + "invalid, or not of this connection), or its posted receive was shorter than the message"
                            : rdma ? "its queue pair does not allow the operation, or the length exceeds what it "
                                    + "accepts" : "its posted receive was shorter than the message") + ")";
            case VerbsConstants.WC_REM_ACCESS_ERR -> "failed at the peer: it refused the access to its " + rkey + " (not "
                    + "registered there or no longer valid, the range outside the registration, or no remote "
                    + (type == WorkRequestType.RDMA_READ ? "read" : "write") + " access)";
            case VerbsConstants.WC_REM_OP_ERR -> "failed at the peer: it could not execute the request (rxe: its posted "
                    + "receive was shorter than the message)";
            case VerbsConstants.WC_RETRY_EXC_ERR -> "the peer did not acknowledge it: transport retries exhausted (the "
                    + "peer or the path to it is gone)";
            case VerbsConstants.WC_RNR_RETRY_EXC_ERR -> "failed at the peer: it had no receive posted (receiver not "
                    + "ready)";
            case VerbsConstants.WC_REM_ABORT_ERR -> "failed at the peer: it aborted the request";
            case VerbsConstants.WC_FATAL_ERR -> "failed at this side: its device reported a fatal error";
            case VerbsConstants.WC_RESP_TIMEOUT_ERR -> "the peer's response did not come in time";
            default -> "failed at this side: its device reported " + wcStatusName(wcStatus);
        };
        String target = rdma && wcStatus != VerbsConstants.WC_REM_ACCESS_ERR ? " (" + rkey + ")" : "";
        return operation + target + " completed with " + wcStatusName(wcStatus) + ": " + why + " (vendor_err 0x"
                + Integer.toHexString(vendorError) + ")";
    }

    /**
     * The IRD in effect from what {@code ibv_query_qp} reported: {@code max_dest_rd_atomic}, except on
     * Linux siw, whose {@code siw_query_qp} reports its inbound read queue (the IRD) as
     * {@code max_rd_atomic} and its outbound one as {@code max_dest_rd_atomic}.
     */
    public static int inboundReadDepth(VerbsBackend.QueuePairReadDepths depths, DeviceAttributes device) {
        return swapsReadDepths(device) ? depths.maxRdAtomic() : depths.maxDestRdAtomic();
    }

    /** The ORD in effect from what {@code ibv_query_qp} reported (see {@link #inboundReadDepth}). */
    public static int outboundReadDepth(VerbsBackend.QueuePairReadDepths depths, DeviceAttributes device) {
        return swapsReadDepths(device) ? depths.maxDestRdAtomic() : depths.maxRdAtomic();
    }

    private static boolean swapsReadDepths(DeviceAttributes device) {
        return device != null && device.vendorId() == DeviceAttributes.VENDOR_SIW;
    }

    /** The verbs name of a status ({@code IBV_WC_...}), or the number when unknown. */
    public static String wcStatusName(int wcStatus) {
        return wcStatus >= 0 && wcStatus < WC_STATUS_NAMES.size() ? WC_STATUS_NAMES.get(wcStatus)
                : "ibv_wc_status " + wcStatus;
    }

    /**
     * {@code ibv_wc_opcode} of a successful completion to the SPI type; {@code null} for opcodes the
     * provider never posts. (The opcode of a failed completion is undefined in verbs: the provider
     * takes the type of a failed completion from its own record of the posted request.)
     */
    public static WorkRequestType workRequestType(int wcOpcode) {
        switch (wcOpcode) {
            case VerbsConstants.WC_SEND:
                return WorkRequestType.SEND;
            case VerbsConstants.WC_RDMA_WRITE:
                return WorkRequestType.RDMA_WRITE;
            case VerbsConstants.WC_RDMA_READ:
                return WorkRequestType.RDMA_READ;
            case VerbsConstants.WC_LOCAL_INV:
                return WorkRequestType.LOCAL_INVALIDATE;
            case VerbsConstants.WC_RECV:
                return WorkRequestType.RECEIVE;
            default:
                return null;
        }
    }

    /** How a connection ends when a work request fails with {@code status} (not SUCCESS). */
    public static DisconnectCause causeOfFailedCompletion(CompletionStatus status) {
        return status == CompletionStatus.TRANSPORT_RETRY_EXCEEDED ? DisconnectCause.PEER_LOST
                : DisconnectCause.QP_ERROR;
    }

    /**
     * The SPI cause of a CM event that ends (or prevents) a connection; {@code null} for events
     * that do not end it.
     */
    public static DisconnectCause disconnectCause(int cmEvent) {
        switch (cmEvent) {
            case VerbsConstants.CM_EVENT_ADDR_ERROR:
            case VerbsConstants.CM_EVENT_ROUTE_ERROR:
            case VerbsConstants.CM_EVENT_UNREACHABLE:
                return DisconnectCause.UNREACHABLE;
            case VerbsConstants.CM_EVENT_REJECTED:
                return DisconnectCause.REJECTED;
            case VerbsConstants.CM_EVENT_CONNECT_ERROR:
                return DisconnectCause.CONNECT_ERROR;
            case VerbsConstants.CM_EVENT_DISCONNECTED:
                return DisconnectCause.PEER;
            case VerbsConstants.CM_EVENT_DEVICE_REMOVAL:
                return DisconnectCause.DEVICE_REMOVED;
            default:
                return null;
        }
    }

    /**
     * The SPI cause of a CM event with its status, on {@code transport}: a REJECTED whose InfiniBand
     * CM reject reason is "invalid service ID" (InfiniBand and RoCE: no listener on the port) is
     * UNREACHABLE; iWARP reports a missing listener and a consumer's reject alike, so a REJECTED
     * stays REJECTED there.
     */
    public static DisconnectCause disconnectCause(int cmEvent, int status, TransportType transport) {
        if (cmEvent == VerbsConstants.CM_EVENT_REJECTED && transport != TransportType.IWARP
                && status == VerbsConstants.IB_CM_REJ_INVALID_SERVICE_ID) {
            return DisconnectCause.UNREACHABLE;
        }
        return disconnectCause(cmEvent);
    }

    /** The CM event's name with its status in words where it has one ("RDMA_CM_EVENT_REJECTED (status 28: consumer reject)"). */
    public static String describeCmEvent(int cmEvent, int status, TransportType transport) {
        if (status == 0) {
            return cmEventName(cmEvent) + whatFailed(cmEvent);
        }
        String meaning = "";
        if (cmEvent == VerbsConstants.CM_EVENT_REJECTED && transport != TransportType.IWARP) {
            if (status == VerbsConstants.IB_CM_REJ_INVALID_SERVICE_ID) {
                meaning = ": invalid service ID, no listener on the port";
            } else if (status == VerbsConstants.IB_CM_REJ_CONSUMER_DEFINED) {
                meaning = ": rejected by the peer";
            } else {
                meaning = ": InfiniBand CM reject reason";
            }
        } else if (status < 0) {
            meaning = ": -errno";
        }
        return cmEventName(cmEvent) + " (status " + status + meaning + ")" + whatFailed(cmEvent);
    }

    /** Which side and which phase a CM event that ends a connection names ("" for the others). */
    private static String whatFailed(int cmEvent) {
        return switch (cmEvent) {
            case VerbsConstants.CM_EVENT_ADDR_ERROR -> ": address resolution of the peer failed at this side";
            case VerbsConstants.CM_EVENT_ROUTE_ERROR -> ": route resolution to the peer failed at this side";
            case VerbsConstants.CM_EVENT_UNREACHABLE -> ": the connect got no answer (the peer is unreachable)";
            case VerbsConstants.CM_EVENT_CONNECT_ERROR -> ": the connect failed while it was being established";
            case VerbsConstants.CM_EVENT_REJECTED -> ": the connect was refused at the peer";
            case VerbsConstants.CM_EVENT_DISCONNECTED -> ": the peer ended the connection (or the transport lost it)";
            case VerbsConstants.CM_EVENT_DEVICE_REMOVAL -> ": this side's RDMA device was removed";
            default -> "";
        };
    }

    /** The librdmacm name of a CM event type. */
    public static String cmEventName(int cmEvent) {
        return cmEvent >= 0 && cmEvent < CM_EVENT_NAMES.size() ? CM_EVENT_NAMES.get(cmEvent)
                : "rdma_cm_event_type " + cmEvent;
    }

    /**
     * SPI access rights to {@code ibv_access_flags}.
     *
     * @throws IllegalArgumentException for REMOTE_WRITE without LOCAL_WRITE, which verbs rejects
     */
    public static int accessFlags(Set<MemoryAccess> access) {
        int flags = 0;
        if (access.contains(MemoryAccess.LOCAL_WRITE)) {
            flags |= VerbsConstants.ACCESS_LOCAL_WRITE;
        }
        if (access.contains(MemoryAccess.REMOTE_READ)) {
            flags |= VerbsConstants.ACCESS_REMOTE_READ;
        }
        if (access.contains(MemoryAccess.REMOTE_WRITE)) {
            if (!access.contains(MemoryAccess.LOCAL_WRITE)) {
                throw new IllegalArgumentException(
                        "access " + access + ": REMOTE_WRITE requires LOCAL_WRITE (ibv_reg_mr rejects it otherwise)");
            }
            flags |= VerbsConstants.ACCESS_REMOTE_WRITE;
        }
        return flags;
    }
}
