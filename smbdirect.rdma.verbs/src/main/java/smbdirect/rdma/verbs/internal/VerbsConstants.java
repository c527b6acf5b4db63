package smbdirect.rdma.verbs.internal;

/**
 * The libibverbs / librdmacm numbers the provider writes into and reads from the backend (DiSNI
 * passes them to the native structures unchanged, the rdma-core backend writes them there). Each
 * value is checked against DiSNI's own constants by the tests where DiSNI names it, and every one
 * named after rdma-core against rdma-core's headers by the rdma-core backend's layout test (a C
 * probe compiled against libibverbs-dev and librdmacm-dev).
 */
public final class VerbsConstants {

    private VerbsConstants() {
    }

    // enum ibv_wr_opcode
    public static final int WR_RDMA_WRITE = 0;
    public static final int WR_SEND = 2;
    public static final int WR_RDMA_READ = 4;
    /** IBV_WR_BIND_MW (rdma-core verbs.h): binds a type 2 memory window through the send queue. */
    public static final int WR_BIND_MW = 8;
    /** IBV_WR_SEND_WITH_INV (rdma-core verbs.h); not named by DiSNI 2.0, which passes the int through. */
    public static final int WR_SEND_WITH_INV = 9;

    // enum ibv_send_flags
    public static final int SEND_SIGNALED = 1 << 1;

    // enum ibv_access_flags
    public static final int ACCESS_LOCAL_WRITE = 1;
    public static final int ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int ACCESS_REMOTE_READ = 1 << 2;
    /** IBV_ACCESS_MW_BIND: memory windows may be bound to the registration. */
    public static final int ACCESS_MW_BIND = 1 << 4;

    // enum ibv_mw_type
    /** IBV_MW_TYPE_2: a window bound by a work request on one queue pair (and usable through it only). */
    public static final int MW_TYPE_2 = 2;

    // enum ibv_device_cap_flags (ibv_device_attr.device_cap_flags)
    public static final int DEVICE_MEM_WINDOW = 1 << 17;
    /** Local invalidate, Send with Invalidate, fast registration. */
    public static final int DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
    public static final int DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    public static final int DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;

    // enum ibv_wc_status
    public static final int WC_SUCCESS = 0;
    public static final int WC_LOC_LEN_ERR = 1;
    public static final int WC_LOC_QP_OP_ERR = 2;
    public static final int WC_LOC_PROT_ERR = 4;
    public static final int WC_WR_FLUSH_ERR = 5;
    public static final int WC_MW_BIND_ERR = 6;
    public static final int WC_BAD_RESP_ERR = 7;
    public static final int WC_LOC_ACCESS_ERR = 8;
    public static final int WC_REM_INV_REQ_ERR = 9;
    public static final int WC_REM_ACCESS_ERR = 10;
    public static final int WC_REM_OP_ERR = 11;
    public static final int WC_RETRY_EXC_ERR = 12;
    public static final int WC_RNR_RETRY_EXC_ERR = 13;
    public static final int WC_REM_ABORT_ERR = 16;
    public static final int WC_FATAL_ERR = 19;
    public static final int WC_RESP_TIMEOUT_ERR = 20;
    public static final int WC_GENERAL_ERR = 21;

    // enum ibv_wc_opcode
    public static final int WC_SEND = 0;
    public static final int WC_RDMA_WRITE = 1;
    public static final int WC_RDMA_READ = 2;
    public static final int WC_BIND_MW = 5;
    /** IBV_WC_LOCAL_INV (rdma-core); not named by DiSNI 2.0. */
    public static final int WC_LOCAL_INV = 6;
    public static final int WC_RECV = 128;

    // enum ibv_wc_flags
    /** IBV_WC_WITH_INV: the receive invalidated {@code invalidated_rkey} (union with imm_data). */
    public static final int WC_WITH_INV = 1 << 3;

    // enum ibv_event_type (struct ibv_async_event)
    public static final int EVENT_CQ_ERR = 0;
    public static final int EVENT_QP_FATAL = 1;
    public static final int EVENT_QP_REQ_ERR = 2;
    public static final int EVENT_QP_ACCESS_ERR = 3;
    public static final int EVENT_COMM_EST = 4;
    public static final int EVENT_SQ_DRAINED = 5;
    public static final int EVENT_PATH_MIG = 6;
    public static final int EVENT_PATH_MIG_ERR = 7;
    public static final int EVENT_DEVICE_FATAL = 8;
    public static final int EVENT_PORT_ACTIVE = 9;
    public static final int EVENT_PORT_ERR = 10;
    public static final int EVENT_LID_CHANGE = 11;
    public static final int EVENT_PKEY_CHANGE = 12;
    public static final int EVENT_SM_CHANGE = 13;
    public static final int EVENT_SRQ_ERR = 14;
    public static final int EVENT_SRQ_LIMIT_REACHED = 15;
    public static final int EVENT_QP_LAST_WQE_REACHED = 16;
    public static final int EVENT_CLIENT_REREGISTER = 17;
    public static final int EVENT_GID_CHANGE = 18;
    public static final int EVENT_WQ_FATAL = 19;

    // enum rdma_cm_event_type
    public static final int CM_EVENT_ADDR_RESOLVED = 0;
    public static final int CM_EVENT_ADDR_ERROR = 1;
    public static final int CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int CM_EVENT_ROUTE_ERROR = 3;
    public static final int CM_EVENT_CONNECT_REQUEST = 4;
    public static final int CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int CM_EVENT_CONNECT_ERROR = 6;
    public static final int CM_EVENT_UNREACHABLE = 7;
    public static final int CM_EVENT_REJECTED = 8;
    public static final int CM_EVENT_ESTABLISHED = 9;
    public static final int CM_EVENT_DISCONNECTED = 10;
    public static final int CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int CM_EVENT_ADDR_CHANGE = 14;
    public static final int CM_EVENT_TIMEWAIT_EXIT = 15;

    // the InfiniBand CM's REJ reasons (InfiniBand Architecture Specification, CM chapter; the kernel's
    // enum ib_cm_rej_reason, not in rdma-core's headers): the status of a REJECTED event on IB and RoCE
    /** IB_CM_REJ_INVALID_SERVICE_ID: no listener on the port. */
    public static final int IB_CM_REJ_INVALID_SERVICE_ID = 8;
    /** IB_CM_REJ_CONSUMER_DEFINED: {@code rdma_reject} by the peer. */
    public static final int IB_CM_REJ_CONSUMER_DEFINED = 28;

    /** Private data of an InfiniBand CM REQ (rdma_cm connect on IB, the smallest transport limit). */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Private data of an InfiniBand CM REP (rdma_accept on IB, the smallest transport limit). */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Private data of an InfiniBand CM REJ (rdma_reject on IB, the smallest transport limit). */
    public static final int MAX_REJECT_PRIVATE_DATA = 148;

    /** The JNI interface version of libdisni that matches the DiSNI 2.0 jar. */
    public static final int DISNI_JNI_VERSION = 32;
}
