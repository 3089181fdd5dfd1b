/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One hierarchical run of a centralised method (HIERARCHY, see
 * docs/hierarchy.md), in six collective steps:
 *  1. every bottom group gathers its objects on its root;
 *  2. a root whose group is above its target sheds objects worth the
 *     surplus (hier_select) as tokens: global ID, weights, size, and where
 *     the object came from;
 *  3. up the tree, each level's root receives one record per child (the
 *     room left below the child's target, whether it holds parts) and the
 *     tokens the child could not place, places them (hier_place) and
 *     passes the rest up; the top places everything;
 *  4. down the tree, each root sends every child the tokens placed into
 *     it, placing those that came from above among its children first;
 *  5. every bottom root runs the method on its kept objects and the tokens
 *     that reached it, with its group's parts only;
 *  6. the tokens' new parts go back to the roots they came from (zp_nbx),
 *     and every root scatters its group's answer.
 * No rank receives more than its group's objects, its children's records
 * and the tokens that pass through it.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_hier_internal.h"

static void zp_hrun_free(zp_hrun *x)
{
  int j;
  free(x->total);
  free(x->cnt);
  free(x->displ);
  /* gids, w, sizes, parts, take and answer are the struct's kept buffers. */
  free(x->lp);
  free(x->up);
  free(x->down);
  free(x->reply);
  free(x->nedges);
  free(x->estart);
  free(x->nbr);
  free(x->nbrp);
  free(x->ew);
  free(x->gadj_start);
  free(x->gadj);
  free(x->egroup);
  free(x->flowed);
  free(x->fin);
  free(x->fin_ne);
  free(x->fin_es);
  free(x->fin_nbr);
  free(x->fin_ew);
  for (j = 0; j <= HIER_MAX_LEVELS; j++) {
    free(x->lev[j].tok);
    free(x->lev[j].child);
    free(x->lev[j].room);
    free(x->lev[j].open);
    free(x->lev[j].slack);
  }
}

/* ---- step 1: the group's objects on its root ---------------------------------- */

static int zp_hier_gather(zp_hrun *x)
{
  zp_context *c = x->c;
  MPI_Comm g = x->h->group;
  int i, ierr = ZOLTAN_OK;
  long long n = 0;
  MPI_Comm_size(g, &x->gsize);
  if (x->groot) {
    x->cnt = malloc((size_t)x->gsize * sizeof *x->cnt);
    x->displ = malloc((size_t)x->gsize * sizeof *x->displ);
    if (x->cnt == NULL || x->displ == NULL) ierr = ZOLTAN_MEMERR;
  }
  MPI_Gather(&c->n, 1, MPI_INT, ierr == ZOLTAN_OK ? x->cnt : NULL, 1, MPI_INT, 0, g);
  for (i = 0; x->groot && ierr == ZOLTAN_OK && i < x->gsize; i++) {
    x->displ[i] = (int)n;
    n += x->cnt[i];
  }
  if (x->groot && ierr == ZOLTAN_OK) {
    if (n * (x->ngid > x->wdim ? x->ngid : x->wdim) > 2147483647LL) {
      zp_error(c->yo, "too much data to gather on one group's root (%lld objects)", n);
      ierr = ZOLTAN_FATAL;
    } else {
      size_t N = (size_t)n;
      zp_record *r = c->r;
      /* The struct's kept buffers: a group root balanced again reuses its
       * mapped pages instead of faulting fresh ones in (zp_internal.h). */
      x->n = N;
      x->gids = zp_record_scratch(r, ZP_SCR_GIDS, N * x->ngid * sizeof *x->gids);
      x->w = zp_record_scratch(r, ZP_SCR_WGTS, N * x->wdim * sizeof *x->w);
      x->parts = zp_record_scratch(r, ZP_SCR_PARTS, N * sizeof *x->parts);
      x->take = zp_record_scratch(r, ZP_SCR_H_TAKE, N);
      x->answer = zp_record_scratch(r, ZP_SCR_REPLY, N * sizeof *x->answer);
      if (x->with_sizes) x->sizes = zp_record_scratch(r, ZP_SCR_SIZES, N * sizeof *x->sizes);
      if (!x->gids || !x->w || !x->parts || !x->take || !x->answer || (x->with_sizes && !x->sizes))
        ierr = ZOLTAN_MEMERR;
      else
        memset(x->take, 0, N);
    }
  }
  ierr = zp_hier_agree(x, ierr);
  if (ierr < 0) return ierr;
  for (i = 0; x->groot && i < x->gsize; i++) {
    x->cnt[i] *= x->ngid;
    x->displ[i] *= x->ngid;
  }
  MPI_Gatherv(c->gids, c->n * x->ngid, ZOLTAN_ID_MPI_TYPE, x->gids, x->cnt, x->displ,
              ZOLTAN_ID_MPI_TYPE, 0, g);
  for (i = 0; x->groot && i < x->gsize; i++) {
    x->cnt[i] = x->cnt[i] / x->ngid * x->wdim;
    x->displ[i] = x->displ[i] / x->ngid * x->wdim;
  }
  MPI_Gatherv(c->w, c->n * x->wdim, MPI_DOUBLE, x->w, x->cnt, x->displ, MPI_DOUBLE, 0, g);
  for (i = 0; x->groot && i < x->gsize; i++) {
    x->cnt[i] /= x->wdim;
    x->displ[i] /= x->wdim;
  }
  MPI_Gatherv(c->parts, c->n, MPI_INT, x->parts, x->cnt, x->displ, MPI_INT, 0, g);
  if (x->with_sizes)
    MPI_Gatherv(c->sizes, c->n, MPI_DOUBLE, x->sizes, x->cnt, x->displ, MPI_DOUBLE, 0, g);
  return ierr;
}

/* ---- step 2: the group's parts, target and shed tokens ------------------------ */

static int zp_part_owner(const zp_context *c, int p) { return c->pdist ? c->pdist[p] : p; }

static int zp_is_member(const zp_hier_comms *h, int rank)
{
  int lo = 0, hi = h->nmembers;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (h->members[mid] == rank) return 1;
    if (h->members[mid] < rank)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

/* Root, for a refining method (hier_select_refine): each object's part in
 * the group's numbering, and each part's limit and target.  Local. */
static size_t zp_hier_refine_shed(zp_hrun *x, double w_total, const double *w0, size_t *order,
                                  double *shed)
{
  const zp_context *c = x->c;
  /* A kept buffer free until the solve (which uses it for the sorted
   * current parts). */
  int *part = zp_record_scratch(c->r, ZP_SCR_S_PARTS, x->n * sizeof *part), q;
  double *limit = malloc(((size_t)x->mq + 1) * sizeof *limit);
  double *target = malloc(((size_t)x->mq + 1) * sizeof *target);
  size_t k, n = (size_t)-1;
  if (part != NULL && limit != NULL && target != NULL) {
    for (k = 0; k < x->n; k++) part[k] = zp_local_part(x, x->parts[k]);
    for (q = 0; q < x->mq; q++) {
      target[q] = c->part_sizes[(size_t)x->lp[q] * x->wdim] * w_total;
      limit[q] = target[q] * c->tol[0];
    }
    n = hier_select_refine(w0, part, x->n, limit, target, x->mq, order, x->take, shed);
  }
  free(limit);
  free(target);
  return n;
}

/* Root: which parts are the group's (those of its members), the group's
 * target and the first weight of each object (x->w0).  Local; agreed by
 * the caller. */
static int zp_hier_target(zp_hrun *x)
{
  zp_context *c = x->c;
  size_t k;
  double target = 0.0, w_total;
  int p, d;
  /* A weight that is zero everywhere is counted instead, as the flat path
   * does (x->total holds the global sums). */
  for (d = 0; d < x->wdim; d++)
    if (x->total[d] == 0.0)
      for (k = 0; k < x->n; k++) x->w[k * x->wdim + d] = 1.0;
  x->lp = malloc(((size_t)c->nparts + 1) * sizeof *x->lp);
  if (x->lp == NULL) return ZOLTAN_MEMERR;
  for (p = 0; p < c->nparts; p++)
    if (zp_is_member(x->h, zp_part_owner(c, p))) {
      x->lp[x->mq++] = p;
      target += c->part_sizes[(size_t)p * x->wdim];
    }
  w_total = x->total[0] == 0.0 ? x->total[x->wdim] : x->total[0];
  x->target = target * w_total;
  x->open = x->mq > 0 && x->target > 0.0;
  x->w0 = x->w;
  if (x->wdim > 1) {
    double *w1 = zp_record_scratch(c->r, ZP_SCR_H_W0, x->n * sizeof *w1);
    if (w1 == NULL) return ZOLTAN_MEMERR;
    for (k = 0; k < x->n; k++) w1[k] = x->w[k * x->wdim];
    x->w0 = w1;
  }
  return ZOLTAN_OK;
}

/* Root: the tokens the group sheds, after what the flows sent and
 * brought (zp_hier_flow.c).  Local; agreed by the caller. */
static int zp_hier_bottom(zp_hrun *x)
{
  zp_context *c = x->c;
  size_t k, *order = NULL;
  double target = x->target, load = 0.0, shed = 0.0, w_total, amount;
  size_t nshed, t = 0;
  int ierr = ZOLTAN_OK, *near = NULL;
  double *masked = NULL;
  /* Kept buffers, free until the solve (which uses them for its order). */
  order = zp_record_scratch(c->r, ZP_SCR_ORDER, x->n * sizeof *order);
  if (order == NULL) return ZOLTAN_MEMERR;
  w_total = x->total[0] == 0.0 ? x->total[x->wdim] : x->total[0];
  for (k = 0; k < x->n; k++) load += x->w0[k];
  load += x->flow_in - x->flow_out;
  /* A group sheds its surplus, down to its target, so that the method's
   * tolerance inside the group is the tolerance over all groups.  A
   * refining method (ZP_REFINES) moves as little as the flat one: its
   * parts above the tolerance shed their excess, and what the group's own
   * room can hold stays (the tolerance inside the group is then rescaled to
   * mean the global one, zp_hier_solve.c); it takes tokens only within the
   * tolerance (slack). */
  amount = load > target ? load - target : 0.0;
  /* With flows, the group keeps the headroom they left it (their
   * tokens place the rest with regard to the graph; the tree's do not). */
  if (x->flowed != NULL) {
    double keep = target * zp_hier_flow_headroom(x);
    amount = load > keep ? load - keep : 0.0;
  }
  x->target = target;
  x->slack = (c->needs & ZP_REFINES) ? (c->tol[0] - 1.0) * target : 0.0;
  {
    const double *w0 = x->w0;
    hier_shed_mode mode = x->open ? HIER_SHED_CLOSE : HIER_SHED_ALL;
    /* A graph method's tokens are peeled from the group's border and say
     * which rank their edges lead to (zp_hier_graph.c); the others are the
     * heaviest objects, or a refining method's excess. */
    if (x->with_graph && !(c->needs & ZP_REFINES)) {
      /* Objects a flow sent are gone: they weigh nothing to this shed. */
      if (x->flowed != NULL) {
        masked = malloc((x->n + 1) * sizeof *masked);
        for (k = 0; masked != NULL && k < x->n; k++) masked[k] = x->flowed[k] ? 0.0 : w0[k];
        w0 = masked;
      }
      near = malloc((x->n + 1) * sizeof *near);
      nshed = near && w0 ? zp_hier_graph_shed(x, w0, amount, mode, order, near, &shed) : (size_t)-1;
      for (k = 0; nshed != (size_t)-1 && x->flowed != NULL && k < x->n; k++)
        if (x->flowed[k]) {
          nshed -= x->take[k];
          x->take[k] = 1;
        }
    } else if (!x->open || !(c->needs & ZP_REFINES)) {
      nshed = hier_select(w0, x->n, amount, mode, order, x->take, &shed);
    } else {
      nshed = zp_hier_refine_shed(x, w_total, w0, order, &shed);
    }
    free(masked);
    if (nshed == (size_t)-1) {
      free(near);
      return ZOLTAN_MEMERR;
    }
  }
  x->room = target - (load - shed);
  x->up = malloc(nshed * x->rec + 1);
  /* Each shed object's part comes back as one (index, part) pair, those
   * the flows sent included. */
  x->reply = malloc((2 * (nshed + x->nflowed) + 1) * sizeof *x->reply);
  if (x->up == NULL || x->reply == NULL) ierr = ZOLTAN_MEMERR;
  for (k = 0; ierr == ZOLTAN_OK && k < x->n; k++)
    if (x->take[k] && !(x->flowed && x->flowed[k]))
      zp_tok_put(x, x->up + (t++) * x->rec, k, c->r->rank, near ? near[k] : -1);
  x->nup = ierr == ZOLTAN_OK ? nshed : 0;
  free(near);
  return ierr;
}

/* ---- step 3: up the tree -------------------------------------------------------- */

/* The child of a level's root whose subtree holds rank origin: subtrees
 * are runs of consecutive ranks, each starting at its root. */
static int zp_child_of(const zp_hier_level *L, int origin)
{
  int c = 0;
  while (c + 1 < L->m && L->roots[c + 1] <= origin) c++;
  return c;
}

/* The child of a level's root that a token's near rank lies under, or -1
 * when that rank is outside the node's subtree (or the token names none). */
static int zp_near_child(const zp_hrun *x, const zp_hier_level *L, const unsigned char *t)
{
  int near = zp_tok_near(x, t);
  return near >= 0 && L->m > 0 && near >= L->roots[0] && near < L->end ? zp_child_of(L, near) : -1;
}

/* Root of level j: places the tokens its children passed up and keeps
 * what does not fit to pass on.  At the top every token is placed; for a
 * refining method, a token that fits nowhere within the tolerance goes
 * back home instead, where the flat method would have left it.  Local. */
static int zp_hier_place_up(zp_hrun *x, zp_hier_level *L, const double *recs, int top)
{
  size_t k, n = L->ntok, kept = 0;
  double *w0 = malloc((n + 1) * sizeof *w0);
  size_t *order = malloc((n + 1) * sizeof *order);
  int *heap = malloc(((size_t)L->m + 1) * sizeof *heap), c;
  int *near = malloc((n + 1) * sizeof *near);
  int refine = (x->c->needs & ZP_REFINES) != 0, ierr = ZOLTAN_OK;
  L->child = malloc((n + 1) * sizeof *L->child);
  L->room = malloc(((size_t)L->m + 1) * sizeof *L->room);
  L->slack = malloc(((size_t)L->m + 1) * sizeof *L->slack);
  L->open = malloc((size_t)L->m + 1);
  x->up = malloc(n * x->rec + 1);
  if (!w0 || !order || !heap || !near || !L->child || !L->room || !L->slack || !L->open || !x->up) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  x->open = 0;
  x->slack = 0.0;
  for (c = 0; c < L->m; c++) {
    L->room[c] = recs[4 * c];
    L->open[c] = recs[4 * c + 1] != 0.0;
    L->slack[c] = recs[4 * c + 3];
    x->open |= L->open[c];
    if (L->open[c]) x->slack += L->slack[c];
  }
  for (k = 0; k < n; k++) {
    w0[k] = zp_tok_w0(x, L->tok + k * x->rec);
    near[k] = zp_near_child(x, L, L->tok + k * x->rec);
  }
  (void)hier_place_near(w0, near, n, L->room, refine ? L->slack : NULL, L->open, L->m,
                        top && !refine, order, heap, L->child);
  for (k = 0; k < n; k++) {
    unsigned char *t = L->tok + k * x->rec;
    int origin, idx, home;
    if (L->child[k] >= 0) continue;
    if (top) {
      zp_tok_origin(x, t, &origin, &idx, &home);
      zp_tok_send_home(x, t);
      L->child[k] = zp_child_of(L, origin);
      continue;
    }
    memcpy(x->up + (kept++) * x->rec, t, x->rec);
  }
  x->nup = kept;
  x->room = hier_room(L->room, L->open, L->m);
End:
  free(w0);
  free(order);
  free(heap);
  free(near);
  return ierr;
}

/* Level j: the roots of level j - 1 send their record and tokens to their
 * node's root, which places them; its failures wait in x->pending for the
 * next agreement.  Collective (one agreement over the struct's
 * communicator; the gathers over up[j]). */
static int zp_hier_up(zp_hrun *x, int j)
{
  MPI_Comm u = x->h->up[j];
  zp_hier_level *L = &x->lev[j];
  double mine[4], *recs = x->h->recs[j];
  int *cnt = x->h->cnt[j], *displ = x->h->displ[j], me = -1, c, ierr = ZOLTAN_OK;
  long long bytes = 0;
  if (u != MPI_COMM_NULL) {
    MPI_Comm_rank(u, &me);
    L->m = x->h->m[j];
    L->roots = x->h->roots[j];
    L->end = x->h->end[j];
    mine[0] = x->room;
    mine[1] = x->open;
    mine[2] = (double)x->nup;
    mine[3] = x->slack;
    MPI_Gather(mine, 4, MPI_DOUBLE, recs, 4, MPI_DOUBLE, 0, u);
  }
  for (c = 0; me == 0 && c < L->m; c++) {
    displ[c] = (int)bytes;
    cnt[c] = (int)(recs[4 * c + 2] * (double)x->rec);
    bytes += cnt[c];
    L->ntok += (size_t)recs[4 * c + 2];
  }
  if (me == 0 && bytes > 2147483647LL) {
    zp_error(x->c->yo, "HIERARCHY: too many objects pass one level's root (%zu)", L->ntok);
    ierr = ZOLTAN_FATAL;
  } else if (me == 0 && (L->tok = malloc((size_t)bytes + 1)) == NULL) {
    ierr = ZOLTAN_MEMERR;
  }
  ierr = zp_hier_agree(x, ierr);
  if (ierr < 0 || u == MPI_COMM_NULL) return ierr;
  MPI_Gatherv(x->up, (int)(x->nup * x->rec), MPI_BYTE, L->tok, cnt, displ, MPI_BYTE, 0, u);
  free(x->up);
  x->up = NULL;
  x->nup = 0;
  if (me == 0) x->pending = zp_hier_place_up(x, L, recs, j == x->h->nup);
  return ierr;
}

/* ---- step 4: down the tree -------------------------------------------------------- */

/* Root of level j: the tokens for each child, packed child by child: those
 * it placed on the way up and those that came from above, placed now among
 * its children (every one of them: they were sent to this node).  Local. */
static int zp_hier_pack_down(zp_hrun *x, zp_hier_level *L, unsigned char **buf, int *cnt,
                             int *displ)
{
  size_t k, n = x->ndown, at = 0;
  double *w0 = malloc((n + 1) * sizeof *w0);
  size_t *order = malloc((n + 1) * sizeof *order);
  int *heap = malloc(((size_t)L->m + 1) * sizeof *heap), *dchild = malloc((n + 1) * sizeof(int));
  int c, ierr = ZOLTAN_OK;
  long long bytes = 0;
  if (!w0 || !order || !heap || !dchild) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  /* Tokens on their way home follow their origin; the others are placed
   * (all of them: they were sent to this node). */
  for (k = 0; k < n; k++) {
    int origin, idx, home;
    zp_tok_origin(x, x->down + k * x->rec, &origin, &idx, &home);
    w0[k] = home ? 0.0 : zp_tok_w0(x, x->down + k * x->rec);
    dchild[k] = home ? zp_child_of(L, origin) : -1;
  }
  {
    size_t placed = 0, want = 0;
    int *pick = malloc((n + 1) * sizeof *pick), *near = malloc((n + 1) * sizeof *near);
    double *pw = malloc((n + 1) * sizeof *pw);
    size_t *map = malloc((n + 1) * sizeof *map);
    if (pick == NULL || near == NULL || pw == NULL || map == NULL) {
      free(pick);
      free(near);
      free(pw);
      free(map);
      ierr = ZOLTAN_MEMERR;
      goto End;
    }
    for (k = 0; k < n; k++)
      if (dchild[k] < 0) {
        map[want] = k;
        near[want] = zp_near_child(x, L, x->down + k * x->rec);
        pw[want++] = w0[k];
      }
    placed = hier_place_near(pw, near, want, L->room, NULL, L->open, L->m, 1, order, heap, pick);
    for (k = 0; k < want; k++) dchild[map[k]] = pick[k];
    free(pick);
    free(near);
    free(pw);
    free(map);
    if (placed != want) {
      zp_error(x->c->yo, "HIERARCHY: objects sent to a group that holds no part");
      ierr = ZOLTAN_FATAL;
      goto End;
    }
  }
  for (c = 0; c < L->m; c++) cnt[c] = 0;
  for (k = 0; k < L->ntok; k++)
    if (L->child[k] >= 0) cnt[L->child[k]]++;
  for (k = 0; k < n; k++) cnt[dchild[k]]++;
  for (c = 0; c < L->m; c++) {
    displ[c] = (int)bytes;
    bytes += (long long)cnt[c] * (long long)x->rec;
  }
  if (bytes > 2147483647LL || (*buf = malloc((size_t)bytes + 1)) == NULL) {
    ierr = bytes > 2147483647LL ? ZOLTAN_FATAL : ZOLTAN_MEMERR;
    goto End;
  }
  for (c = 0; c < L->m; c++) {
    for (k = 0; k < L->ntok; k++)
      if (L->child[k] == c) memcpy(*buf + (at++) * x->rec, L->tok + k * x->rec, x->rec);
    for (k = 0; k < n; k++)
      if (dchild[k] == c) memcpy(*buf + (at++) * x->rec, x->down + k * x->rec, x->rec);
  }
  for (c = 0; c < L->m; c++) {
    cnt[c] *= (int)x->rec;
  }
End:
  free(w0);
  free(order);
  free(heap);
  free(dchild);
  return ierr;
}

/* Level j: every root of level j - 1 receives the tokens placed into its
 * subtree.  Collective (one agreement, which also carries the failures of
 * the placement before it). */
static int zp_hier_down(zp_hrun *x, int j)
{
  MPI_Comm u = x->h->up[j];
  zp_hier_level *L = &x->lev[j];
  unsigned char *buf = NULL;
  int *cnt = x->h->cnt[j], *displ = x->h->displ[j], me = -1, mine = 0, ierr = ZOLTAN_OK;
  if (u != MPI_COMM_NULL) {
    MPI_Comm_rank(u, &me);
    if (me == 0) {
      /* After a failed placement there is nothing sound to send. */
      ierr = x->pending < 0 ? x->pending : zp_hier_pack_down(x, L, &buf, cnt, displ);
      if (ierr < 0) memset(cnt, 0, (size_t)L->m * sizeof *cnt);
    }
    MPI_Scatter(cnt, 1, MPI_INT, &mine, 1, MPI_INT, 0, u);
    free(x->down);
    x->ndown = (size_t)mine / x->rec;
    if ((x->down = malloc((size_t)mine + 1)) == NULL) ierr = ZOLTAN_MEMERR;
  }
  ierr = zp_hier_agree(x, ierr);
  if (ierr >= 0 && u != MPI_COMM_NULL)
    MPI_Scatterv(buf, cnt, displ, MPI_BYTE, x->down, mine, MPI_BYTE, 0, u);
  free(buf);
  return ierr;
}

/* ---- the run ---------------------------------------------------------------------- */

/* The global weight totals (and, last, the object count), for the targets
 * and for weights that are zero everywhere, which are counted instead with
 * a warning, as in the flat path.  Collective. */
static int zp_hier_totals(zp_hrun *x, const double *given, int *warn)
{
  zp_context *c = x->c;
  int i, d, ierr;
  x->total = calloc((size_t)x->wdim + 1, sizeof *x->total);
  if (given != NULL && x->total != NULL) {
    /* The decision's allreduce summed them already (zp_hier.c). */
    memcpy(x->total, given, ((size_t)x->wdim + 1) * sizeof *x->total);
  } else {
    ierr = zp_agree(c, x->total != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
    if (ierr < 0) return ierr;
    for (i = 0; i < c->n; i++)
      for (d = 0; d < x->wdim; d++) x->total[d] += c->w[(size_t)i * x->wdim + d];
    x->total[x->wdim] = c->n;
    MPI_Allreduce(MPI_IN_PLACE, x->total, x->wdim + 1, MPI_DOUBLE, MPI_SUM, c->r->comm);
  }
  if (x->total == NULL) x->pending = ZOLTAN_MEMERR;
  for (d = 0; d < x->wdim; d++)
    if (x->total[d] == 0.0 && x->total[x->wdim] > 0.0) {
      if (c->r->rank == ZP_ROOT)
        zp_warn(c->yo, "total weight of dimension %d is zero; balancing object counts instead", d);
      *warn = 1;
    }
  return ZOLTAN_OK;
}

/* Root: every object of the group has its new part (none was lost on the
 * way).  Local. */
static int zp_hier_complete(const zp_hrun *x)
{
  size_t k;
  for (k = 0; k < x->n; k++)
    if (x->answer[k] < 0 || x->answer[k] >= x->c->nparts) {
      zp_error(x->c->yo, "HIERARCHY: an object of rank %d received no part", x->c->r->rank);
      return ZOLTAN_FATAL;
    }
  return ZOLTAN_OK;
}

int zp_run_hier(zp_context *c, zp_hier_comms *h, const double *totals, int *new_part)
{
  zp_hrun x;
  int j, sub = 0, warn = 0, *tok_part = NULL, ierr;
  memset(&x, 0, sizeof x);
  x.c = c;
  x.h = h;
  x.ngid = c->ngid;
  x.wdim = c->wdim;
  x.with_sizes = (c->needs & ZP_WANTS_SIZES) && c->sizes != NULL;
  x.with_graph = (c->needs & (ZP_NEEDS_GRAPH | ZP_WANTS_GRAPH)) && c->has_graph;
  x.edim = x.with_graph ? c->edge_wgt_dim : 0;
  x.rec = zp_tok_bytes(&x);
  MPI_Comm_rank(h->group, &sub);
  x.groot = sub == 0;
  /* Agreements: the gather's (which carries the totals' allocation), one
   * per level up and down (each carries the failures of the step before
   * it), the reply's (which carries the solve's) and the last. */
  ierr = zp_hier_totals(&x, totals, &warn);
  if (ierr >= 0) ierr = zp_hier_gather(&x);
  if (ierr >= 0 && x.with_graph) ierr = zp_hier_gather_graph(&x);
  if (ierr >= 0 && x.groot) {
    size_t k;
    for (k = 0; k < x.n; k++) x.answer[k] = -1;
    x.pending = zp_hier_target(&x);
  }
  if (ierr >= 0 && zp_hier_flows_on(&x)) ierr = zp_hier_flows(&x);
  if (ierr >= 0 && x.groot && x.pending == ZOLTAN_OK) x.pending = zp_hier_bottom(&x);
  for (j = 1; ierr >= 0 && j <= h->nup; j++) ierr = zp_hier_up(&x, j);
  for (j = h->nup; ierr >= 0 && j >= 1; j--) ierr = zp_hier_down(&x, j);
  if (ierr >= 0 && x.groot && x.nfin > 0) ierr = zp_hier_join_flows(&x);
  if (ierr >= 0 && x.groot && x.pending == ZOLTAN_OK) x.pending = zp_hier_solve(&x, &tok_part);
  if (ierr >= 0) ierr = zp_hier_reply(&x, tok_part);
  if (ierr >= 0) ierr = zp_agree(c, x.groot ? zp_hier_complete(&x) : ZOLTAN_OK);
  if (ierr >= 0)
    MPI_Scatterv(x.answer, x.cnt, x.displ, MPI_INT, new_part, c->n, MPI_INT, 0, h->group);
  free(tok_part);
  zp_hrun_free(&x);
  return ierr == ZOLTAN_OK && warn ? ZOLTAN_WARN : ierr;
}
