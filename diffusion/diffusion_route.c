/* SPDX-License-Identifier: BSD-3-Clause */
/* DIFFUSION's object routing: from the accumulated flows to a final rank
 * for every local object (diffusion_internal.h).
 *
 * The accumulated flow of a link is alpha w_ij (Phi_i - Phi_j), Phi being
 * the sum of the rounds' solved utilizations, so the links oriented from
 * the higher Phi to the lower one (ties: the lower rank number first) form a
 * graph without cycles.  A rank waits for the offers of its upstream
 * neighbours, then serves its downstream links: first with the offers it
 * received (forwarding), then with its own objects (diffusion_select, with
 * the locality costs).  What it does not pass on, it keeps, and it tells
 * each kept object's first owner where the object ends.  So an object
 * travels once, from its rank to its final one, where neighbour-only moves
 * would move the same load again at every hop; a rank holds its own objects
 * and the offers of its neighbours, never more. */
#include <stdlib.h>
#include <string.h>

#include "diffusion_core.h"
#include "diffusion_internal.h"

/* One object on offer: its load and where it lives now. */
typedef struct offer {
  double load; /* scalar load */
  int origin;  /* the rank that owns it before the call */
  int index;   /* its index among that rank's local objects */
} offer;

/* The per-call arrays of the routing, freed together. */
typedef struct route {
  double *phin;  /* the neighbours' potentials */
  double *q;     /* quota of each downstream link (0 elsewhere) */
  double *sent;  /* load forwarded on each link */
  int *role;     /* +1 downstream link (this rank sends), -1 upstream, 0 none */
  offer *pool;   /* offers received */
  int npool;     /* their number */
  int *pdest;    /* link chosen for each offer, -1 = kept */
  int *dest;     /* link chosen for each own object, -1 = stays */
  int *cnt;      /* offers sent on each link */
  offer **out;   /* the offers sent on each link */
  int *notified; /* 1 once an own object's final rank is known */
} route;

static void route_free(route *r, int nnbr)
{
  free(r->phin);
  free(r->q);
  free(r->sent);
  free(r->role);
  free(r->pool);
  free(r->pdest);
  free(r->dest);
  free(r->cnt);
  for (int j = 0; r->out != NULL && j < nnbr; j++) free(r->out[j]);
  free(r->out);
  free(r->notified);
}

/* Orientation and quotas of the links from the potentials. */
static void orient(dstate *d, route *r)
{
  diffusion_exchange_same(d, d->phi, r->phin);
  for (int j = 0; j < d->nnbr; j++) {
    int up = d->phi > r->phin[j] || (d->phi == r->phin[j] && d->rank < d->nbr[j]);
    /* Both ends see the same pair of potentials and exactly opposite
     * flows, so they agree on every link's role. */
    r->role[j] = up && d->acc[j] > 0.0 ? 1 : (!up && d->acc[j] < 0.0 ? -1 : 0);
    r->q[j] = r->role[j] > 0 ? d->acc[j] : 0.0;
  }
}

/* Receive one message of offers from each upstream neighbour.  A rank
 * short of memory still receives (into nothing) so that nobody waits for
 * it; the error is agreed later.  Returns a ZOLTAN_* code. */
static int receive_offers(dstate *d, route *r)
{
  int ierr = ZOLTAN_OK;
  for (int j = 0; j < d->nnbr; j++) {
    MPI_Status st;
    int bytes = 0, k;
    offer *grown;
    if (r->role[j] >= 0) continue;
    MPI_Probe(d->nbr[j], DIFFUSION_TAG_OFFER, d->comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    k = bytes / (int)sizeof(offer);
    grown = ierr == ZOLTAN_OK ? realloc(r->pool, ((size_t)r->npool + k + 1) * sizeof *grown) : NULL;
    if (grown == NULL) {
      /* Received and dropped, so that the sender is not left waiting. */
      char *scratch = malloc((size_t)bytes + 1);
      ierr = ZOLTAN_MEMERR;
      MPI_Recv(scratch, scratch ? bytes : 0, MPI_BYTE, d->nbr[j], DIFFUSION_TAG_OFFER, d->comm,
               MPI_STATUS_IGNORE);
      free(scratch);
      continue;
    }
    r->pool = grown;
    MPI_Recv(r->pool + r->npool, bytes, MPI_BYTE, d->nbr[j], DIFFUSION_TAG_OFFER, d->comm,
             MPI_STATUS_IGNORE);
    r->npool += k;
  }
  return ierr;
}

/* Serve the downstream links: the offers received first, then own
 * objects; fill r->out and send one message (maybe empty) on every
 * downstream link.  reqs receives the sends.  Returns a ZOLTAN_* code. */
static int serve_links(dstate *d, route *r, const double *s, int n, const double *cost,
                       double move_cost, MPI_Request *reqs)
{
  int ierr = ZOLTAN_OK, i, j;
  double *pl = malloc(((size_t)r->npool + 1) * sizeof *pl);
  if (pl == NULL) ierr = ZOLTAN_MEMERR;
  for (i = 0; pl != NULL && i < r->npool; i++) pl[i] = r->pool[i].load;
  if (ierr == ZOLTAN_OK && diffusion_select((size_t)r->npool, pl, d->nnbr, r->q, NULL, 0.0,
                                            r->pdest, r->sent) != DIFFUSION_OK)
    ierr = ZOLTAN_MEMERR;
  free(pl);
  for (j = 0; j < d->nnbr; j++) r->q[j] = r->q[j] > r->sent[j] ? r->q[j] - r->sent[j] : 0.0;
  if (ierr == ZOLTAN_OK &&
      diffusion_select((size_t)n, s, d->nnbr, r->q, cost, move_cost, r->dest, NULL) != DIFFUSION_OK)
    ierr = ZOLTAN_MEMERR;
  if (ierr != ZOLTAN_OK) {
    /* Nothing moves from here; downstream still gets its (empty) message. */
    for (i = 0; i < r->npool; i++) r->pdest[i] = -1;
    for (i = 0; i < n; i++) r->dest[i] = -1;
  }
  for (i = 0; i < r->npool; i++)
    if (r->pdest[i] >= 0) r->cnt[r->pdest[i]]++;
  for (i = 0; i < n; i++)
    if (r->dest[i] >= 0) r->cnt[r->dest[i]]++;
  for (j = 0; j < d->nnbr; j++) {
    r->out[j] = malloc(((size_t)r->cnt[j] + 1) * sizeof **r->out);
    if (r->out[j] == NULL) ierr = ZOLTAN_MEMERR;
    r->cnt[j] = 0;
  }
  for (i = 0; i < r->npool; i++)
    if (r->pdest[i] >= 0 && r->out[r->pdest[i]] != NULL)
      r->out[r->pdest[i]][r->cnt[r->pdest[i]]++] = r->pool[i];
  for (i = 0; i < n; i++)
    if (r->dest[i] >= 0 && r->out[r->dest[i]] != NULL) {
      offer o = {s[i], d->rank, i};
      r->out[r->dest[i]][r->cnt[r->dest[i]]++] = o;
    }
  for (j = 0; j < d->nnbr; j++) {
    reqs[j] = MPI_REQUEST_NULL;
    if (r->role[j] > 0)
      MPI_Isend(r->out[j], r->out[j] ? r->cnt[j] * (int)sizeof(offer) : 0, MPI_BYTE, d->nbr[j],
                DIFFUSION_TAG_OFFER, d->comm, &reqs[j]);
  }
  return ierr;
}

/* Order of kept offers: by first owner, then index. */
static int by_origin(const void *a, const void *b)
{
  const offer *x = a, *y = b;
  if (x->origin != y->origin) return x->origin < y->origin ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

/* A notification: pairs (index of an own object, its final rank). */
typedef struct notified_by {
  dstate *d;
  route *r;
  int *new_rank;
  int n;
  int ierr;
} notified_by;

static void recv_notice(void *data, const MPI_Status *st)
{
  notified_by *x = data;
  int count = 0, k, *in;
  MPI_Get_count(st, MPI_INT, &count);
  in = malloc(((size_t)count + 1) * sizeof *in);
  MPI_Recv(in, in ? count : 0, MPI_INT, st->MPI_SOURCE, DIFFUSION_TAG_NOTIFY, x->d->comm,
           MPI_STATUS_IGNORE);
  if (in == NULL) x->ierr = ZOLTAN_MEMERR;
  for (k = 0; in != NULL && k + 1 < count; k += 2)
    if (in[k] >= 0 && in[k] < x->n && x->r->dest[in[k]] >= 0 && !x->r->notified[in[k]]) {
      x->new_rank[in[k]] = in[k + 1];
      x->r->notified[in[k]] = 1;
    }
  free(in);
}

/* Tell the first owners of the kept offers that they end here, and learn
 * where this rank's own objects end: a non-blocking consensus, since a rank
 * does not know which ranks will write to it.  Returns a ZOLTAN_* code. */
static int notify(dstate *d, route *r, int *new_rank, int n)
{
  int nk = 0, ngroups = 0, i, k;
  offer *kept = malloc(((size_t)r->npool + 1) * sizeof *kept);
  int *msg = malloc((2 * (size_t)r->npool + 1) * sizeof *msg);
  MPI_Request *sreq = malloc(((size_t)r->npool + 1) * sizeof *sreq);
  notified_by x = {d, r, new_rank, n, ZOLTAN_OK};
  if (kept == NULL || msg == NULL || sreq == NULL) x.ierr = ZOLTAN_MEMERR;
  for (i = 0; x.ierr == ZOLTAN_OK && i < r->npool; i++)
    if (r->pdest[i] < 0) kept[nk++] = r->pool[i];
  qsort(kept, (size_t)nk, sizeof *kept, by_origin);
  for (i = 0; i < nk; i = k) {
    int first = 2 * i;
    for (k = i; k < nk && kept[k].origin == kept[i].origin; k++) {
      msg[2 * k] = kept[k].index;
      msg[2 * k + 1] = d->rank;
    }
    MPI_Issend(msg + first, 2 * (k - i), MPI_INT, kept[i].origin, DIFFUSION_TAG_NOTIFY, d->comm,
               &sreq[ngroups++]);
  }
  diffusion_nbx(d->comm, DIFFUSION_TAG_NOTIFY, ngroups, sreq, recv_notice, &x);
  free(kept);
  free(msg);
  free(sreq);
  return x.ierr;
}

int diffusion_route(dstate *d, const double *s, int n, const double *cost, double move_cost,
                    int forward, int *new_rank, long *moved)
{
  route r = {0};
  int ierr, i, m = d->nnbr + 1;
  MPI_Request *reqs = malloc((size_t)m * sizeof *reqs);
  r.phin = malloc((size_t)m * sizeof *r.phin);
  r.q = calloc((size_t)m, sizeof *r.q);
  r.sent = calloc((size_t)m, sizeof *r.sent);
  r.role = calloc((size_t)m, sizeof *r.role);
  r.cnt = calloc((size_t)m, sizeof *r.cnt);
  r.out = calloc((size_t)m, sizeof *r.out);
  r.dest = malloc(((size_t)n + 1) * sizeof *r.dest);
  r.notified = calloc((size_t)n + 1, sizeof *r.notified);
  r.pdest = NULL;
  ierr = reqs && r.phin && r.q && r.sent && r.role && r.cnt && r.out && r.dest && r.notified
             ? ZOLTAN_OK
             : ZOLTAN_MEMERR;
  if ((ierr = zp_agree_code(d->comm, ierr)) < 0) goto End;
  *moved = 0;
  if (!forward) {
    /* Neighbour-only moves: every rank sends its own objects over every
     * link whose flow leaves it, and the receiver keeps them.  No order of
     * the ranks is needed (GDE's flows may run in circles). */
    for (i = 0; i < d->nnbr; i++) r.q[i] = d->acc[i] > 0.0 ? d->acc[i] : 0.0;
    ierr =
        diffusion_select((size_t)n, s, d->nnbr, r.q, cost, move_cost, r.dest, NULL) == DIFFUSION_OK
            ? ZOLTAN_OK
            : ZOLTAN_MEMERR;
    for (i = 0; i < n; i++) {
      new_rank[i] = ierr == ZOLTAN_OK && r.dest[i] >= 0 ? d->nbr[r.dest[i]] : d->rank;
      *moved += new_rank[i] != d->rank;
    }
    ierr = zp_agree_code(d->comm, ierr);
    goto End;
  }
  orient(d, &r);
  ierr = receive_offers(d, &r);
  r.pdest = malloc(((size_t)r.npool + 1) * sizeof *r.pdest);
  if (r.pdest == NULL) {
    ierr = ZOLTAN_MEMERR;
    r.npool = 0; /* nothing is forwarded or kept from the offers */
    r.pdest = malloc(sizeof *r.pdest);
  }
  if (serve_links(d, &r, s, n, cost, move_cost, reqs) != ZOLTAN_OK) ierr = ZOLTAN_MEMERR;
  diffusion_wait_all(d->nnbr, reqs);
  for (i = 0; i < n; i++) new_rank[i] = d->rank;
  if (notify(d, &r, new_rank, n) != ZOLTAN_OK) ierr = ZOLTAN_MEMERR;
  for (i = 0; i < n; i++) {
    /* Every object sent is kept by exactly one rank downstream. */
    if (r.dest[i] >= 0 && !r.notified[i] && ierr == ZOLTAN_OK) ierr = ZOLTAN_FATAL;
    *moved += new_rank[i] != d->rank;
  }
  ierr = zp_agree_code(d->comm, ierr);
  if (ierr < 0)
    for (i = 0; i < n; i++) new_rank[i] = d->rank;
End:
  free(reqs);
  route_free(&r, d->nnbr);
  return ierr;
}
