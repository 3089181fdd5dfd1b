/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Centralised methods that read the weights in weight order only
 * (zp_method.partition_sorted: GREEDY).  zp_run_serial gathers every object
 * on the root (IDs, weights, parts) and the method sorts them there.  Here
 * every rank sorts its own weights heaviest first, all at the same time; the
 * root receives the sorted weights and merges them; the method runs on the
 * merged order; and each rank gets back the new parts in its own sorted
 * order.  REMAP's shared weights are summed where the objects are, and only
 * the sums travel (zp_remap_parallel).
 *
 * A method that also reads where the objects are now (ZP_SORTED_PARTS:
 * REFINE, GREEDYREFINE) gets the current parts beside the weights, in the
 * same order (4 more bytes per object).  A method that merges the runs as
 * it reads them (ZP_SORTED_RUNS: GREEDY) gets them unmerged and answers in
 * their layout, so that the root keeps neither a merged copy nor the map
 * back to the ranks.
 *
 * The answer is zp_run_serial's, bit for bit.  That run sorts by global ID
 * before the method sorts by weight, so equal weights go in ID order; here
 * the merge must break ties the same way, in one of two modes:
 *  - blocks: every rank's IDs increase and come after those of the ranks
 *    before it (objects numbered rank by rank, before any migration).  Then
 *    the lower rank holds the smaller ID, only the weights travel (8 bytes
 *    per object), and IDs are unique as they stand.
 *  - IDs: any order, single-entry IDs within a span of at most 8 times the
 *    number of objects (numbered 0..N-1, 1..N, or with gaps).  Each rank puts
 *    its equal weights in ID order, the IDs travel beside the weights
 *    (8 more bytes per object), the merge compares them on equal weights,
 *    and the root checks that no ID is given twice with one bit per ID of
 *    the span (the gathered run's check, with its message).
 * Every sum that the answer compares is a reproducible sum (greedy_util.h),
 * whose value does not depend on how the objects were split over ranks.
 * When neither mode applies (IDs of several entries or too sparse, more than
 * INT_MAX objects, every weight zero), every rank returns without running
 * and the caller gathers as before.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "greedy_util.h"
#include "zp_partition_internal.h"

/* What each rank tells the others before anything else. */
enum {
  ZP_SR_N,     /* its object count */
  ZP_SR_ORDER, /* 1 when its IDs increase strictly */
  ZP_SR_MAX,   /* its largest weight */
  ZP_SR_ERR,   /* 1 when memory ran out here */
  ZP_SR_IDS,   /* 1 when its IDs have one entry each, below 2^53 (exact in
                  a double) */
  ZP_SR_GMIN,  /* its smallest ID, when ZP_SR_IDS */
  ZP_SR_GMAX,  /* its largest ID, when ZP_SR_IDS */
  ZP_SR_FIELDS
};

/* How ties between ranks are broken (see the top of the file). */
enum { ZP_SORTED_NONE, ZP_SORTED_BLOCKS, ZP_SORTED_IDS };

/* The IDs mode's largest span of IDs per object: the root's bitmap then
 * holds at most one byte per object. */
#define ZP_SORTED_SPAN 8.0

/* The layout every rank derives from the exchanged records, and this
 * rank's sorted objects. */
typedef struct zp_sorted {
  int P;            /* ranks */
  int mode;         /* ZP_SORTED_* */
  int in_order;     /* 1 when this rank's IDs increase */
  int *cnt;         /* objects of each rank */
  int *displ;       /* index of each rank's first object among all */
  size_t num_obj;   /* objects of all ranks */
  double max_w;     /* the largest weight of all */
  double gmin;      /* the smallest ID of all (IDs mode) */
  double gspan;     /* largest ID - smallest ID + 1 (IDs mode) */
  size_t *order;    /* local: the local objects heaviest first */
  double *sorted_w; /* local: their weights in that order */
  uint64_t *ids;    /* local: their IDs in that order (IDs mode), or NULL */
  int *parts;       /* local: their current parts in that order
                       (ZP_SORTED_PARTS), or NULL */
  int *reply;       /* local: their new parts in that order (in sorted_w's
                       buffer, once the weights are sent; on the root, its
                       share of the answer it scatters in place) */
} zp_sorted;

/* Whether the method and the call's settings allow the sorted path; the
 * same on every rank (the settings are agreed). */
static int zp_sorted_wanted(const zp_context *c)
{
  const unsigned inputs = ZP_NEEDS_GEOM | ZP_NEEDS_GRAPH | ZP_WANTS_GEOM | ZP_WANTS_GRAPH |
                          ZP_GATHER_CANDIDATES | ZP_WANTS_SIZES;
  /* A graph wanted (REFINE_COMM_AWARE) or candidates only
   * (REFINE_DISTRIBUTED) take the gathered run. */
  return c->r->method->partition_sorted != NULL && c->wdim == 1 && !(c->needs & inputs) &&
         c->mem_limit == NULL;
}

/* Local: this rank's record (err: memory ran out here). */
static void zp_sorted_record(const zp_context *c, const zp_sorted *s, int err, double *rec)
{
  int i;
  double lo = 0.0, hi = 0.0, top = 0.0;
  /* The weights are checked finite and >= 0, so the largest is the maximum
   * from 0. */
  for (i = 0; i < c->n; i++) top = c->w[i] > top ? c->w[i] : top;
  rec[ZP_SR_N] = c->n;
  rec[ZP_SR_ORDER] = s->in_order;
  rec[ZP_SR_MAX] = top;
  rec[ZP_SR_ERR] = err;
  rec[ZP_SR_IDS] = c->ngid == 1;
  for (i = 0; c->ngid == 1 && i < c->n; i++) {
    double g = (double)c->gids[i];
    if (i == 0 || g < lo) lo = g;
    if (i == 0 || g > hi) hi = g;
  }
  if (hi >= 0x1p53) rec[ZP_SR_IDS] = 0;
  rec[ZP_SR_GMIN] = lo;
  rec[ZP_SR_GMAX] = hi;
}

/* From every rank's record and first and last IDs (ends; NULL when the
 * records' smallest and largest IDs stand for them): the counts, the
 * displacements and the mode, the same on every rank. */
static int zp_sorted_mode(const zp_context *c, zp_sorted *s, const double *all,
                          const ZOLTAN_ID_TYPE *ends)
{
  int r, prev = -1, blocks = 1, ids = c->ngid == 1, g = c->ngid, seen = 0;
  long long total = 0;
  double lo = 0.0, hi = 0.0;
  s->max_w = 0.0;
  for (r = 0; r < s->P; r++) {
    const double *a = all + (size_t)r * ZP_SR_FIELDS;
    s->cnt[r] = (int)a[ZP_SR_N];
    s->displ[r] = (int)total;
    total += s->cnt[r];
    if (a[ZP_SR_MAX] > s->max_w) s->max_w = a[ZP_SR_MAX];
    if (s->cnt[r] == 0) continue;
    if (a[ZP_SR_ORDER] == 0.0) blocks = 0;
    if (a[ZP_SR_IDS] == 0.0) ids = 0;
    if (!seen || a[ZP_SR_GMIN] < lo) lo = a[ZP_SR_GMIN];
    if (!seen || a[ZP_SR_GMAX] > hi) hi = a[ZP_SR_GMAX];
    seen = 1;
    /* The first ID of this rank must follow the last one of the previous
     * rank that has objects.  Without ends, the records' smallest and
     * largest IDs are exact and say the same of ranks whose IDs increase
     * (any other rank ends the blocks mode anyway). */
    if (prev >= 0 && ends != NULL &&
        zp_gid_cmp(ends + ((size_t)prev * 2 + 1) * g, ends + (size_t)r * 2 * g, g) >= 0)
      blocks = 0;
    if (prev >= 0 && ends == NULL && all[(size_t)prev * ZP_SR_FIELDS + ZP_SR_GMAX] >= a[ZP_SR_GMIN])
      blocks = 0;
    prev = r;
  }
  s->num_obj = (size_t)total;
  s->gmin = lo;
  s->gspan = hi - lo + 1.0;
  /* Every weight zero is zp_run_serial's to warn about (it then counts
   * objects), and MPI's counts are ints. */
  if (total == 0 || total > INT_MAX || !(s->max_w > 0.0)) return ZP_SORTED_NONE;
  if (blocks) return ZP_SORTED_BLOCKS;
  if (ids && s->gspan <= ZP_SORTED_SPAN * (double)total) return ZP_SORTED_IDS;
  return ZP_SORTED_NONE;
}

/* Whether the records' smallest and largest IDs stand for every rank's
 * first and last ones in zp_sorted_mode: single-entry IDs, exact in a
 * double on every rank with objects.  The same on every rank. */
static int zp_sorted_ends_in_records(const zp_context *c, const double *all)
{
  int r;
  if (c->ngid != 1) return 0;
  for (r = 0; r < c->r->size; r++)
    if (all[(size_t)r * ZP_SR_FIELDS + ZP_SR_N] > 0.0 &&
        all[(size_t)r * ZP_SR_FIELDS + ZP_SR_IDS] == 0.0)
      return 0;
  return 1;
}

/* Every rank's first and last IDs into *ends (NULL after an error, the
 * same on every rank).  Collective; the outcome is agreed. */
static int zp_sorted_ends(const zp_context *c, ZOLTAN_ID_TYPE **ends)
{
  int g = c->ngid, ierr;
  ZOLTAN_ID_TYPE *my_ends = calloc(2 * (size_t)g, sizeof *my_ends);
  *ends = malloc((size_t)c->r->size * 2 * (size_t)g * sizeof **ends);
  ierr = zp_agree(c, *ends != NULL && my_ends != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr >= 0 && c->n > 0) {
    memcpy(my_ends, c->gids, (size_t)g * sizeof *my_ends);
    memcpy(my_ends + g, c->gids + (size_t)(c->n - 1) * g, (size_t)g * sizeof *my_ends);
  }
  if (ierr >= 0)
    MPI_Allgather(my_ends, 2 * g, ZOLTAN_ID_MPI_TYPE, *ends, 2 * g, ZOLTAN_ID_MPI_TYPE, c->r->comm);
  free(my_ends);
  if (ierr < 0) {
    free(*ends);
    *ends = NULL;
  }
  return ierr;
}

/* Collective: exchange the records and the first and last IDs of every
 * rank, after this rank sorted its weights (err: it could not).  Returns
 * the mode, the same everywhere, or -1 when memory ran out somewhere. */
static int zp_sorted_decide(const zp_context *c, zp_sorted *s, int err)
{
  int P = c->r->size, mode = -1, any_err;
  double mine[ZP_SR_FIELDS], *all = malloc((size_t)P * ZP_SR_FIELDS * sizeof *all);
  ZOLTAN_ID_TYPE *ends = NULL;
  err = err || all == NULL;
  zp_sorted_record(c, s, err, mine);
  /* An allocation that failed on some rank must not leave the others in
   * the next collective: the verdict travels first. */
  MPI_Allreduce(&err, &any_err, 1, MPI_INT, MPI_MAX, c->r->comm);
  if (!any_err) {
    MPI_Allgather(mine, ZP_SR_FIELDS, MPI_DOUBLE, all, ZP_SR_FIELDS, MPI_DOUBLE, c->r->comm);
    /* The IDs that end each rank's objects travel only when the records
     * cannot stand for them (IDs of several entries, or beyond 2^53). */
    if (zp_sorted_ends_in_records(c, all) || zp_sorted_ends(c, &ends) >= 0)
      mode = zp_sorted_mode(c, s, all, ends);
  }
  free(all);
  free(ends);
  return mode;
}

/* Local: sort this rank's weights heaviest first (ties by local index)
 * with ws (n words) as the sort's second buffer, which then holds the
 * sorted weights and, once they are sent, the new parts that come back (as
 * ints).  On the root ws is the start of the gathered weights, where its
 * own sorted weights belong: they are gathered in place. */
static int zp_sorted_sort(const zp_context *c, zp_sorted *s, uint64_t *ws)
{
  size_t n = (size_t)c->n;
  s->order = zp_record_scratch(c->r, ZP_SCR_W_ORDER, (n + 1) * sizeof *s->order);
  if (ws == NULL || s->order == NULL) return ZOLTAN_MEMERR;
  if (greedy_sort_desc_ws(n, c->w, s->order, ws) != 0) return ZOLTAN_MEMERR;
  s->sorted_w = (double *)(void *)ws;
  s->reply = (int *)(void *)ws;
  return ZOLTAN_OK;
}

/* Local: the weights in the sorted order, in the IDs mode the IDs too
 * (equal weights then in ID order), and the current parts when the method
 * reads them.  On the root, ids and parts are where the gather puts them
 * (else NULL: kept buffers of this rank's size). */
static int zp_sorted_fill(const zp_context *c, zp_sorted *s, uint64_t *ids, int *parts)
{
  size_t n = (size_t)c->n, j;
  /* Equal weights go in ID order; they are already when this rank's IDs
   * increase. */
  const int reorder = s->mode == ZP_SORTED_IDS && !s->in_order;
  if (s->mode == ZP_SORTED_IDS) {
    s->ids = ids != NULL ? ids : zp_record_scratch(c->r, ZP_SCR_W_IDS, (n + 1) * sizeof *s->ids);
    if (s->ids == NULL) return ZOLTAN_MEMERR;
  }
  if (c->needs & ZP_SORTED_PARTS) {
    s->parts =
        parts != NULL ? parts : zp_record_scratch(c->r, ZP_SCR_W_PARTS, (n + 1) * sizeof *s->parts);
    if (s->parts == NULL) return ZOLTAN_MEMERR;
  }
  for (j = 0; j < n; j++) {
    size_t i = s->order[j];
    s->sorted_w[j] = c->w[i];
    if (s->ids != NULL) s->ids[j] = (uint64_t)c->gids[i];
    if (s->parts != NULL && !reorder) s->parts[j] = c->parts[i];
  }
  if (!reorder) return ZOLTAN_OK;
  /* The IDs are in place beside the order; the stretches of equal weights
   * that greedy_break_ties reorders leave the sorted weights as they are,
   * and the parts follow the final order. */
  if (greedy_break_ties(n, s->sorted_w, s->ids, s->order) != 0) return ZOLTAN_MEMERR;
  for (j = 0; s->parts != NULL && j < n; j++) s->parts[j] = c->parts[s->order[j]];
  return ZOLTAN_OK;
}

/* Root, IDs mode: every ID given once, with one bit per ID of the span;
 * otherwise the gathered run's error, naming the ID and both ranks. */
static int zp_sorted_unique(const zp_context *c, const zp_sorted *s, const uint64_t *ids)
{
  size_t span = (size_t)s->gspan, k, q;
  uint64_t lo = (uint64_t)s->gmin;
  unsigned char *seen = calloc(span / 8 + 1, 1);
  int r = 0, first = 0;
  if (seen == NULL) return ZOLTAN_MEMERR;
  for (k = 0; k < s->num_obj; k++) {
    size_t b = (size_t)(ids[k] - lo);
    while (r + 1 < s->P && (int)k >= s->displ[r + 1]) r++;
    if (!(seen[b / 8] & (1u << (b % 8)))) {
      seen[b / 8] |= (unsigned char)(1u << (b % 8));
      continue;
    }
    for (q = 0; q < k && ids[q] != ids[k]; q++) {
    }
    while (first + 1 < s->P && (int)q >= s->displ[first + 1]) first++;
    free(seen);
    {
      ZOLTAN_ID_TYPE g = (ZOLTAN_ID_TYPE)ids[k];
      char text[ZP_GID_TEXT];
      zp_format_gid(&g, 1, text, sizeof text);
      zp_error(c->yo, "GID %s is given by rank %d and by rank %d; global IDs must be unique", text,
               first, r);
    }
    return ZOLTAN_FATAL;
  }
  free(seen);
  return ZOLTAN_OK;
}

/* Root: run the method on the problem pb (the weights filled in) and
 * check its N parts. */
static int zp_sorted_call(const zp_context *c, const zp_sorted *s, zp_problem *pb, int *part)
{
  size_t N = s->num_obj;
  int ierr;
  pb->num_gid_entries = 0;
  pb->num_obj = N;
  pb->wgt_dim = 1;
  pb->num_parts = c->nparts;
  pb->num_procs = s->P;
  pb->part_sizes = c->part_sizes;
  pb->imbalance_tol = c->tol;
  ierr = c->r->method->partition_sorted(pb, c->r->state, part);
  if (ierr < 0) return ierr;
  if (zp_check_answer(c, part, N, c->nparts) < 0) return ZOLTAN_FATAL;
  if ((size_t)c->nparts > N) {
    zp_warn(c->yo, "%d parts requested for %zu objects; %zu parts will be empty", c->nparts, N,
            (size_t)c->nparts - N);
    ierr = ZOLTAN_WARN;
  }
  return ierr;
}

/* Root, ZP_SORTED_RUNS: the method reads the ranks' sorted weights as runs
 * and answers in their layout, which is the reply the ranks get (in the
 * record's buffer of ZP_SCR_PROCS, 4 bytes per object, into *reply). */
static int zp_sorted_solve_runs(const zp_context *c, const zp_sorted *s, const double *streams,
                                const uint64_t *ids, int **reply)
{
  size_t *first = malloc((size_t)s->P * sizeof *first),
         *count = malloc((size_t)s->P * sizeof *count);
  int *part = zp_record_scratch(c->r, ZP_SCR_PROCS, s->num_obj * sizeof *part);
  int r, ierr = ZOLTAN_MEMERR;
  zp_problem pb;
  if (first == NULL || count == NULL || part == NULL) goto End;
  for (r = 0; r < s->P; r++) {
    first[r] = (size_t)s->displ[r];
    count[r] = (size_t)s->cnt[r];
  }
  zp_problem_common(&pb, c);
  pb.wgts = streams;
  pb.num_runs = s->P;
  pb.run_first = first;
  pb.run_count = count;
  pb.run_ties = ids;
  ierr = zp_sorted_call(c, s, &pb, part);
  *reply = part;
End:
  free(first);
  free(count);
  return ierr;
}

/* Root: merge the ranks' sorted weights (ids beside them in IDs mode, else
 * NULL), run the method on the merged order, check its parts, and lay them
 * out rank by rank in each rank's sorted order (into *reply).  Once
 * merged, the streams' buffer (8 bytes per object) holds the method's
 * parts in its upper half and the parts laid out for the ranks in its
 * lower half.  A ZP_SORTED_RUNS method, which needs no merge, goes to
 * zp_sorted_solve_runs once the IDs are checked. */
static int zp_sorted_solve(const zp_context *c, zp_sorted *s, double *streams, const uint64_t *ids,
                           const int *cur_streams, int **reply_out)
{
  size_t N = s->num_obj, k, *first = NULL, *count = NULL, *next = NULL;
  double *merged = NULL;
  int *src = NULL, *reply = (int *)(void *)streams, *part = reply + N, *cur = NULL;
  int r, ierr;
  zp_problem pb;
  if (ids != NULL && (ierr = zp_sorted_unique(c, s, ids)) < 0) return ierr;
  if ((c->needs & ZP_SORTED_RUNS) && cur_streams == NULL)
    return zp_sorted_solve_runs(c, s, streams, ids, reply_out);
  ierr = ZOLTAN_MEMERR;
  first = malloc((size_t)s->P * sizeof *first);
  count = malloc((size_t)s->P * sizeof *count);
  next = malloc((size_t)s->P * sizeof *next);
  merged = zp_record_scratch(c->r, ZP_SCR_S_WGTS, N * sizeof *merged);
  src = zp_record_scratch(c->r, ZP_SCR_PROCS, N * sizeof *src);
  if (cur_streams != NULL) cur = zp_record_scratch(c->r, ZP_SCR_S_PARTS, N * sizeof *cur);
  if (first == NULL || count == NULL || next == NULL || merged == NULL || src == NULL ||
      (cur_streams != NULL && cur == NULL))
    goto End;
  for (r = 0; r < s->P; r++) {
    first[r] = next[r] = (size_t)s->displ[r];
    count[r] = (size_t)s->cnt[r];
  }
  if (greedy_merge_desc(s->P, streams, ids, first, count, merged, src) != 0) goto End;
  /* The current parts follow the merge: each rank's in its sorted order. */
  for (k = 0; cur != NULL && k < N; k++) cur[k] = cur_streams[next[src[k]]++];
  for (r = 0; cur != NULL && r < s->P; r++) next[r] = (size_t)s->displ[r];
  zp_problem_common(&pb, c);
  pb.wgts = merged;
  pb.cur_part = cur;
  ierr = zp_sorted_call(c, s, &pb, part);
  if (ierr < 0) goto End;
  for (k = 0; k < N; k++) reply[next[src[k]]++] = part[k];
  *reply_out = reply;
End:
  free(first);
  free(count);
  free(next);
  return ierr;
}

/* Collective: the weights (and IDs) to the root, the method there, and the
 * answer back into new_part. */
static int zp_sorted_run(zp_context *c, zp_sorted *s, int *new_part)
{
  int root = c->r->rank == ZP_ROOT, ierr = ZOLTAN_OK, status;
  double *streams = NULL;
  uint64_t *ids = NULL;
  int *cur = NULL, *reply = NULL, with_parts = (c->needs & ZP_SORTED_PARTS) != 0;
  size_t j, n = (size_t)c->n, at = (size_t)s->displ[ZP_ROOT];
  uint64_t *ws;
  /* The root's own sorted objects are where the gather would put them (the
   * root's buffers are sized for every object, at least one): it sorts and
   * fills in place, and holds no copy of its own part of the problem. */
  if (root) {
    streams = zp_record_scratch(c->r, ZP_SCR_WGTS, s->num_obj * sizeof *streams);
    if (s->mode == ZP_SORTED_IDS)
      ids = zp_record_scratch(c->r, ZP_SCR_GIDS, s->num_obj * sizeof *ids);
    if (with_parts) cur = zp_record_scratch(c->r, ZP_SCR_PARTS, s->num_obj * sizeof *cur);
    if (streams == NULL || (s->mode == ZP_SORTED_IDS && ids == NULL) || (with_parts && !cur))
      ierr = ZOLTAN_MEMERR;
    ws = streams != NULL ? (uint64_t *)(void *)(streams + at) : NULL;
  } else {
    ws = zp_record_scratch(c->r, ZP_SCR_W_SORTED, (n + 1) * sizeof *ws);
  }
  if (ierr >= 0) ierr = zp_sorted_sort(c, s, ws);
  if (ierr >= 0)
    ierr = zp_sorted_fill(c, s, ids != NULL ? ids + at : NULL, cur != NULL ? cur + at : NULL);
  ierr = zp_agree(c, ierr);
  if (ierr < 0) return ierr;
  MPI_Gatherv(root ? MPI_IN_PLACE : s->sorted_w, c->n, MPI_DOUBLE, streams, s->cnt, s->displ,
              MPI_DOUBLE, ZP_ROOT, c->r->comm);
  if (s->mode == ZP_SORTED_IDS)
    MPI_Gatherv(root ? MPI_IN_PLACE : s->ids, c->n, MPI_UINT64_T, ids, s->cnt, s->displ,
                MPI_UINT64_T, ZP_ROOT, c->r->comm);
  if (with_parts)
    MPI_Gatherv(root ? MPI_IN_PLACE : s->parts, c->n, MPI_INT, cur, s->cnt, s->displ, MPI_INT,
                ZP_ROOT, c->r->comm);
  status = root ? zp_sorted_solve(c, s, streams, ids, cur, &reply) : ZOLTAN_OK;
  MPI_Bcast(&status, 1, MPI_INT, ZP_ROOT, c->r->comm);
  if (status < 0) return status;
  if (root) s->reply = reply + at;
  MPI_Scatterv(reply, s->cnt, s->displ, MPI_INT, root ? MPI_IN_PLACE : s->reply, c->n, MPI_INT,
               ZP_ROOT, c->r->comm);
  for (j = 0; j < n; j++) new_part[s->order[j]] = s->reply[j];
  return status;
}

int zp_run_sorted(zp_context *c, int *new_part, int *ran)
{
  zp_sorted s;
  int ierr = ZOLTAN_OK, step, err;
  *ran = 0;
  if (!zp_sorted_wanted(c)) return ZOLTAN_OK;
  memset(&s, 0, sizeof s);
  s.P = c->r->size;
  s.cnt = malloc((size_t)s.P * sizeof *s.cnt);
  s.displ = malloc((size_t)s.P * sizeof *s.displ);
  s.in_order = zp_gids_increase(c->gids, (size_t)c->n, c->ngid);
  /* The sort waits for the mode, so that the root knows the size of the
   * gathered weights it sorts into. */
  err = s.cnt == NULL || s.displ == NULL;
  s.mode = zp_sorted_decide(c, &s, err);
  if (s.mode < 0) ierr = ZOLTAN_MEMERR;
  if (s.mode > 0) ierr = zp_sorted_run(c, &s, new_part);
  if (s.mode > 0 && ierr >= 0 && c->remap && !(c->needs & ZP_NO_REMAP) && c->pdist == NULL) {
    zp_remap_in in = {c->r, c->nparts, c->wdim, c->part_sizes};
    step = zp_remap_parallel(&in, c->r->comm, (size_t)c->n, c->w, c->parts, s.max_w, new_part);
    if (step < 0) ierr = step;
  }
  *ran = s.mode != ZP_SORTED_NONE;
  if (s.mode > 0 && ierr >= 0 && c->debug_level >= ZP_DEBUG_PARAMS && c->r->rank == c->debug_proc) {
    printf("ZOLTAN %s: the weights sorted on each of %d ranks and merged on rank %d, ties by %s\n",
           c->r->method->name, s.P, ZP_ROOT, s.mode == ZP_SORTED_BLOCKS ? "rank" : "global ID");
    fflush(stdout);
  }
  free(s.cnt);
  free(s.displ);
  return ierr;
}
