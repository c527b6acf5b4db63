package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * rdma-core's ABI as the rdma-core backend uses it on x86-64 Linux with glibc (on any other platform
 * the backend is refused before it loads: {@code NativePlatform}): the C structs of
 * {@code <infiniband/verbs.h>}, {@code <rdma/rdma_cma.h>} and the libc ones the backend touches,
 * laid out with C's rules (each member at its natural alignment, the struct padded to its largest),
 * and the constants by their C names. A member named with a leading {@code $} stands for an
 * anonymous C union (its members are named in C without it); a member the backend never touches
 * but must skip is a named byte array of its C size. RdmaAbiLayoutTest compiles a C probe against
 * Debian's libibverbs-dev and librdmacm-dev and checks every size, every named member's offset and
 * every constant here against it. Stateless.
 */
final class Abi {

    private Abi() {
    }

    /** Every struct the backend lays out, by C name (the layout test walks them all). */
    static final Map<String, GroupLayout> STRUCTS = new LinkedHashMap<>();

    // ------------------------------------------------------------------ layout building

    /** A C struct: members at their natural alignment, padded at the end to the largest alignment. */
    static StructLayout struct(String name, MemoryLayout... members) {
        List<MemoryLayout> laid = new ArrayList<>();
        long offset = 0;
        long align = 1;
        for (MemoryLayout m : members) {
            long a = m.byteAlignment();
            align = Math.max(align, a);
            long pad = (a - offset % a) % a;
            if (pad > 0) {
                laid.add(MemoryLayout.paddingLayout(pad));
                offset += pad;
            }
            laid.add(m);
            offset += m.byteSize();
        }
        long tail = (align - offset % align) % align;
        if (tail > 0) {
            laid.add(MemoryLayout.paddingLayout(tail));
        }
        StructLayout s = MemoryLayout.structLayout(laid.toArray(MemoryLayout[]::new));
        return name == null ? s : register(name, s.withName(name));
    }

    /** A C union, padded to a multiple of its alignment. */
    static UnionLayout union(String name, MemoryLayout... members) {
        long size = 0;
        long align = 1;
        for (MemoryLayout m : members) {
            size = Math.max(size, m.byteSize());
            align = Math.max(align, m.byteAlignment());
        }
        List<MemoryLayout> all = new ArrayList<>(List.of(members));
        if (size % align != 0) {
            all.add(MemoryLayout.paddingLayout(size + (align - size % align) - size));
        }
        UnionLayout u = MemoryLayout.unionLayout(all.toArray(MemoryLayout[]::new));
        return name == null ? u : u.withName(name);
    }

    /** Bytes the backend does not interpret, with the alignment of the C type they stand for. */
    static MemoryLayout opaque(String name, long size, long alignment) {
        return MemoryLayout.sequenceLayout(size, JAVA_BYTE).withByteAlignment(alignment).withName(name);
    }

    private static <T extends GroupLayout> T register(String name, T layout) {
        STRUCTS.put(name, layout);
        return layout;
    }

    static MemoryLayout i32(String name) {
        return JAVA_INT.withName(name);
    }

    static MemoryLayout u16(String name) {
        return JAVA_SHORT.withName(name);
    }

    static MemoryLayout u8(String name) {
        return JAVA_BYTE.withName(name);
    }

    static MemoryLayout i64(String name) {
        return JAVA_LONG.withName(name);
    }

    static MemoryLayout ptr(String name) {
        return ADDRESS.withName(name);
    }

    static long offset(GroupLayout layout, String path) {
        String[] parts = path.split("\\.");
        PathElement[] elements = new PathElement[parts.length];
        for (int i = 0; i < parts.length; i++) {
            elements[i] = groupElement(parts[i]);
        }
        return layout.byteOffset(elements);
    }

    // ------------------------------------------------------------------ <infiniband/verbs.h>

    static final int IBV_SYSFS_NAME_MAX = 64;
    static final int IBV_SYSFS_PATH_MAX = 256;

    static final StructLayout IBV_DEVICE = struct("ibv_device",
            opaque("_ops", 16, 8), i32("node_type"), i32("transport_type"),
            opaque("name", IBV_SYSFS_NAME_MAX, 1), opaque("dev_name", IBV_SYSFS_NAME_MAX, 1),
            opaque("dev_path", IBV_SYSFS_PATH_MAX, 1), opaque("ibdev_path", IBV_SYSFS_PATH_MAX, 1));

    static final StructLayout IBV_CONTEXT_OPS = struct("ibv_context_ops",
            ptr("_compat_query_device"), ptr("_compat_query_port"), ptr("_compat_alloc_pd"),
            ptr("_compat_dealloc_pd"), ptr("_compat_reg_mr"), ptr("_compat_rereg_mr"), ptr("_compat_dereg_mr"),
            ptr("alloc_mw"), ptr("bind_mw"), ptr("dealloc_mw"), ptr("_compat_create_cq"), ptr("poll_cq"),
            ptr("req_notify_cq"), ptr("_compat_cq_event"), ptr("_compat_resize_cq"), ptr("_compat_destroy_cq"),
            ptr("_compat_create_srq"), ptr("_compat_modify_srq"), ptr("_compat_query_srq"),
            ptr("_compat_destroy_srq"), ptr("post_srq_recv"), ptr("_compat_create_qp"), ptr("_compat_query_qp"),
            ptr("_compat_modify_qp"), ptr("_compat_destroy_qp"), ptr("post_send"), ptr("post_recv"),
            ptr("_compat_create_ah"), ptr("_compat_destroy_ah"), ptr("_compat_attach_mcast"),
            ptr("_compat_detach_mcast"), ptr("_compat_async_event"));

    /** pthread_mutex_t and pthread_cond_t on x86-64 glibc. */
    static final long PTHREAD_MUTEX_SIZE = 40;
    static final long PTHREAD_COND_SIZE = 48;

    static final StructLayout IBV_CONTEXT = struct("ibv_context",
            ptr("device"), IBV_CONTEXT_OPS.withName("ops"), i32("cmd_fd"), i32("async_fd"), i32("num_comp_vectors"),
            opaque("mutex", PTHREAD_MUTEX_SIZE, 8), ptr("abi_compat"));

    /**
     * struct verbs_context: the extended ops live before the ibv_context the application sees
     * ({@code verbs_get_ctx}); the backend uses only {@code query_port}, {@code sz} and where
     * {@code context} starts, so the ops between are one opaque block.
     */
    static final StructLayout VERBS_CONTEXT = struct("verbs_context",
            ptr("query_port"), opaque("$ops", 304, 8), i64("sz"), IBV_CONTEXT.withName("context"));

    static final StructLayout IBV_DEVICE_ATTR = struct("ibv_device_attr",
            opaque("fw_ver", 64, 1), i64("node_guid"), i64("sys_image_guid"), i64("max_mr_size"), i64("page_size_cap"),
            i32("vendor_id"), i32("vendor_part_id"), i32("hw_ver"), i32("max_qp"), i32("max_qp_wr"),
            i32("device_cap_flags"), i32("max_sge"), i32("max_sge_rd"), i32("max_cq"), i32("max_cqe"), i32("max_mr"),
            i32("max_pd"), i32("max_qp_rd_atom"), i32("max_ee_rd_atom"), i32("max_res_rd_atom"),
            i32("max_qp_init_rd_atom"), i32("max_ee_init_rd_atom"), i32("atomic_cap"), i32("max_ee"), i32("max_rdd"),
            i32("max_mw"), i32("max_raw_ipv6_qp"), i32("max_raw_ethy_qp"), i32("max_mcast_grp"),
            i32("max_mcast_qp_attach"), i32("max_total_mcast_qp_attach"), i32("max_ah"), i32("max_fmr"),
            i32("max_map_per_fmr"), i32("max_srq"), i32("max_srq_wr"), i32("max_srq_sge"), u16("max_pkeys"),
            u8("local_ca_ack_delay"), u8("phys_port_cnt"));

    static final StructLayout IBV_PORT_ATTR = struct("ibv_port_attr",
            i32("state"), i32("max_mtu"), i32("active_mtu"), i32("gid_tbl_len"), i32("port_cap_flags"),
            i32("max_msg_sz"), i32("bad_pkey_cntr"), i32("qkey_viol_cntr"), u16("pkey_tbl_len"), u16("lid"),
            u16("sm_lid"), u8("lmc"), u8("max_vl_num"), u8("sm_sl"), u8("subnet_timeout"), u8("init_type_reply"),
            u8("active_width"), u8("active_speed"), u8("phys_state"), u8("link_layer"), u8("flags"),
            u16("port_cap_flags2"));

    static final StructLayout IBV_PD = struct("ibv_pd", ptr("context"), i32("handle"));

    static final StructLayout IBV_MR = struct("ibv_mr",
            ptr("context"), ptr("pd"), ptr("addr"), i64("length"), i32("handle"), i32("lkey"), i32("rkey"));

    static final StructLayout IBV_MW = struct("ibv_mw",
            ptr("context"), ptr("pd"), i32("rkey"), i32("handle"), i32("type"));

    /** struct ibv_async_event: the element union (a CQ, QP, SRQ or WQ pointer, or the port number), the type. */
    static final StructLayout IBV_ASYNC_EVENT = struct("ibv_async_event",
            union("element", ptr("cq"), ptr("qp"), ptr("srq"), ptr("wq"), i32("port_num")), i32("event_type"));

    static final StructLayout IBV_COMP_CHANNEL = struct("ibv_comp_channel", ptr("context"), i32("fd"), i32("refcnt"));

    static final StructLayout IBV_CQ = struct("ibv_cq",
            ptr("context"), ptr("channel"), ptr("cq_context"), i32("handle"), i32("cqe"),
            opaque("mutex", PTHREAD_MUTEX_SIZE, 8), opaque("cond", PTHREAD_COND_SIZE, 8), i32("comp_events_completed"),
            i32("async_events_completed"));

    static final StructLayout IBV_QP = struct("ibv_qp",
            ptr("context"), ptr("qp_context"), ptr("pd"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), i32("handle"),
            i32("qp_num"), i32("state"), i32("qp_type"), opaque("mutex", PTHREAD_MUTEX_SIZE, 8),
            opaque("cond", PTHREAD_COND_SIZE, 8), i32("events_completed"));

    static final StructLayout IBV_QP_CAP = struct("ibv_qp_cap",
            i32("max_send_wr"), i32("max_recv_wr"), i32("max_send_sge"), i32("max_recv_sge"), i32("max_inline_data"));

    /** struct ibv_qp_attr of ibv_query_qp: the two ibv_ah_attr (32 bytes each, 8-aligned by union ibv_gid), never read, as bytes. */
    static final StructLayout IBV_QP_ATTR = struct("ibv_qp_attr",
            i32("qp_state"), i32("cur_qp_state"), i32("path_mtu"), i32("path_mig_state"), i32("qkey"), i32("rq_psn"),
            i32("sq_psn"), i32("dest_qp_num"), i32("qp_access_flags"), IBV_QP_CAP.withName("cap"),
            opaque("$ah_attr_alt_ah_attr", 64, 8), u16("pkey_index"), u16("alt_pkey_index"),
            u8("en_sqd_async_notify"), u8("sq_draining"), u8("max_rd_atomic"), u8("max_dest_rd_atomic"),
            u8("min_rnr_timer"), u8("port_num"), u8("timeout"), u8("retry_cnt"), u8("rnr_retry"), u8("alt_port_num"),
            u8("alt_timeout"), i32("rate_limit"));

    static final StructLayout IBV_QP_INIT_ATTR = struct("ibv_qp_init_attr",
            ptr("qp_context"), ptr("send_cq"), ptr("recv_cq"), ptr("srq"), IBV_QP_CAP.withName("cap"), i32("qp_type"),
            i32("sq_sig_all"));

    static final StructLayout IBV_SGE = struct("ibv_sge", i64("addr"), i32("length"), i32("lkey"));

    static final StructLayout IBV_SEND_WR = struct("ibv_send_wr",
            i64("wr_id"), ptr("next"), ptr("sg_list"), i32("num_sge"), i32("opcode"), i32("send_flags"),
            union("$imm", i32("imm_data"), i32("invalidate_rkey")),
            union("wr",
                    struct(null, i64("remote_addr"), i32("rkey")).withName("rdma"),
                    opaque("atomic", 32, 8), opaque("ud", 16, 8)),
            union("qp_type", opaque("xrc", 4, 4)),
            union("$ext",
                    struct(null, ptr("mw"), i32("rkey"),
                            struct(null, ptr("mr"), i64("addr"), i64("length"), i32("mw_access_flags"))
                                    .withName("bind_info")).withName("bind_mw"),
                    opaque("tso", 16, 8)));

    static final StructLayout IBV_RECV_WR = struct("ibv_recv_wr",
            i64("wr_id"), ptr("next"), ptr("sg_list"), i32("num_sge"));

    static final StructLayout IBV_WC = struct("ibv_wc",
            i64("wr_id"), i32("status"), i32("opcode"), i32("vendor_err"), i32("byte_len"),
            union("$imm", i32("imm_data"), i32("invalidated_rkey")), i32("qp_num"), i32("src_qp"), i32("wc_flags"),
            u16("pkey_index"), u16("slid"), u8("sl"), u8("dlid_path_bits"));

    // ------------------------------------------------------------------ <rdma/rdma_cma.h>

    static final StructLayout RDMA_EVENT_CHANNEL = struct("rdma_event_channel", i32("fd"));

    /** struct sockaddr_storage: 128 bytes, aligned as unsigned long. */
    static final long SOCKADDR_STORAGE_SIZE = 128;

    static final StructLayout RDMA_ADDR = struct("rdma_addr",
            union("$src", opaque("src_addr", 16, 2), opaque("src_storage", SOCKADDR_STORAGE_SIZE, 8)),
            union("$dst", opaque("dst_addr", 16, 2), opaque("dst_storage", SOCKADDR_STORAGE_SIZE, 8)),
            opaque("addr", 40, 8));

    static final StructLayout RDMA_ROUTE = struct("rdma_route",
            RDMA_ADDR.withName("addr"), ptr("path_rec"), i32("num_paths"));

    static final StructLayout RDMA_CM_ID = struct("rdma_cm_id",
            ptr("verbs"), ptr("channel"), ptr("context"), ptr("qp"), RDMA_ROUTE.withName("route"), i32("ps"),
            u8("port_num"), ptr("event"), ptr("send_cq_channel"), ptr("send_cq"), ptr("recv_cq_channel"),
            ptr("recv_cq"), ptr("srq"), ptr("pd"), i32("qp_type"));

    static final StructLayout RDMA_CONN_PARAM = struct("rdma_conn_param",
            ptr("private_data"), u8("private_data_len"), u8("responder_resources"), u8("initiator_depth"),
            u8("flow_control"), u8("retry_count"), u8("rnr_retry_count"), u8("srq"), i32("qp_num"));

    /** struct rdma_ud_param, never read: its size and alignment only. */
    static final StructLayout RDMA_UD_PARAM = struct("rdma_ud_param", opaque("$all", 56, 8));

    static final StructLayout RDMA_CM_EVENT = struct("rdma_cm_event",
            ptr("id"), ptr("listen_id"), i32("event"), i32("status"),
            union("param", RDMA_CONN_PARAM.withName("conn"), RDMA_UD_PARAM.withName("ud")));

    // ------------------------------------------------------------------ libc

    static final StructLayout SOCKADDR_STORAGE = struct("sockaddr_storage", opaque("$all", SOCKADDR_STORAGE_SIZE, 8));

    static final StructLayout SOCKADDR_IN = struct("sockaddr_in",
            u16("sin_family"), u16("sin_port"), i32("sin_addr"), opaque("sin_zero", 8, 1));

    static final StructLayout SOCKADDR_IN6 = struct("sockaddr_in6",
            u16("sin6_family"), u16("sin6_port"), i32("sin6_flowinfo"), opaque("sin6_addr", 16, 4),
            i32("sin6_scope_id"));

    static final StructLayout POLLFD = struct("pollfd", i32("fd"), u16("events"), u16("revents"));

    // ------------------------------------------------------------------ offsets used

    static final long DEVICE_TRANSPORT_TYPE = offset(IBV_DEVICE, "transport_type");
    static final long CONTEXT_DEVICE = offset(IBV_CONTEXT, "device");
    static final long CONTEXT_POLL_CQ = offset(IBV_CONTEXT, "ops.poll_cq");
    static final long CONTEXT_REQ_NOTIFY_CQ = offset(IBV_CONTEXT, "ops.req_notify_cq");
    static final long CONTEXT_POST_SEND = offset(IBV_CONTEXT, "ops.post_send");
    static final long CONTEXT_POST_RECV = offset(IBV_CONTEXT, "ops.post_recv");
    static final long CONTEXT_ABI_COMPAT = offset(IBV_CONTEXT, "abi_compat");
    static final long CONTEXT_ASYNC_FD = offset(IBV_CONTEXT, "async_fd");
    static final long CONTEXT_ALLOC_MW = offset(IBV_CONTEXT, "ops.alloc_mw");
    static final long CONTEXT_DEALLOC_MW = offset(IBV_CONTEXT, "ops.dealloc_mw");
    static final long MW_RKEY = offset(IBV_MW, "rkey");
    static final long MW_CONTEXT = offset(IBV_MW, "context");
    static final long ASYNC_EVENT_ELEMENT = offset(IBV_ASYNC_EVENT, "element");
    static final long ASYNC_EVENT_TYPE = offset(IBV_ASYNC_EVENT, "event_type");
    static final long VERBS_CONTEXT_QUERY_PORT = offset(VERBS_CONTEXT, "query_port");
    static final long VERBS_CONTEXT_SZ = offset(VERBS_CONTEXT, "sz");
    static final long VERBS_CONTEXT_CONTEXT = offset(VERBS_CONTEXT, "context");

    static final long DEVICE_ATTR_FW_VER = offset(IBV_DEVICE_ATTR, "fw_ver");
    static final long DEVICE_ATTR_MAX_MR_SIZE = offset(IBV_DEVICE_ATTR, "max_mr_size");
    static final long DEVICE_ATTR_MAX_QP_WR = offset(IBV_DEVICE_ATTR, "max_qp_wr");
    static final long DEVICE_ATTR_DEVICE_CAP_FLAGS = offset(IBV_DEVICE_ATTR, "device_cap_flags");
    static final long DEVICE_ATTR_MAX_SGE = offset(IBV_DEVICE_ATTR, "max_sge");
    static final long DEVICE_ATTR_MAX_CQE = offset(IBV_DEVICE_ATTR, "max_cqe");
    static final long DEVICE_ATTR_MAX_QP_RD_ATOM = offset(IBV_DEVICE_ATTR, "max_qp_rd_atom");
    static final long DEVICE_ATTR_MAX_QP_INIT_RD_ATOM = offset(IBV_DEVICE_ATTR, "max_qp_init_rd_atom");
    static final long DEVICE_ATTR_VENDOR_ID = offset(IBV_DEVICE_ATTR, "vendor_id");
    static final long DEVICE_ATTR_MAX_MW = offset(IBV_DEVICE_ATTR, "max_mw");
    static final long PORT_ATTR_STATE = offset(IBV_PORT_ATTR, "state");
    static final long PORT_ATTR_ACTIVE_MTU = offset(IBV_PORT_ATTR, "active_mtu");
    static final long PORT_ATTR_MAX_MSG_SZ = offset(IBV_PORT_ATTR, "max_msg_sz");
    static final long PORT_ATTR_LINK_LAYER = offset(IBV_PORT_ATTR, "link_layer");

    static final long MR_ADDR = offset(IBV_MR, "addr");
    static final long MR_LENGTH = offset(IBV_MR, "length");
    static final long MR_LKEY = offset(IBV_MR, "lkey");
    static final long MR_RKEY = offset(IBV_MR, "rkey");
    static final long COMP_CHANNEL_FD = offset(IBV_COMP_CHANNEL, "fd");
    static final long CONTEXT_NUM_COMP_VECTORS = offset(IBV_CONTEXT, "num_comp_vectors");
    static final long CQ_CONTEXT = offset(IBV_CQ, "context");
    static final long QP_CONTEXT = offset(IBV_QP, "context");
    static final long QP_QP_NUM = offset(IBV_QP, "qp_num");

    static final long QP_INIT_SEND_CQ = offset(IBV_QP_INIT_ATTR, "send_cq");
    static final long QP_INIT_RECV_CQ = offset(IBV_QP_INIT_ATTR, "recv_cq");
    static final long QP_INIT_MAX_SEND_WR = offset(IBV_QP_INIT_ATTR, "cap.max_send_wr");
    static final long QP_INIT_MAX_RECV_WR = offset(IBV_QP_INIT_ATTR, "cap.max_recv_wr");
    static final long QP_INIT_MAX_SEND_SGE = offset(IBV_QP_INIT_ATTR, "cap.max_send_sge");
    static final long QP_INIT_MAX_RECV_SGE = offset(IBV_QP_INIT_ATTR, "cap.max_recv_sge");
    static final long QP_INIT_MAX_INLINE_DATA = offset(IBV_QP_INIT_ATTR, "cap.max_inline_data");
    static final long QP_INIT_QP_TYPE = offset(IBV_QP_INIT_ATTR, "qp_type");
    static final long QP_INIT_SQ_SIG_ALL = offset(IBV_QP_INIT_ATTR, "sq_sig_all");

    static final long SGE_ADDR = offset(IBV_SGE, "addr");
    static final long SGE_LENGTH = offset(IBV_SGE, "length");
    static final long SGE_LKEY = offset(IBV_SGE, "lkey");
    static final long SEND_WR_WR_ID = offset(IBV_SEND_WR, "wr_id");
    static final long SEND_WR_NEXT = offset(IBV_SEND_WR, "next");
    static final long SEND_WR_SG_LIST = offset(IBV_SEND_WR, "sg_list");
    static final long SEND_WR_NUM_SGE = offset(IBV_SEND_WR, "num_sge");
    static final long SEND_WR_OPCODE = offset(IBV_SEND_WR, "opcode");
    static final long SEND_WR_SEND_FLAGS = offset(IBV_SEND_WR, "send_flags");
    static final long SEND_WR_INVALIDATE_RKEY = offset(IBV_SEND_WR, "$imm.invalidate_rkey");
    static final long SEND_WR_REMOTE_ADDR = offset(IBV_SEND_WR, "wr.rdma.remote_addr");
    static final long SEND_WR_RKEY = offset(IBV_SEND_WR, "wr.rdma.rkey");
    static final long SEND_WR_BIND_MW = offset(IBV_SEND_WR, "$ext.bind_mw.mw");
    static final long SEND_WR_BIND_RKEY = offset(IBV_SEND_WR, "$ext.bind_mw.rkey");
    static final long SEND_WR_BIND_MR = offset(IBV_SEND_WR, "$ext.bind_mw.bind_info.mr");
    static final long SEND_WR_BIND_ADDR = offset(IBV_SEND_WR, "$ext.bind_mw.bind_info.addr");
    static final long SEND_WR_BIND_LENGTH = offset(IBV_SEND_WR, "$ext.bind_mw.bind_info.length");
    static final long SEND_WR_BIND_ACCESS = offset(IBV_SEND_WR, "$ext.bind_mw.bind_info.mw_access_flags");
    static final long RECV_WR_WR_ID = offset(IBV_RECV_WR, "wr_id");
    static final long RECV_WR_NEXT = offset(IBV_RECV_WR, "next");
    static final long RECV_WR_SG_LIST = offset(IBV_RECV_WR, "sg_list");
    static final long RECV_WR_NUM_SGE = offset(IBV_RECV_WR, "num_sge");

    static final long WC_SIZE = IBV_WC.byteSize();
    static final long WC_WR_ID = offset(IBV_WC, "wr_id");
    static final long WC_STATUS = offset(IBV_WC, "status");
    static final long WC_OPCODE = offset(IBV_WC, "opcode");
    static final long WC_VENDOR_ERR = offset(IBV_WC, "vendor_err");
    static final long WC_BYTE_LEN = offset(IBV_WC, "byte_len");
    static final long WC_INVALIDATED_RKEY = offset(IBV_WC, "$imm.invalidated_rkey");
    static final long WC_QP_NUM = offset(IBV_WC, "qp_num");
    static final long WC_WC_FLAGS = offset(IBV_WC, "wc_flags");

    static final long EVENT_CHANNEL_FD = offset(RDMA_EVENT_CHANNEL, "fd");
    static final long CM_ID_VERBS = offset(RDMA_CM_ID, "verbs");
    static final long CM_ID_QP = offset(RDMA_CM_ID, "qp");
    static final long CM_ID_SRC_ADDR = offset(RDMA_CM_ID, "route.addr.$src.src_storage");
    static final long CM_ID_DST_ADDR = offset(RDMA_CM_ID, "route.addr.$dst.dst_storage");
    static final long CONN_PARAM_PRIVATE_DATA = offset(RDMA_CONN_PARAM, "private_data");
    static final long CONN_PARAM_PRIVATE_DATA_LEN = offset(RDMA_CONN_PARAM, "private_data_len");
    static final long CONN_PARAM_RESPONDER_RESOURCES = offset(RDMA_CONN_PARAM, "responder_resources");
    static final long CONN_PARAM_INITIATOR_DEPTH = offset(RDMA_CONN_PARAM, "initiator_depth");
    static final long CONN_PARAM_FLOW_CONTROL = offset(RDMA_CONN_PARAM, "flow_control");
    static final long CONN_PARAM_RETRY_COUNT = offset(RDMA_CONN_PARAM, "retry_count");
    static final long CONN_PARAM_RNR_RETRY_COUNT = offset(RDMA_CONN_PARAM, "rnr_retry_count");
    static final long EVENT_ID = offset(RDMA_CM_EVENT, "id");
    static final long EVENT_LISTEN_ID = offset(RDMA_CM_EVENT, "listen_id");
    static final long EVENT_EVENT = offset(RDMA_CM_EVENT, "event");
    static final long EVENT_STATUS = offset(RDMA_CM_EVENT, "status");
    static final long EVENT_PRIVATE_DATA = offset(RDMA_CM_EVENT, "param.conn.private_data");
    static final long EVENT_PRIVATE_DATA_LEN = offset(RDMA_CM_EVENT, "param.conn.private_data_len");
    static final long EVENT_RESPONDER_RESOURCES = offset(RDMA_CM_EVENT, "param.conn.responder_resources");
    static final long EVENT_INITIATOR_DEPTH = offset(RDMA_CM_EVENT, "param.conn.initiator_depth");

    static final long SIN_FAMILY = offset(SOCKADDR_IN, "sin_family");
    static final long SIN_PORT = offset(SOCKADDR_IN, "sin_port");
    static final long SIN_ADDR = offset(SOCKADDR_IN, "sin_addr");
    static final long SIN6_PORT = offset(SOCKADDR_IN6, "sin6_port");
    static final long SIN6_FLOWINFO = offset(SOCKADDR_IN6, "sin6_flowinfo");
    static final long SIN6_ADDR = offset(SOCKADDR_IN6, "sin6_addr");
    static final long SIN6_SCOPE_ID = offset(SOCKADDR_IN6, "sin6_scope_id");
    static final long QP_ATTR_MAX_RD_ATOMIC = offset(IBV_QP_ATTR, "max_rd_atomic");
    static final long QP_ATTR_MAX_DEST_RD_ATOMIC = offset(IBV_QP_ATTR, "max_dest_rd_atomic");
    static final long POLLFD_FD = offset(POLLFD, "fd");
    static final long POLLFD_EVENTS = offset(POLLFD, "events");
    static final long POLLFD_REVENTS = offset(POLLFD, "revents");

    // ------------------------------------------------------------------ constants (C names)

    static final int IBV_TRANSPORT_IB = 0;
    static final int IBV_TRANSPORT_IWARP = 1;
    static final int IBV_LINK_LAYER_INFINIBAND = 1;
    static final int IBV_LINK_LAYER_ETHERNET = 2;
    static final int IBV_PORT_ACTIVE = 4;
    static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
    static final int IBV_QPT_RC = 2;
    static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    static final int RDMA_PS_TCP = 0x0106;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final short POLLIN = 1;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;
    static final int EAGAIN = 11;
    static final int EINTR = 4;
    static final int EINVAL = 22;
    static final int ENODEV = 19;
    static final int ECONNREFUSED = 111;
    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code ibv_context.abi_compat} of a context with a verbs_context. */
    static final long VERBS_ABI_IS_EXTENDED = -1L;
}
