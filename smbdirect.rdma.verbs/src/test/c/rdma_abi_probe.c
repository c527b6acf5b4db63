/*
 * Prints the sizes, member offsets and constants of rdma-core's ABI that the rdma-core backend
 * (smbdirect.rdma.verbs.internal.rdmacore.Abi) lays out in Java, as the C compiler sees them with
 * Debian's libibverbs-dev and librdmacm-dev headers. RdmaAbiLayoutTest compiles and runs it and
 * compares every line with the Java layouts and constants: a layout error fails the build.
 *
 * Output lines: "size STRUCT N", "offset STRUCT.MEMBER.PATH N", "const NAME N".
 */
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/eventfd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define SIZE(s) printf("size %s %zu\n", #s, sizeof(struct s))
#define OFF(s, m) printf("offset %s.%s %zu\n", #s, #m, offsetof(struct s, m))
#define CONST(c) printf("const %s %lld\n", #c, (long long) (c))

int main(void)
{
	SIZE(ibv_device);
	OFF(ibv_device, _ops);
	OFF(ibv_device, node_type);
	OFF(ibv_device, transport_type);
	OFF(ibv_device, name);
	OFF(ibv_device, dev_name);
	OFF(ibv_device, dev_path);
	OFF(ibv_device, ibdev_path);

	SIZE(ibv_context_ops);
	OFF(ibv_context_ops, _compat_query_device);
	OFF(ibv_context_ops, _compat_query_port);
	OFF(ibv_context_ops, _compat_alloc_pd);
	OFF(ibv_context_ops, _compat_dealloc_pd);
	OFF(ibv_context_ops, _compat_reg_mr);
	OFF(ibv_context_ops, _compat_rereg_mr);
	OFF(ibv_context_ops, _compat_dereg_mr);
	OFF(ibv_context_ops, alloc_mw);
	OFF(ibv_context_ops, bind_mw);
	OFF(ibv_context_ops, dealloc_mw);
	OFF(ibv_context_ops, _compat_create_cq);
	OFF(ibv_context_ops, poll_cq);
	OFF(ibv_context_ops, req_notify_cq);
	OFF(ibv_context_ops, _compat_cq_event);
	OFF(ibv_context_ops, _compat_resize_cq);
	OFF(ibv_context_ops, _compat_destroy_cq);
	OFF(ibv_context_ops, _compat_create_srq);
	OFF(ibv_context_ops, _compat_modify_srq);
	OFF(ibv_context_ops, _compat_query_srq);
	OFF(ibv_context_ops, _compat_destroy_srq);
	OFF(ibv_context_ops, post_srq_recv);
	OFF(ibv_context_ops, _compat_create_qp);
	OFF(ibv_context_ops, _compat_query_qp);
	OFF(ibv_context_ops, _compat_modify_qp);
	OFF(ibv_context_ops, _compat_destroy_qp);
	OFF(ibv_context_ops, post_send);
	OFF(ibv_context_ops, post_recv);
	OFF(ibv_context_ops, _compat_create_ah);
	OFF(ibv_context_ops, _compat_destroy_ah);
	OFF(ibv_context_ops, _compat_attach_mcast);
	OFF(ibv_context_ops, _compat_detach_mcast);
	OFF(ibv_context_ops, _compat_async_event);

	SIZE(ibv_context);
	OFF(ibv_context, device);
	OFF(ibv_context, ops);
	OFF(ibv_context, ops.poll_cq);
	OFF(ibv_context, ops.req_notify_cq);
	OFF(ibv_context, ops.post_send);
	OFF(ibv_context, ops.post_recv);
	OFF(ibv_context, ops.alloc_mw);
	OFF(ibv_context, ops.dealloc_mw);
	OFF(ibv_context, cmd_fd);
	OFF(ibv_context, async_fd);
	OFF(ibv_context, num_comp_vectors);
	OFF(ibv_context, mutex);
	OFF(ibv_context, abi_compat);

	SIZE(verbs_context);
	OFF(verbs_context, query_port);
	OFF(verbs_context, sz);
	OFF(verbs_context, context);

	SIZE(ibv_device_attr);
	OFF(ibv_device_attr, fw_ver);
	OFF(ibv_device_attr, node_guid);
	OFF(ibv_device_attr, sys_image_guid);
	OFF(ibv_device_attr, max_mr_size);
	OFF(ibv_device_attr, page_size_cap);
	OFF(ibv_device_attr, vendor_id);
	OFF(ibv_device_attr, vendor_part_id);
	OFF(ibv_device_attr, hw_ver);
	OFF(ibv_device_attr, max_qp);
	OFF(ibv_device_attr, max_qp_wr);
	OFF(ibv_device_attr, device_cap_flags);
	OFF(ibv_device_attr, max_sge);
	OFF(ibv_device_attr, max_sge_rd);
	OFF(ibv_device_attr, max_cq);
	OFF(ibv_device_attr, max_cqe);
	OFF(ibv_device_attr, max_mr);
	OFF(ibv_device_attr, max_pd);
	OFF(ibv_device_attr, max_qp_rd_atom);
	OFF(ibv_device_attr, max_ee_rd_atom);
	OFF(ibv_device_attr, max_res_rd_atom);
	OFF(ibv_device_attr, max_qp_init_rd_atom);
	OFF(ibv_device_attr, max_ee_init_rd_atom);
	OFF(ibv_device_attr, atomic_cap);
	OFF(ibv_device_attr, max_ee);
	OFF(ibv_device_attr, max_rdd);
	OFF(ibv_device_attr, max_mw);
	OFF(ibv_device_attr, max_raw_ipv6_qp);
	OFF(ibv_device_attr, max_raw_ethy_qp);
	OFF(ibv_device_attr, max_mcast_grp);
	OFF(ibv_device_attr, max_mcast_qp_attach);
	OFF(ibv_device_attr, max_total_mcast_qp_attach);
	OFF(ibv_device_attr, max_ah);
	OFF(ibv_device_attr, max_fmr);
	OFF(ibv_device_attr, max_map_per_fmr);
	OFF(ibv_device_attr, max_srq);
	OFF(ibv_device_attr, max_srq_wr);
	OFF(ibv_device_attr, max_srq_sge);
	OFF(ibv_device_attr, max_pkeys);
	OFF(ibv_device_attr, local_ca_ack_delay);
	OFF(ibv_device_attr, phys_port_cnt);

	SIZE(ibv_port_attr);
	OFF(ibv_port_attr, state);
	OFF(ibv_port_attr, max_mtu);
	OFF(ibv_port_attr, active_mtu);
	OFF(ibv_port_attr, gid_tbl_len);
	OFF(ibv_port_attr, port_cap_flags);
	OFF(ibv_port_attr, max_msg_sz);
	OFF(ibv_port_attr, bad_pkey_cntr);
	OFF(ibv_port_attr, qkey_viol_cntr);
	OFF(ibv_port_attr, pkey_tbl_len);
	OFF(ibv_port_attr, lid);
	OFF(ibv_port_attr, sm_lid);
	OFF(ibv_port_attr, lmc);
	OFF(ibv_port_attr, max_vl_num);
	OFF(ibv_port_attr, sm_sl);
	OFF(ibv_port_attr, subnet_timeout);
	OFF(ibv_port_attr, init_type_reply);
	OFF(ibv_port_attr, active_width);
	OFF(ibv_port_attr, active_speed);
	OFF(ibv_port_attr, phys_state);
	OFF(ibv_port_attr, link_layer);
	OFF(ibv_port_attr, flags);
	OFF(ibv_port_attr, port_cap_flags2);

	SIZE(ibv_pd);
	OFF(ibv_pd, context);
	OFF(ibv_pd, handle);

	SIZE(ibv_mr);
	OFF(ibv_mr, context);
	OFF(ibv_mr, pd);
	OFF(ibv_mr, addr);
	OFF(ibv_mr, length);
	OFF(ibv_mr, handle);
	OFF(ibv_mr, lkey);
	OFF(ibv_mr, rkey);

	SIZE(ibv_mw);
	OFF(ibv_mw, context);
	OFF(ibv_mw, pd);
	OFF(ibv_mw, rkey);
	OFF(ibv_mw, handle);
	OFF(ibv_mw, type);

	SIZE(ibv_async_event);
	OFF(ibv_async_event, element);
	OFF(ibv_async_event, element.cq);
	OFF(ibv_async_event, element.qp);
	OFF(ibv_async_event, element.srq);
	OFF(ibv_async_event, element.wq);
	OFF(ibv_async_event, element.port_num);
	OFF(ibv_async_event, event_type);

	SIZE(ibv_comp_channel);
	OFF(ibv_comp_channel, context);
	OFF(ibv_comp_channel, fd);
	OFF(ibv_comp_channel, refcnt);

	SIZE(ibv_cq);
	OFF(ibv_cq, context);
	OFF(ibv_cq, channel);
	OFF(ibv_cq, cq_context);
	OFF(ibv_cq, handle);
	OFF(ibv_cq, cqe);
	OFF(ibv_cq, mutex);
	OFF(ibv_cq, cond);
	OFF(ibv_cq, comp_events_completed);
	OFF(ibv_cq, async_events_completed);

	SIZE(ibv_qp);
	OFF(ibv_qp, context);
	OFF(ibv_qp, qp_context);
	OFF(ibv_qp, pd);
	OFF(ibv_qp, send_cq);
	OFF(ibv_qp, recv_cq);
	OFF(ibv_qp, srq);
	OFF(ibv_qp, handle);
	OFF(ibv_qp, qp_num);
	OFF(ibv_qp, state);
	OFF(ibv_qp, qp_type);
	OFF(ibv_qp, mutex);
	OFF(ibv_qp, cond);
	OFF(ibv_qp, events_completed);

	SIZE(ibv_qp_cap);
	OFF(ibv_qp_cap, max_send_wr);
	OFF(ibv_qp_cap, max_recv_wr);
	OFF(ibv_qp_cap, max_send_sge);
	OFF(ibv_qp_cap, max_recv_sge);
	OFF(ibv_qp_cap, max_inline_data);

	SIZE(ibv_qp_attr);
	OFF(ibv_qp_attr, qp_state);
	OFF(ibv_qp_attr, cur_qp_state);
	OFF(ibv_qp_attr, path_mtu);
	OFF(ibv_qp_attr, path_mig_state);
	OFF(ibv_qp_attr, qkey);
	OFF(ibv_qp_attr, rq_psn);
	OFF(ibv_qp_attr, sq_psn);
	OFF(ibv_qp_attr, dest_qp_num);
	OFF(ibv_qp_attr, qp_access_flags);
	OFF(ibv_qp_attr, cap);
	OFF(ibv_qp_attr, pkey_index);
	OFF(ibv_qp_attr, alt_pkey_index);
	OFF(ibv_qp_attr, en_sqd_async_notify);
	OFF(ibv_qp_attr, sq_draining);
	OFF(ibv_qp_attr, max_rd_atomic);
	OFF(ibv_qp_attr, max_dest_rd_atomic);
	OFF(ibv_qp_attr, min_rnr_timer);
	OFF(ibv_qp_attr, port_num);
	OFF(ibv_qp_attr, timeout);
	OFF(ibv_qp_attr, retry_cnt);
	OFF(ibv_qp_attr, rnr_retry);
	OFF(ibv_qp_attr, alt_port_num);
	OFF(ibv_qp_attr, alt_timeout);
	OFF(ibv_qp_attr, rate_limit);

	SIZE(ibv_qp_init_attr);
	OFF(ibv_qp_init_attr, qp_context);
	OFF(ibv_qp_init_attr, send_cq);
	OFF(ibv_qp_init_attr, recv_cq);
	OFF(ibv_qp_init_attr, srq);
	OFF(ibv_qp_init_attr, cap);
	OFF(ibv_qp_init_attr, cap.max_send_wr);
	OFF(ibv_qp_init_attr, cap.max_recv_wr);
	OFF(ibv_qp_init_attr, cap.max_send_sge);
	OFF(ibv_qp_init_attr, cap.max_recv_sge);
	OFF(ibv_qp_init_attr, cap.max_inline_data);
	OFF(ibv_qp_init_attr, qp_type);
	OFF(ibv_qp_init_attr, sq_sig_all);

	SIZE(ibv_sge);
	OFF(ibv_sge, addr);
	OFF(ibv_sge, length);
	OFF(ibv_sge, lkey);

	SIZE(ibv_send_wr);
	OFF(ibv_send_wr, wr_id);
	OFF(ibv_send_wr, next);
	OFF(ibv_send_wr, sg_list);
	OFF(ibv_send_wr, num_sge);
	OFF(ibv_send_wr, opcode);
	OFF(ibv_send_wr, send_flags);
	OFF(ibv_send_wr, imm_data);
	OFF(ibv_send_wr, invalidate_rkey);
	OFF(ibv_send_wr, wr);
	OFF(ibv_send_wr, wr.rdma);
	OFF(ibv_send_wr, wr.atomic);
	OFF(ibv_send_wr, wr.ud);
	OFF(ibv_send_wr, wr.rdma.remote_addr);
	OFF(ibv_send_wr, wr.rdma.rkey);
	OFF(ibv_send_wr, qp_type);
	OFF(ibv_send_wr, qp_type.xrc);
	OFF(ibv_send_wr, bind_mw);
	OFF(ibv_send_wr, bind_mw.mw);
	OFF(ibv_send_wr, bind_mw.rkey);
	OFF(ibv_send_wr, bind_mw.bind_info);
	OFF(ibv_send_wr, bind_mw.bind_info.mr);
	OFF(ibv_send_wr, bind_mw.bind_info.addr);
	OFF(ibv_send_wr, bind_mw.bind_info.length);
	OFF(ibv_send_wr, bind_mw.bind_info.mw_access_flags);
	OFF(ibv_send_wr, tso);

	SIZE(ibv_recv_wr);
	OFF(ibv_recv_wr, wr_id);
	OFF(ibv_recv_wr, next);
	OFF(ibv_recv_wr, sg_list);
	OFF(ibv_recv_wr, num_sge);

	SIZE(ibv_wc);
	OFF(ibv_wc, wr_id);
	OFF(ibv_wc, status);
	OFF(ibv_wc, opcode);
	OFF(ibv_wc, vendor_err);
	OFF(ibv_wc, byte_len);
	OFF(ibv_wc, imm_data);
	OFF(ibv_wc, invalidated_rkey);
	OFF(ibv_wc, qp_num);
	OFF(ibv_wc, src_qp);
	OFF(ibv_wc, wc_flags);
	OFF(ibv_wc, pkey_index);
	OFF(ibv_wc, slid);
	OFF(ibv_wc, sl);
	OFF(ibv_wc, dlid_path_bits);

	SIZE(rdma_event_channel);
	OFF(rdma_event_channel, fd);

	SIZE(rdma_addr);
	OFF(rdma_addr, src_addr);
	OFF(rdma_addr, src_storage);
	OFF(rdma_addr, dst_addr);
	OFF(rdma_addr, dst_storage);
	OFF(rdma_addr, addr);

	SIZE(rdma_route);
	OFF(rdma_route, addr);
	OFF(rdma_route, path_rec);
	OFF(rdma_route, num_paths);

	SIZE(rdma_cm_id);
	OFF(rdma_cm_id, verbs);
	OFF(rdma_cm_id, channel);
	OFF(rdma_cm_id, context);
	OFF(rdma_cm_id, qp);
	OFF(rdma_cm_id, route);
	OFF(rdma_cm_id, route.addr.src_storage);
	OFF(rdma_cm_id, route.addr.dst_storage);
	OFF(rdma_cm_id, ps);
	OFF(rdma_cm_id, port_num);
	OFF(rdma_cm_id, event);
	OFF(rdma_cm_id, send_cq_channel);
	OFF(rdma_cm_id, send_cq);
	OFF(rdma_cm_id, recv_cq_channel);
	OFF(rdma_cm_id, recv_cq);
	OFF(rdma_cm_id, srq);
	OFF(rdma_cm_id, pd);
	OFF(rdma_cm_id, qp_type);

	SIZE(rdma_conn_param);
	OFF(rdma_conn_param, private_data);
	OFF(rdma_conn_param, private_data_len);
	OFF(rdma_conn_param, responder_resources);
	OFF(rdma_conn_param, initiator_depth);
	OFF(rdma_conn_param, flow_control);
	OFF(rdma_conn_param, retry_count);
	OFF(rdma_conn_param, rnr_retry_count);
	OFF(rdma_conn_param, srq);
	OFF(rdma_conn_param, qp_num);

	SIZE(rdma_ud_param);

	SIZE(rdma_cm_event);
	OFF(rdma_cm_event, id);
	OFF(rdma_cm_event, listen_id);
	OFF(rdma_cm_event, event);
	OFF(rdma_cm_event, status);
	OFF(rdma_cm_event, param);
	OFF(rdma_cm_event, param.conn);
	OFF(rdma_cm_event, param.ud);
	OFF(rdma_cm_event, param.conn.private_data);
	OFF(rdma_cm_event, param.conn.private_data_len);
	OFF(rdma_cm_event, param.conn.responder_resources);
	OFF(rdma_cm_event, param.conn.initiator_depth);

	SIZE(sockaddr_storage);
	SIZE(sockaddr_in);
	OFF(sockaddr_in, sin_family);
	OFF(sockaddr_in, sin_port);
	OFF(sockaddr_in, sin_addr);
	OFF(sockaddr_in, sin_zero);
	SIZE(sockaddr_in6);
	OFF(sockaddr_in6, sin6_family);
	OFF(sockaddr_in6, sin6_port);
	OFF(sockaddr_in6, sin6_flowinfo);
	OFF(sockaddr_in6, sin6_addr);
	OFF(sockaddr_in6, sin6_scope_id);
	SIZE(pollfd);
	OFF(pollfd, fd);
	OFF(pollfd, events);
	OFF(pollfd, revents);

	/* verbs */
	CONST(IBV_SYSFS_NAME_MAX);
	CONST(IBV_SYSFS_PATH_MAX);
	printf("const VERBS_ABI_IS_EXTENDED %lld\n", (long long) (intptr_t) __VERBS_ABI_IS_EXTENDED);
	printf("const PTHREAD_MUTEX_SIZE %zu\n", sizeof(pthread_mutex_t));
	printf("const PTHREAD_COND_SIZE %zu\n", sizeof(pthread_cond_t));
	printf("const SOCKADDR_STORAGE_SIZE %zu\n", sizeof(struct sockaddr_storage));
	CONST(IBV_TRANSPORT_IB);
	CONST(IBV_TRANSPORT_IWARP);
	CONST(IBV_LINK_LAYER_INFINIBAND);
	CONST(IBV_LINK_LAYER_ETHERNET);
	CONST(IBV_PORT_ACTIVE);
	CONST(IBV_DEVICE_MEM_MGT_EXTENSIONS);
	CONST(IBV_DEVICE_MEM_WINDOW);
	CONST(IBV_DEVICE_MEM_WINDOW_TYPE_2A);
	CONST(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
	CONST(IBV_MW_TYPE_2);
	CONST(IBV_ACCESS_MW_BIND);
	CONST(IBV_WR_BIND_MW);
	CONST(IBV_WC_MW_BIND_ERR);
	CONST(IBV_WC_BIND_MW);
	CONST(IBV_EVENT_CQ_ERR);
	CONST(IBV_EVENT_QP_FATAL);
	CONST(IBV_EVENT_QP_REQ_ERR);
	CONST(IBV_EVENT_QP_ACCESS_ERR);
	CONST(IBV_EVENT_COMM_EST);
	CONST(IBV_EVENT_SQ_DRAINED);
	CONST(IBV_EVENT_PATH_MIG);
	CONST(IBV_EVENT_PATH_MIG_ERR);
	CONST(IBV_EVENT_DEVICE_FATAL);
	CONST(IBV_EVENT_PORT_ACTIVE);
	CONST(IBV_EVENT_PORT_ERR);
	CONST(IBV_EVENT_LID_CHANGE);
	CONST(IBV_EVENT_PKEY_CHANGE);
	CONST(IBV_EVENT_SM_CHANGE);
	CONST(IBV_EVENT_SRQ_ERR);
	CONST(IBV_EVENT_SRQ_LIMIT_REACHED);
	CONST(IBV_EVENT_QP_LAST_WQE_REACHED);
	CONST(IBV_EVENT_CLIENT_REREGISTER);
	CONST(IBV_EVENT_GID_CHANGE);
	CONST(IBV_EVENT_WQ_FATAL);
	CONST(IBV_QPT_RC);
	CONST(IBV_QP_MAX_QP_RD_ATOMIC);
	CONST(IBV_QP_MAX_DEST_RD_ATOMIC);
	CONST(IBV_WR_RDMA_WRITE);
	CONST(IBV_WR_SEND);
	CONST(IBV_WR_RDMA_READ);
	CONST(IBV_WR_SEND_WITH_INV);
	CONST(IBV_SEND_SIGNALED);
	CONST(IBV_ACCESS_LOCAL_WRITE);
	CONST(IBV_ACCESS_REMOTE_WRITE);
	CONST(IBV_ACCESS_REMOTE_READ);
	CONST(IBV_WC_SUCCESS);
	CONST(IBV_WC_BAD_RESP_ERR);
	CONST(IBV_WC_REM_ABORT_ERR);
	CONST(IBV_WC_FATAL_ERR);
	CONST(IBV_WC_RESP_TIMEOUT_ERR);
	CONST(IBV_WC_LOC_LEN_ERR);
	CONST(IBV_WC_LOC_QP_OP_ERR);
	CONST(IBV_WC_LOC_PROT_ERR);
	CONST(IBV_WC_WR_FLUSH_ERR);
	CONST(IBV_WC_LOC_ACCESS_ERR);
	CONST(IBV_WC_REM_INV_REQ_ERR);
	CONST(IBV_WC_REM_ACCESS_ERR);
	CONST(IBV_WC_REM_OP_ERR);
	CONST(IBV_WC_RETRY_EXC_ERR);
	CONST(IBV_WC_RNR_RETRY_EXC_ERR);
	CONST(IBV_WC_GENERAL_ERR);
	CONST(IBV_WC_SEND);
	CONST(IBV_WC_RDMA_WRITE);
	CONST(IBV_WC_RDMA_READ);
	CONST(IBV_WC_LOCAL_INV);
	CONST(IBV_WC_RECV);
	CONST(IBV_WC_WITH_INV);
	/* librdmacm */
	CONST(RDMA_PS_TCP);
	CONST(RDMA_CM_EVENT_ADDR_RESOLVED);
	CONST(RDMA_CM_EVENT_ADDR_ERROR);
	CONST(RDMA_CM_EVENT_ROUTE_RESOLVED);
	CONST(RDMA_CM_EVENT_ROUTE_ERROR);
	CONST(RDMA_CM_EVENT_CONNECT_REQUEST);
	CONST(RDMA_CM_EVENT_CONNECT_RESPONSE);
	CONST(RDMA_CM_EVENT_CONNECT_ERROR);
	CONST(RDMA_CM_EVENT_UNREACHABLE);
	CONST(RDMA_CM_EVENT_REJECTED);
	CONST(RDMA_CM_EVENT_ESTABLISHED);
	CONST(RDMA_CM_EVENT_DISCONNECTED);
	CONST(RDMA_CM_EVENT_DEVICE_REMOVAL);
	CONST(RDMA_CM_EVENT_ADDR_CHANGE);
	CONST(RDMA_CM_EVENT_TIMEWAIT_EXIT);
	/* libc */
	CONST(AF_INET);
	CONST(AF_INET6);
	CONST(POLLIN);
	CONST(F_GETFL);
	CONST(F_SETFL);
	CONST(O_NONBLOCK);
	CONST(EFD_NONBLOCK);
	CONST(EFD_CLOEXEC);
	CONST(EAGAIN);
	CONST(EINTR);
	CONST(EINVAL);
	CONST(ENODEV);
	CONST(ECONNREFUSED);
	return 0;
}
