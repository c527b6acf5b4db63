/*
 * cmfacts: what librdmacm and libibverbs report on the VM's RDMA device (siw0 or rxe0) for the edge
 * cases the verbs provider's loopback device models: a connect to a port without listener, private
 * data on connect, accept and reject (lengths and bytes), IRD/ORD in the CM events, a Send without a
 * posted receive (RNR retry 0), a message longer than the receive, RDMA Write and Read with a wrong
 * rkey. One client and one server in one process, on 10.0.2.15; each case on its own event channel.
 *
 *   gcc -O1 -o cmfacts tools/siw-vm/cmfacts.c -lrdmacm -libverbs      (libibverbs-dev, librdmacm-dev)
 *   tools/siw-vm/run.sh --rdma rxe --put cmfacts:/tmp/cmfacts -- /tmp/cmfacts
 *
 * The host and the guest share Debian 12's glibc and rdma-core 44, so the host's binary runs there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

static struct rdma_event_channel *ch;
static const char *ADDR = "10.0.2.15";

static void hex(const char *what, const void *p, int n) {
    printf("%s len=%d data=", what, n);
    for (int i = 0; i < n; i++) printf("%02x", ((const unsigned char *)p)[i]);
    printf("\n");
}

static struct rdma_cm_event *next(const char *who) {
    struct rdma_cm_event *e;
    if (rdma_get_cm_event(ch, &e)) { printf("%s get_cm_event errno=%d\n", who, errno); exit(1); }
    printf("%s event=%s status=%d", who, rdma_event_str(e->event), e->status);
    if (e->event == RDMA_CM_EVENT_CONNECT_REQUEST || e->event == RDMA_CM_EVENT_ESTABLISHED || e->event == RDMA_CM_EVENT_REJECTED) {
        printf(" ird/resp=%d ord/init=%d", e->param.conn.responder_resources, e->param.conn.initiator_depth);
        printf("\n");
        hex("  pd", e->param.conn.private_data, e->param.conn.private_data_len);
    } else printf("\n");
    return e;
}

struct side { struct rdma_cm_id *id; struct ibv_pd *pd; struct ibv_cq *cq; struct ibv_mr *mr; char *buf; };

static void mkqp(struct side *s) {
    s->pd = ibv_alloc_pd(s->id->verbs);
    s->cq = ibv_create_cq(s->id->verbs, 64, NULL, NULL, 0);
    struct ibv_qp_init_attr a = {0};
    a.send_cq = a.recv_cq = s->cq; a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 16; a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    if (rdma_create_qp(s->id, s->pd, &a)) { printf("create_qp errno=%d\n", errno); exit(1); }
    s->buf = aligned_alloc(4096, 65536); memset(s->buf, 0x5a, 65536);
    s->mr = ibv_reg_mr(s->pd, s->buf, 65536, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
}

static void resolve(struct side *c, int port) {
    struct sockaddr_in dst = {0}; dst.sin_family = AF_INET; dst.sin_port = htons(port); inet_pton(AF_INET, ADDR, &dst.sin_addr);
    rdma_create_id(ch, &c->id, NULL, RDMA_PS_TCP);
    rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 2000);
    rdma_ack_cm_event(next("client"));
    rdma_resolve_route(c->id, 2000);
    rdma_ack_cm_event(next("client"));
    mkqp(c);
}

static void post_recv(struct side *s, int len) {
    struct ibv_sge sge = { (uintptr_t)s->buf, len, s->mr->lkey };
    struct ibv_recv_wr wr = {0}, *bad; wr.wr_id = 1; wr.sg_list = &sge; wr.num_sge = 1;
    if (ibv_post_recv(s->id->qp, &wr, &bad)) printf("post_recv errno=%d\n", errno);
}
static void post(struct side *s, enum ibv_wr_opcode op, int len, uint64_t raddr, uint32_t rkey) {
    struct ibv_sge sge = { (uintptr_t)s->buf + 32768, len, s->mr->lkey };
    struct ibv_send_wr wr = {0}, *bad; wr.wr_id = 2; wr.sg_list = &sge; wr.num_sge = 1; wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED; wr.wr.rdma.remote_addr = raddr; wr.wr.rdma.rkey = rkey;
    if (ibv_post_send(s->id->qp, &wr, &bad)) printf("post_send errno=%d\n", errno);
}
static void poll_all(const char *who, struct side *s, int ms) {
    for (int t = 0; t < ms / 10; t++) {
        struct ibv_wc wc[4]; int n = ibv_poll_cq(s->cq, 4, wc);
        for (int i = 0; i < n; i++) printf("%s wc wr=%lu status=%s(%d) opcode=%d len=%u vendor_err=%u\n", who,
            (unsigned long)wc[i].wr_id, ibv_wc_status_str(wc[i].status), wc[i].status, wc[i].opcode, wc[i].byte_len, wc[i].vendor_err);
        usleep(10000);
    }
}

static struct side listener(int port);
static struct side fresh(int port) { ch = rdma_create_event_channel(); return listener(port); }
static struct side listener(int port) {
    struct side l = {0};
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); inet_pton(AF_INET, ADDR, &a.sin_addr);
    rdma_create_id(ch, &l.id, NULL, RDMA_PS_TCP);
    if (rdma_bind_addr(l.id, (struct sockaddr *)&a)) printf("bind errno=%d\n", errno);
    rdma_listen(l.id, 8);
    return l;
}

static void connect_pair(struct side *c, struct side *s, struct side *l, int port, const char *scenario) {
    resolve(c, port);
    struct rdma_conn_param p = {0}; p.private_data = "PD-CONNECT"; p.private_data_len = 10;
    p.responder_resources = 3; p.initiator_depth = 2; p.retry_count = 6; p.rnr_retry_count = 0;
    if (rdma_connect(c->id, &p)) { printf("%s connect errno=%d\n", scenario, errno); }
    struct rdma_cm_event *e = next("server");
    s->id = e->id; rdma_ack_cm_event(e);
    mkqp(s);
}

static void accept_it(struct side *s, struct side *c) {
    struct rdma_conn_param p = {0}; p.private_data = "PD-ACCEPT"; p.private_data_len = 9;
    p.responder_resources = 5; p.initiator_depth = 4; p.retry_count = 6; p.rnr_retry_count = 0;
    if (rdma_accept(s->id, &p)) printf("accept errno=%d\n", errno);
    struct rdma_cm_event *e1 = next("event1"); rdma_ack_cm_event(e1);
    struct rdma_cm_event *e2 = next("event2"); rdma_ack_cm_event(e2);
}

int main(int argc, char **argv) {
    ch = rdma_create_event_channel();
    printf("== no listener\n");
    { struct side c = {0}; resolve(&c, 7990);
      struct rdma_conn_param p = {0}; p.private_data = "PD"; p.private_data_len = 2; p.responder_resources = 1; p.initiator_depth = 1;
      int rc = rdma_connect(c.id, &p); printf("connect rc=%d errno=%d\n", rc, rc ? errno : 0);
      if (!rc) rdma_ack_cm_event(next("client")); }
    struct side l = fresh(7991);
    printf("== reject\n");
    { struct side c = {0}, s = {0}; connect_pair(&c, &s, &l, 7991, "reject");
      if (rdma_reject(s.id, "PD-REJECT", 9)) printf("reject errno=%d\n", errno);
      rdma_ack_cm_event(next("client")); }
    printf("== accept + send without receive\n");

    l = fresh(7992);
    { struct side c = {0}, s = {0}; connect_pair(&c, &s, &l, 7992, "accept");
      accept_it(&s, &c);
      printf("qp ird/ord: ");
      struct ibv_qp_attr qa; struct ibv_qp_init_attr qi;
      ibv_query_qp(c.id->qp, &qa, IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC, &qi);
      printf("client ord(max_rd_atomic)=%d ird(max_dest_rd_atomic)=%d; ", qa.max_rd_atomic, qa.max_dest_rd_atomic);
      ibv_query_qp(s.id->qp, &qa, IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC, &qi);
      printf("server ord=%d ird=%d\n", qa.max_rd_atomic, qa.max_dest_rd_atomic);
      post(&c, IBV_WR_SEND, 100, 0, 0);
      poll_all("client", &c, 3000); poll_all("server", &s, 500); }
    printf("== message longer than receive\n");

    l = fresh(7993);
    { struct side c = {0}, s = {0}; connect_pair(&c, &s, &l, 7993, "long");
      post_recv(&s, 64);
      accept_it(&s, &c);
      post(&c, IBV_WR_SEND, 100, 0, 0);
      poll_all("client", &c, 3000); poll_all("server", &s, 500); }
    printf("== write with bad rkey\n");

    l = fresh(7994);
    { struct side c = {0}, s = {0}; connect_pair(&c, &s, &l, 7994, "badkey");
      accept_it(&s, &c);
      post(&c, IBV_WR_RDMA_WRITE, 100, (uintptr_t)s.buf, s.mr->rkey + 0x100);
      poll_all("client", &c, 3000); poll_all("server", &s, 500); }
    printf("== read with bad rkey\n");

    l = fresh(7995);
    { struct side c = {0}, s = {0}; connect_pair(&c, &s, &l, 7995, "badread");
      accept_it(&s, &c);
      post(&c, IBV_WR_RDMA_READ, 100, (uintptr_t)s.buf, s.mr->rkey + 0x100);
      poll_all("client", &c, 3000); poll_all("server", &s, 500); }
    printf("== done\n");
    return 0;
}
