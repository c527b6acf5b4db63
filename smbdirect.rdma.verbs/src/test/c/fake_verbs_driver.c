/*
 * A stand-in for an rdma-core user-space driver, for the rdma-core backend's tests on a machine
 * without RDMA: it builds an ibv_context whose ops post_send, post_recv, poll_cq and req_notify_cq
 * are the functions below, an ibv_qp and an ibv_cq on it, and an rdma_event_channel whose fd is a
 * pipe. The ops record what the backend handed them, read through rdma-core's own struct
 * definitions, and poll_cq returns completions the test scripted. Compiled by the tests with gcc
 * against libibverbs-dev and librdmacm-dev (shared library, loaded through the FFM API).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* What the last post_send saw. */
struct fake_send {
	uint64_t wr_id;
	int opcode;
	unsigned int send_flags;
	uint32_t invalidate_rkey;
	uint64_t remote_addr;
	uint32_t rkey;
	int num_sge;
	uint64_t sge_addr;
	uint32_t sge_length;
	uint32_t sge_lkey;
	int chained;
	/* bind_mw (IBV_WR_BIND_MW only) */
	uint64_t bind_mw;
	uint32_t bind_rkey;
	uint64_t bind_mr;
	uint64_t bind_addr;
	uint64_t bind_length;
	unsigned int bind_access;
};

/* What the last post_recv saw. */
struct fake_recv {
	uint64_t wr_id;
	int num_sge;
	uint64_t sge_addr;
	uint32_t sge_length;
	uint32_t sge_lkey;
	int chained;
};

static struct fake_send last_send;
static struct fake_recv last_recv;
static long sends, recvs, polls, notifies;
static int post_result;
static long mws_allocated, mws_deallocated;
static int alloc_mw_errno;
static int last_mw_type;
static struct ibv_wc scripted[64];
static int scripted_count;
/* When set, poll_cq with nothing scripted fills every entry asked for (wr_id counting up). */
static int auto_complete;
static uint64_t auto_wr_id;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void) qp;
	sends++;
	if (post_result) {
		*bad = wr;
		return post_result;
	}
	last_send.wr_id = wr->wr_id;
	last_send.opcode = wr->opcode;
	last_send.send_flags = wr->send_flags;
	last_send.invalidate_rkey = wr->invalidate_rkey;
	last_send.remote_addr = wr->wr.rdma.remote_addr;
	last_send.rkey = wr->wr.rdma.rkey;
	last_send.num_sge = wr->num_sge;
	if (wr->num_sge > 0) {
		last_send.sge_addr = wr->sg_list[0].addr;
		last_send.sge_length = wr->sg_list[0].length;
		last_send.sge_lkey = wr->sg_list[0].lkey;
	}
	last_send.chained = wr->next != NULL;
	if (wr->opcode == IBV_WR_BIND_MW) {
		last_send.bind_mw = (uint64_t) (uintptr_t) wr->bind_mw.mw;
		last_send.bind_rkey = wr->bind_mw.rkey;
		last_send.bind_mr = (uint64_t) (uintptr_t) wr->bind_mw.bind_info.mr;
		last_send.bind_addr = wr->bind_mw.bind_info.addr;
		last_send.bind_length = wr->bind_mw.bind_info.length;
		last_send.bind_access = wr->bind_mw.bind_info.mw_access_flags;
	}
	return 0;
}

static struct ibv_mw *fake_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	last_mw_type = type;
	if (alloc_mw_errno) {
		errno = alloc_mw_errno;
		return NULL;
	}
	struct ibv_mw *mw = calloc(1, sizeof(*mw));
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = 0x00abcd00u + (uint32_t) (++mws_allocated);
	mw->type = type;
	return mw;
}

static int fake_dealloc_mw(struct ibv_mw *mw)
{
	mws_deallocated++;
	free(mw);
	return 0;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void) qp;
	recvs++;
	if (post_result) {
		*bad = wr;
		return post_result;
	}
	last_recv.wr_id = wr->wr_id;
	last_recv.num_sge = wr->num_sge;
	last_recv.sge_addr = wr->sg_list[0].addr;
	last_recv.sge_length = wr->sg_list[0].length;
	last_recv.sge_lkey = wr->sg_list[0].lkey;
	last_recv.chained = wr->next != NULL;
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	(void) cq;
	polls++;
	if (scripted_count == 0 && auto_complete) {
		for (int i = 0; i < num; i++) {
			memset(&wc[i], 0, sizeof(wc[i]));
			wc[i].wr_id = auto_wr_id++;
			wc[i].opcode = IBV_WC_RECV;
			wc[i].byte_len = 64;
		}
		return num;
	}
	int n = scripted_count < num ? scripted_count : num;
	memcpy(wc, scripted, sizeof(struct ibv_wc) * n);
	memmove(scripted, scripted + n, sizeof(struct ibv_wc) * (scripted_count - n));
	scripted_count -= n;
	return n;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void) cq;
	notifies++;
	return solicited_only ? EINVAL : 0;
}

struct ibv_context *fake_context(void)
{
	struct ibv_context *ctx = calloc(1, sizeof(*ctx));
	ctx->ops.post_send = fake_post_send;
	ctx->ops.post_recv = fake_post_recv;
	ctx->ops.poll_cq = fake_poll_cq;
	ctx->ops.req_notify_cq = fake_req_notify_cq;
	ctx->ops.alloc_mw = fake_alloc_mw;
	ctx->ops.dealloc_mw = fake_dealloc_mw;
	return ctx;
}

struct ibv_pd *fake_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	pd->context = ctx;
	return pd;
}

/* An ibv_mr as ibv_reg_mr would return it (nothing registered). */
struct ibv_mr *fake_mr(struct ibv_context *ctx, struct ibv_pd *pd, uint64_t addr, uint64_t length, uint32_t lkey,
		       uint32_t rkey)
{
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	mr->context = ctx;
	mr->pd = pd;
	mr->addr = (void *) (uintptr_t) addr;
	mr->length = length;
	mr->lkey = lkey;
	mr->rkey = rkey;
	return mr;
}

/* The next ibv_alloc_mw fails with this errno (0: succeeds). */
void fake_alloc_mw_errno(int errno_value)
{
	alloc_mw_errno = errno_value;
}

/* mws[0..2]: allocated, deallocated, the type the last alloc_mw asked for */
void fake_mws(long *mws)
{
	mws[0] = mws_allocated;
	mws[1] = mws_deallocated;
	mws[2] = last_mw_type;
}

struct ibv_qp *fake_qp(struct ibv_context *ctx, uint32_t qp_num)
{
	struct ibv_qp *qp = calloc(1, sizeof(*qp));
	qp->context = ctx;
	qp->qp_num = qp_num;
	return qp;
}

struct ibv_cq *fake_cq(struct ibv_context *ctx)
{
	struct ibv_cq *cq = calloc(1, sizeof(*cq));
	cq->context = ctx;
	return cq;
}

/* A malloc'ed rdma_event_channel (rdma_destroy_event_channel frees it) on a pipe; *write_fd gets its other end. */
struct rdma_event_channel *fake_event_channel(int *write_fd)
{
	int fds[2];
	if (pipe(fds))
		return NULL;
	struct rdma_event_channel *ch = malloc(sizeof(*ch));
	ch->fd = fds[0];
	*write_fd = fds[1];
	return ch;
}

/* A zeroed rdma_cm_id (verbs NULL: not bound to a device). */
struct rdma_cm_id *fake_unbound_id(void)
{
	return calloc(1, sizeof(struct rdma_cm_id));
}

void fake_script_completion(uint64_t wr_id, int status, int opcode, uint32_t vendor_err, uint32_t byte_len,
			    uint32_t invalidated_rkey, unsigned int wc_flags, uint32_t qp_num)
{
	struct ibv_wc *wc = &scripted[scripted_count++];
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = status;
	wc->opcode = opcode;
	wc->vendor_err = vendor_err;
	wc->byte_len = byte_len;
	wc->invalidated_rkey = invalidated_rkey;
	wc->wc_flags = wc_flags;
	wc->qp_num = qp_num;
	wc->src_qp = 0xdeadbeef;
	wc->slid = 0xffff;
}

void fake_auto_complete(int on)
{
	auto_complete = on;
}

void fake_post_result(int errno_value)
{
	post_result = errno_value;
}

/* The last post_send's fields in struct fake_send order (0: wr_id ... 10: chained, 11..16: bind_mw). */
uint64_t fake_send_field(int i)
{
	switch (i) {
	case 0: return last_send.wr_id;
	case 1: return (uint64_t) last_send.opcode;
	case 2: return last_send.send_flags;
	case 3: return last_send.invalidate_rkey;
	case 4: return last_send.remote_addr;
	case 5: return last_send.rkey;
	case 6: return (uint64_t) last_send.num_sge;
	case 7: return last_send.sge_addr;
	case 8: return last_send.sge_length;
	case 9: return last_send.sge_lkey;
	case 10: return (uint64_t) last_send.chained;
	case 11: return last_send.bind_mw;
	case 12: return last_send.bind_rkey;
	case 13: return last_send.bind_mr;
	case 14: return last_send.bind_addr;
	case 15: return last_send.bind_length;
	default: return last_send.bind_access;
	}
}

/* The last post_recv's fields in struct fake_recv order (0: wr_id ... 5: chained). */
uint64_t fake_recv_field(int i)
{
	switch (i) {
	case 0: return last_recv.wr_id;
	case 1: return (uint64_t) last_recv.num_sge;
	case 2: return last_recv.sge_addr;
	case 3: return last_recv.sge_length;
	case 4: return last_recv.sge_lkey;
	default: return (uint64_t) last_recv.chained;
	}
}

/* calls[0..3]: post_send, post_recv, poll_cq, req_notify_cq */
void fake_calls(long *calls)
{
	calls[0] = sends;
	calls[1] = recvs;
	calls[2] = polls;
	calls[3] = notifies;
}
