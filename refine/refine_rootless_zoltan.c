/* SPDX-License-Identifier: BSD-3-Clause */
/* REFINE_DISTRIBUTED=2 on MPI: see refine_rootless_zoltan.h and, for the
 * arithmetic, refine_rootless.h. */
#include "refine_rootless_zoltan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "refine_rootless.h"

/* Tags of the three exchanges on the layer's private communicator: a rank
 * may start the next exchange while another still receives the last one. */
#define TAG_INTERVALS 7101
#define TAG_TRANSFERS 7102
#define TAG_AMOUNTS   7103

/* One message received: where from, and its bytes. */
typedef struct inbox_msg {
  int src, bytes;
  unsigned char *data;
} inbox_msg;

typedef struct inbox {
  inbox_msg *m;
  int n, cap;
  long bytes; /* all bytes received */
  int oom;    /* 1 when a message could not be stored */
} inbox;

static void inbox_free(inbox *b)
{
  for (int i = 0; i < b->n; i++) free(b->m[i].data);
  free(b->m);
  memset(b, 0, sizeof *b);
}

/* What keep_message needs besides the inbox. */
typedef struct inbox_recv {
  inbox *in;
  MPI_Comm comm;
  int tag;
} inbox_recv;

static int by_src(const void *a, const void *b)
{
  const inbox_msg *x = a, *y = b;
  return x->src - y->src;
}

/* zp_nbx's callback: one message kept in the inbox (or, when memory is
 * short, received and dropped, with the shortage noted). */
static void keep_message(void *data, const MPI_Status *s)
{
  inbox_recv *r = data;
  inbox *in = r->in;
  int cnt = 0;
  unsigned char *buf;
  MPI_Get_count(s, MPI_BYTE, &cnt);
  buf = malloc((size_t)cnt + 1);
  if (in->n == in->cap) {
    int cap = in->cap ? 2 * in->cap : 8;
    inbox_msg *m = realloc(in->m, (size_t)cap * sizeof *m);
    if (m) {
      in->m = m;
      in->cap = cap;
    }
  }
  /* A message that cannot be kept is still received, so that its sender's
   * Issend ends, and the shortage is reported. */
  MPI_Recv(buf, buf ? cnt : 0, MPI_BYTE, s->MPI_SOURCE, r->tag, r->comm, MPI_STATUS_IGNORE);
  if (buf && in->n < in->cap) {
    in->m[in->n].src = s->MPI_SOURCE;
    in->m[in->n].bytes = cnt;
    in->m[in->n].data = buf;
    in->n++;
    in->bytes += cnt;
  } else {
    in->oom = 1;
    free(buf);
  }
}

/*
 * One sparse exchange (the layer's zp_nbx): synchronous sends of the
 * messages, every message addressed to this rank kept in in, sorted by
 * source so that what is done with them does not depend on their arrival
 * order.  Collective.
 */
static void exchange(MPI_Comm comm, int tag, int nsend, const int *dest, const int *bytes,
                     void *const *data, inbox *in)
{
  MPI_Request *req = malloc(((size_t)nsend + 1) * sizeof *req);
  inbox_recv r = {in, comm, tag};
  memset(in, 0, sizeof *in);
  /* Without request slots nothing is sent: the rank reports running out of
   * memory, which every rank agrees on after the exchange. */
  if (req == NULL) {
    in->oom = 1;
    nsend = 0;
  }
  for (int k = 0; k < nsend; k++)
    MPI_Issend(data[k], bytes[k], MPI_BYTE, dest[k], tag, comm, &req[k]);
  zp_nbx(comm, tag, nsend, req, keep_message, &r);
  free(req);
  if (in->n > 1) qsort(in->m, (size_t)in->n, sizeof *in->m, by_src);
}

/* The worst of a flag over ranks (1 = some rank failed). */
static int any(MPI_Comm comm, int flag)
{
  int out = 0;
  MPI_Allreduce(&flag, &out, 1, MPI_INT, MPI_MAX, comm);
  return out;
}

/* An interval on its way to a block owner. */
typedef struct wire_interval {
  double lo, hi, slack;
  int rank, donor;
} wire_interval;

/* A transfer on its way to its donor. */
typedef struct wire_transfer {
  double amount, slack;
  int receiver, pad;
} wire_transfer;

/* Everything one call allocates. */
typedef struct rbufs {
  double *load, *tot, *quota, *over, *sent;
  int *dest, *dests, *bytes, *recv_rank;
  void **data;
  wire_interval *mine;
  wire_transfer *tr_out;
  refine_interval *d, *r;
  refine_transfer *tr;
  inbox in1, in2, in3;
} rbufs;

static void rbufs_free(rbufs *b)
{
  void *p[] = {b->load,      b->tot,  b->quota, b->over,   b->sent, b->dest, b->dests, b->bytes,
               b->recv_rank, b->data, b->mine,  b->tr_out, b->d,    b->r,    b->tr};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
  inbox_free(&b->in1);
  inbox_free(&b->in2);
  inbox_free(&b->in3);
}

/* The combined load of each local object (the sum of its shares of every
 * weight dimension when there are several, as REFINE combines them) and
 * this rank's target; *total is the load over all ranks. */
static int local_loads(zp_context *ctx, rbufs *b, int n, double *mine, double *target,
                       double *total)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  int wdim = zp_ctx_wgt_dim(ctx), me;
  const double *w = zp_ctx_local_wgts(ctx), *ps = zp_ctx_part_sizes(ctx);
  double *t = calloc((size_t)wdim, sizeof *t), share = 0.0;
  MPI_Comm_rank(comm, &me);
  b->tot = calloc((size_t)wdim, sizeof *b->tot);
  b->load = malloc(((size_t)n + 1) * sizeof *b->load);
  if (any(comm, !t || !b->tot || !b->load)) {
    free(t);
    return ZOLTAN_MEMERR;
  }
  for (int i = 0; i < n; i++)
    for (int d = 0; d < wdim; d++) t[d] += w[(size_t)i * wdim + d];
  MPI_Allreduce(t, b->tot, wdim, MPI_DOUBLE, MPI_SUM, comm);
  free(t);
  *mine = 0.0;
  for (int i = 0; i < n; i++) {
    double l = 0.0;
    if (wdim == 1)
      l = w[i];
    else
      for (int d = 0; d < wdim; d++)
        l += b->tot[d] > 0.0 ? w[(size_t)i * wdim + d] / b->tot[d] : 0.0;
    b->load[i] = l;
    *mine += l;
  }
  for (int d = 0; d < wdim; d++) share += ps[(size_t)me * wdim + d];
  share /= wdim;
  MPI_Allreduce(mine, total, 1, MPI_DOUBLE, MPI_SUM, comm);
  *target = share * *total;
  return ZOLTAN_OK;
}

static double relative(double load, double target)
{
  return target > 0.0 ? load / target : (load > 0.0 ? HUGE_VAL : 0.0);
}

/* Room for m outgoing messages of the next exchange (the last one's
 * buffers are done with). */
static int outbox(rbufs *b, size_t m)
{
  free(b->dests);
  free(b->bytes);
  free(b->data);
  b->dests = malloc((m + 1) * sizeof *b->dests);
  b->bytes = malloc((m + 1) * sizeof *b->bytes);
  b->data = malloc((m + 1) * sizeof *b->data);
  return b->dests && b->bytes && b->data ? ZOLTAN_OK : ZOLTAN_MEMERR;
}

/* Exchange 1: this rank's interval to the owners of the blocks it covers. */
static int send_intervals(MPI_Comm comm, rbufs *b, double lo, double hi, double slack, int donor,
                          double block, int P, int me)
{
  int first, last, k = 0;
  refine_rootless_blocks(lo, hi, block, P, &first, &last);
  int nsend = last >= first ? last - first + 1 : 0;
  b->mine = malloc(sizeof *b->mine);
  b->dests = malloc(((size_t)nsend + 1) * sizeof *b->dests);
  b->bytes = malloc(((size_t)nsend + 1) * sizeof *b->bytes);
  b->data = malloc(((size_t)nsend + 1) * sizeof *b->data);
  if (!b->mine || !b->dests || !b->bytes || !b->data) nsend = 0;
  if (b->mine) {
    b->mine->lo = lo;
    b->mine->hi = hi;
    b->mine->slack = slack;
    b->mine->rank = me;
    b->mine->donor = donor;
  }
  for (int q = first; q <= last && nsend > 0; q++, k++) {
    b->dests[k] = q;
    b->bytes[k] = (int)sizeof *b->mine;
    b->data[k] = b->mine;
  }
  exchange(comm, TAG_INTERVALS, nsend, b->dests, b->bytes, b->data, &b->in1);
  return any(comm, b->in1.oom || !b->mine || !b->dests || !b->bytes || !b->data) ? ZOLTAN_MEMERR
                                                                                 : ZOLTAN_OK;
}

/* As a block owner: the transfers in this rank's block, sent to their
 * donors (exchange 2). */
static int match_block(MPI_Comm comm, rbufs *b, double block, int P, int me)
{
  size_t nd = 0, nr = 0, nt, m = 0;
  int oom = 0, nsend = 0;
  for (int k = 0; k < b->in1.n; k++) m += (size_t)b->in1.m[k].bytes / sizeof(wire_interval);
  b->d = malloc((m + 1) * sizeof *b->d);
  b->r = malloc((m + 1) * sizeof *b->r);
  b->tr = malloc((m + 1) * sizeof *b->tr);
  b->tr_out = malloc((m + 1) * sizeof *b->tr_out);
  if (outbox(b, m) != ZOLTAN_OK) oom = 1;
  if (!b->d || !b->r || !b->tr || !b->tr_out) oom = 1;
  /* Messages are sorted by source, and a rank sends one interval: the
   * donors and the receivers each come in rank order, which is line order. */
  for (int k = 0; !oom && k < b->in1.n; k++) {
    const wire_interval *x = (const wire_interval *)b->in1.m[k].data;
    refine_interval iv = {x->lo, x->hi, x->slack, x->rank};
    if (x->donor)
      b->d[nd++] = iv;
    else
      b->r[nr++] = iv;
  }
  nt = oom ? 0
           : refine_rootless_match(me * block, me == P - 1 ? HUGE_VAL : (me + 1) * block, b->d, nd,
                                   b->r, nr, b->tr);
  /* Transfers come out in line order, so a donor's are consecutive. */
  for (size_t t = 0; t < nt; t++) {
    b->tr_out[t].amount = b->tr[t].amount;
    b->tr_out[t].slack = b->tr[t].slack;
    b->tr_out[t].receiver = b->tr[t].receiver;
    b->tr_out[t].pad = 0;
    if (t == 0 || b->tr[t].donor != b->tr[t - 1].donor) {
      b->dests[nsend] = b->tr[t].donor;
      b->bytes[nsend] = 0;
      b->data[nsend] = &b->tr_out[t];
      nsend++;
    }
    b->bytes[nsend - 1] += (int)sizeof *b->tr_out;
  }
  exchange(comm, TAG_TRANSFERS, nsend, b->dests, b->bytes, b->data, &b->in2);
  return any(comm, oom || b->in2.oom) ? ZOLTAN_MEMERR : ZOLTAN_OK;
}

/* As a donor: the quota of each receiver, the objects that meet them, and
 * the amounts sent, told to the receivers (exchange 3).  *given counts the
 * objects given, *sent_total their load. */
static int give(MPI_Comm comm, rbufs *b, int n, int me, int *new_part, long *given,
                double *sent_total, long *nrecv)
{
  size_t m = 0;
  int k = 0, oom = 0, nsend = 0;
  for (int q = 0; q < b->in2.n; q++) m += (size_t)b->in2.m[q].bytes / sizeof(wire_transfer);
  b->quota = malloc((m + 1) * sizeof *b->quota);
  b->over = malloc((m + 1) * sizeof *b->over);
  b->sent = malloc((m + 1) * sizeof *b->sent);
  b->recv_rank = malloc((m + 1) * sizeof *b->recv_rank);
  b->dest = malloc(((size_t)n + 1) * sizeof *b->dest);
  if (outbox(b, m) != ZOLTAN_OK) oom = 1;
  if (!b->quota || !b->over || !b->sent || !b->recv_rank || !b->dest) oom = 1;
  /* Block owners in rank order give the transfers in line order; a
   * receiver that spans two blocks appears twice in a row. */
  for (int q = 0; !oom && q < b->in2.n; q++) {
    const wire_transfer *t = (const wire_transfer *)b->in2.m[q].data;
    int cnt = b->in2.m[q].bytes / (int)sizeof *t;
    for (int j = 0; j < cnt; j++) {
      if (k > 0 && b->recv_rank[k - 1] == t[j].receiver) {
        b->quota[k - 1] += t[j].amount;
        b->over[k - 1] += t[j].slack;
      } else {
        b->recv_rank[k] = t[j].receiver;
        b->quota[k] = t[j].amount;
        b->over[k] = t[j].slack;
        k++;
      }
    }
  }
  *given = 0;
  *sent_total = 0.0;
  if (!oom && k > 0) {
    long g = refine_fill_quotas((size_t)n, b->load, k, b->quota, b->over, b->dest, b->sent);
    if (g < 0) oom = 1;
    *given = g < 0 ? 0 : g;
  }
  for (int i = 0; i < n; i++)
    new_part[i] = !oom && k > 0 && b->dest[i] >= 0 ? b->recv_rank[b->dest[i]] : me;
  for (int j = 0; !oom && j < k; j++) {
    *sent_total += b->sent[j];
    if (b->sent[j] <= 0.0) continue;
    b->dests[nsend] = b->recv_rank[j];
    b->bytes[nsend] = (int)sizeof(double);
    b->data[nsend] = &b->sent[j];
    nsend++;
  }
  *nrecv = k;
  exchange(comm, TAG_AMOUNTS, nsend, b->dests, b->bytes, b->data, &b->in3);
  return any(comm, oom || b->in3.oom) ? ZOLTAN_MEMERR : ZOLTAN_OK;
}

int refine_rootless_run(zp_context *ctx, double tol, int *new_part, refine_rootless_stats *st)
{
  MPI_Comm comm = zp_ctx_comm(ctx);
  int n = zp_ctx_num_local(ctx), me, P, ierr;
  double L = 0.0, T = 0.0, total = 0.0, e, c, slack, v[2], pre[2] = {0.0, 0.0}, sums[2], rel[2],
         mx[2];
  double sent_total = 0.0, got = 0.0, after;
  long given = 0, nrecv = 0, cnt[4], csum[4], bmax = 0;
  rbufs b;
  memset(&b, 0, sizeof b);
  memset(st, 0, sizeof *st);
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &P);
  for (int i = 0; i < n; i++) new_part[i] = me;
  ierr = local_loads(ctx, &b, n, &L, &T, &total);
  if (ierr != ZOLTAN_OK) goto end;
  refine_rootless_role(L, T, tol, &e, &c, &slack);
  v[0] = e;
  v[1] = c;
  MPI_Exscan(v, pre, 2, MPI_DOUBLE, MPI_SUM, comm);
  if (me == 0) pre[0] = pre[1] = 0.0;
  MPI_Allreduce(v, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  rel[0] = relative(L, T);
  MPI_Allreduce(rel, mx, 1, MPI_DOUBLE, MPI_MAX, comm);
  st->imbalance_before = st->imbalance_after = mx[0];
  if (!(sums[0] > 0.0) || !(sums[1] > 0.0)) goto end; /* nothing to shed, or nowhere to */
  {
    double E = sums[0], scale = E / sums[1], block = E / P;
    double lo = e > 0.0 ? pre[0] : pre[1] * scale, hi = e > 0.0 ? pre[0] + e : (pre[1] + c) * scale;
    ierr = send_intervals(comm, &b, lo, hi, slack, e > 0.0, block, P, me);
    if (ierr == ZOLTAN_OK) ierr = match_block(comm, &b, block, P, me);
    if (ierr == ZOLTAN_OK) ierr = give(comm, &b, n, me, new_part, &given, &sent_total, &nrecv);
    if (ierr != ZOLTAN_OK) goto end;
  }
  for (int q = 0; q < b.in3.n; q++) {
    double a;
    memcpy(&a, b.in3.m[q].data, sizeof a);
    got += a;
  }
  after = relative(L - sent_total + got, T);
  MPI_Allreduce(&after, &mx[1], 1, MPI_DOUBLE, MPI_MAX, comm);
  st->imbalance_after = mx[1];
  if (mx[1] > mx[0] * (1.0 + 1e-12)) {
    /* Never worse than the input: every object stays. */
    for (int i = 0; i < n; i++) new_part[i] = me;
    st->kept_input = 1;
    st->imbalance_after = mx[0];
    given = 0;
  }
  cnt[0] = given;
  cnt[1] = e > 0.0;
  cnt[2] = got > 0.0;
  cnt[3] = nrecv;
  MPI_Allreduce(cnt, csum, 4, MPI_LONG, MPI_SUM, comm);
  st->moved = csum[0];
  st->donors = csum[1];
  st->receivers = csum[2];
  st->transfers = csum[3];
  {
    long mine = b.in1.bytes + b.in2.bytes + b.in3.bytes;
    MPI_Allreduce(&mine, &bmax, 1, MPI_LONG, MPI_MAX, comm);
    st->max_bytes = bmax;
  }
end:
  if (ierr != ZOLTAN_OK)
    for (int i = 0; i < n; i++) new_part[i] = me;
  rbufs_free(&b);
  return ierr;
}
