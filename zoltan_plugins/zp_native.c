/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Base methods of a distributed method (zp_ctx_run_base): a native Zoltan
 * method run on the application's own struct, or a centralised plugin
 * method run as if it were selected.  Either way the base method gets what
 * it would get when selected directly: its own inputs, its own REMAP
 * behaviour, and (native) Zoltan's own answer, with every setting of the
 * application restored afterwards.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaddb_core.h"
#include "zp_partition_internal.h"

static int zp_is_one_of(const char *method, const char *const *names)
{
  for (; *names != NULL; names++)
    if (strcmp(method, *names) == 0) return 1;
  return 0;
}

/* Geometric native methods crash inside Zoltan 13.2 when the application
 * registered no geometry: the geometry's agreement tells whether some rank
 * cannot give coordinates; refuse on every rank.  The coordinates
 * themselves are read by Zoltan's run (zp_serve's deferred geometry)
 * unless the layer has read them already.  Collective. */
static int zp_native_geometry(zp_context *c, const char *who)
{
  int ierr;
  c->geom_for_native = 1;
  ierr = zp_gather_geometry_deferred(c, who);
  c->geom_for_native = 0;
  if (ierr >= 0 && c->geom_unregistered) {
    zp_error(
        c->yo,
        "%s needs ZOLTAN_NUM_GEOM_FN and ZOLTAN_GEOM_MULTI_FN (or ZOLTAN_GEOM_FN) on every rank",
        who);
    ierr = ZOLTAN_FATAL;
  }
  return ierr;
}

/* Ask the callbacks that the native method will call, once per call, and
 * agree on the outcome.  Zoltan's own methods do not agree on callback
 * errors: a failure on one rank leaves the others waiting inside Zoltan
 * for ever.  Collective. */
static int zp_check_native_inputs(zp_context *c, const char *method, const char *who)
{
  static const char *const geometric[] = {"RCB", "RIB", "HSFC", NULL};
  static const char *const hypergraph[] = {"PHG", "HYPERGRAPH", NULL};
  int registered = 0, ierr;
  if (zp_is_one_of(method, geometric)) {
    ierr = zp_native_geometry(c, who);
    /* Zoltan's RCB dereferences coordinates that a dimension of 0 never
     * gives (a segmentation fault in Zoltan_RB_Build_Structure): refuse. */
    if (ierr >= 0 && c->gdim <= 0) {
      zp_error(c->yo,
               "%s: %s needs coordinates, but ZOLTAN_NUM_GEOM_FN gives dimension 0 on every "
               "rank; choose a base method without geometry (GREEDY, PHG, GRAPH)",
               who, method);
      ierr = ZOLTAN_FATAL;
    }
    return ierr;
  }
  if (zp_is_one_of(method, hypergraph)) {
    /* PHG uses the hypergraph callbacks when they exist, else the graph. */
    ierr = zp_check_hypergraph(c, &registered, who);
    return ierr < 0 || registered ? ierr : zp_gather_inputs(c, ZP_WANTS_GRAPH, who);
  }
  if (strcmp(method, "GRAPH") == 0) return zp_gather_inputs(c, ZP_WANTS_GRAPH, who);
  return ZOLTAN_OK;
}

/* The weights' figures the checks before a native run need, over every
 * rank: stats[0] the largest first weight, stats[1] their sum, stats[2]
 * the number of objects; one pass.  Collective. */
static void zp_native_weight_stats(const zp_context *c, double stats[3])
{
  double sums[2] = {0.0, (double)c->n}, wmax = 0.0;
  size_t i, n = (size_t)c->n, wd = (size_t)c->wdim;
  for (i = 0; i < n; i++) {
    double w = c->w[i * wd];
    wmax = w > wmax ? w : wmax;
    sums[0] += w;
  }
  /* The maximum and the sums travel together (zp_allreduce_sum_max). */
  zp_allreduce_sum_max(c->r->comm, sums, stats + 1, 2, &wmax, stats, 1);
}

/* Trivial problems never reach Zoltan: its methods fail on some of them
 * (Zoltan 13.2's RCB returns ZOLTAN_MEMERR without a word when no rank
 * holds an object), and the answer is known anyway.  Returns 1 when
 * new_part is filled.  *zero_weights is 1 when every weight is zero.
 * stats are zp_native_weight_stats's.  Not collective. */
static int zp_native_trivial(const zp_context *c, const double stats[3], int *new_part,
                             int *zero_weights)
{
  int i;
  *zero_weights = c->obj_wgt_dim == 1 && stats[1] == 0.0;
  if (c->nparts > 1 && stats[2] > 0.0) return 0;
  for (i = 0; i < c->n; i++) new_part[i] = 0;
  return 1;
}

int zp_native_set_sizes(const zp_context *c, const double *sizes)
{
  size_t count = (size_t)c->nparts * (size_t)c->wdim, k;
  int *ids = malloc((count + 1) * sizeof *ids), *idx = malloc((count + 1) * sizeof *idx);
  float *fsizes = malloc((count + 1) * sizeof *fsizes);
  int ierr = ZOLTAN_MEMERR;
  if (ids && idx && fsizes) {
    for (k = 0; k < count; k++) {
      ids[k] = (int)(k / (size_t)c->wdim);
      idx[k] = (int)(k % (size_t)c->wdim);
      fsizes[k] = (float)sizes[k];
    }
    zp_real_set_part_sizes(c->r->zz, 1, -1, NULL, NULL, NULL);
    ierr = zp_real_set_part_sizes(c->r->zz, 1, (int)count, ids, idx, fsizes);
  }
  free(ids);
  free(idx);
  free(fsizes);
  return ierr;
}

void zp_native_restore_sizes(zp_record *r)
{
  size_t i;
  zp_real_set_part_sizes(r->zz, 1, -1, NULL, NULL, NULL);
  for (i = 0; i < r->n_psizes; i++) {
    zp_part_size_entry *e = &r->psizes[i];
    float f = (float)e->size;
    zp_real_set_part_sizes(r->zz, e->global_num, 1, &e->part_id, &e->wgt_idx, &f);
  }
}

/* The lists a native base run asks of Zoltan: the exports, which say the
 * answer, and the imports too when the method asked the layer to keep the
 * lists (zp_ctx_keep_base_lists) and the application wants them, since
 * Zoltan's methods give one kind and invert the other. */
static const char *zp_native_lists_asked(const zp_context *c)
{
  return c->keep_base_lists && zp_wants_imports(c) ? "ALL" : "EXPORT";
}

/* Select the native method on the struct, with complete lists, no
 * migration, and the given part sizes.  Collective. */
static int zp_native_configure(const zp_context *c, const char *method, const double *sizes,
                               int zero_weights)
{
  zp_record *r = c->r;
  size_t count = (size_t)c->nparts * (size_t)c->wdim;
  int ierr = zp_real_set_param_vec(r->zz, "LB_METHOD", method, -1);
  /* Every step below is local: one agreement at the end covers them all. */
  if (ierr != ZOLTAN_OK) {
    zp_error(c->yo, "base method %s is not known to Zoltan", method);
    return zp_agree(c, ZOLTAN_FATAL);
  }
  zp_real_set_param_vec(r->zz, "AUTO_MIGRATE", "FALSE", -1);
  /* Export lists only: the objects that change part.  The complete list
   * (PARTS) holds the same answer, but Zoltan builds it by reading the
   * objects again and looking each one up in a hash table with a quarter
   * as many buckets as exports, which took twice as long as RCB's own
   * partitioning of 5 x 10^5 objects on one rank; every other object stays
   * in the part the application reports, which is what that list gives it
   * (zp_native_read_parts). */
  zp_real_set_param_vec(r->zz, "RETURN_LISTS", zp_native_lists_asked(c), -1);
  if (zero_weights) {
    /* Zoltan's methods fail when every weight is zero; balance counts then,
     * as the centralised path does, by hiding the weights from Zoltan. */
    if (r->rank == 0)
      zp_warn(c->yo, "every object weight is zero; %s balances object counts", method);
    zp_real_set_param_vec(r->zz, "OBJ_WEIGHT_DIM", "0", -1);
  }
  /* Native methods cut differently with explicit uniform sizes than with
   * none, so sizes equal to the application's unset ones are not set: the
   * base method then answers exactly as it would alone. */
  if (c->sizes_set || memcmp(sizes, c->part_sizes, count * sizeof *sizes) != 0)
    ierr = zp_native_set_sizes(c, sizes);
  return zp_agree(c, ierr);
}

/* Put a native parameter back to what the application had set, or to
 * Zoltan's default (Zoltan refuses DEFAULT for some key parameters). */
static void zp_restore_native(zp_record *r, const char *name, const char *zoltan_default)
{
  const char *v = zp_record_native_get(r, name, -1);
  zp_real_set_param_vec(r->zz, name, v ? v : zoltan_default, -1);
}

/* Every setting zp_native_configure may have changed, as the application
 * left it. */
static void zp_native_restore(const zp_context *c, int zero_weights)
{
  zp_record *r = c->r;
  zp_restore_native(r, "LB_METHOD", "RCB");
  zp_restore_native(r, "AUTO_MIGRATE", "FALSE");
  zp_restore_native(r, "RETURN_LISTS", "ALL");
  if (zero_weights) zp_restore_native(r, "OBJ_WEIGHT_DIM", "0");
  zp_native_restore_sizes(r);
}

/* The position *li of export list entry g among the local objects: found
 * by a forward scan from *pos while the exports come in the order of the
 * local objects (as Zoltan's methods list them), through the hash of the
 * local IDs once they do not; -1 when g is not a local object.  Returns
 * ZOLTAN_OK, or ZOLTAN_MEMERR without the memory for the hash. */
static int zp_native_find(const zp_context *c, const ZOLTAN_ID_TYPE *g, size_t *pos, zp_gidmap *map,
                          int *mapped, long *li)
{
  size_t n = (size_t)c->n, ng = (size_t)c->ngid;
  if (!*mapped) {
    /* One ID entry (the common case) is compared inline: a call of memcmp
     * per local object cost more than the rest of the scan. */
    if (ng == 1)
      while (*pos < n && c->gids[*pos] != *g) ++*pos;
    else
      while (*pos < n && memcmp(c->gids + *pos * ng, g, ng * sizeof *g) != 0) ++*pos;
    if (*pos < n) {
      *li = (long)(*pos)++;
      return ZOLTAN_OK;
    }
    if (zp_gidmap_build(map, c->gids, n, c->ngid) != ZOLTAN_OK) return ZOLTAN_MEMERR;
    *mapped = 1;
  }
  *li = zp_gidmap_find(map, g);
  return ZOLTAN_OK;
}

/* The export list names every local object that changes part once; the
 * others stay in the part the application reports (c->in_parts, what
 * Zoltan's complete list would give them).  Local: the caller agrees on the
 * outcome together with Zoltan's own code. */
static int zp_native_read_parts(const zp_context *c, const char *method, int nexp,
                                const ZOLTAN_ID_TYPE *eg, const int *epa, int *new_part,
                                unsigned char **moved)
{
  size_t n = (size_t)c->n, i, ng = (size_t)c->ngid, pos = 0;
  zp_gidmap map = {NULL, 0, NULL, 0};
  /* One bit per object: an array of n flags would be fresh pages to fault
   * in at every call. */
  unsigned char *seen = calloc(n / 8 + 1, 1);
  int ierr = ZOLTAN_OK, bad = nexp < 0 || nexp > c->n, mapped = 0;
  if (seen == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  for (i = 0; i < n; i++) new_part[i] = c->in_parts[i];
  for (i = 0; !bad && i < (size_t)nexp; i++) {
    long li = -1;
    ierr = zp_native_find(c, eg + i * ng, &pos, &map, &mapped, &li);
    if (ierr < 0) goto End;
    bad = li < 0 || (seen[li / 8] >> (li % 8) & 1);
    if (bad) break;
    seen[li / 8] |= (unsigned char)(1u << (li % 8));
    new_part[li] = epa[i];
  }
  if (bad) {
    zp_error(c->yo, "base method %s returned an assignment that does not match the local objects",
             method);
    ierr = ZOLTAN_FATAL;
  }
End:
  zp_gidmap_free(&map);
  if (ierr >= 0 && moved != NULL) {
    *moved = seen;
    seen = NULL;
  }
  free(seen);
  return ierr;
}

/* Keep the lists of a base run that answered new_part, with the objects
 * its export list names (moved, taken over), when the method asked for
 * them; the lists are then no longer the caller's.  Without the memory for
 * the record nothing is kept: the layer builds the lists as it would
 * otherwise.  Not collective. */
static void zp_native_keep_lists(zp_context *c, zp_lb_args *a, const int *new_part,
                                 unsigned char *moved)
{
  zp_base_lists *b = calloc(1, sizeof *b);
  int *answer = malloc(((size_t)c->n + 1) * sizeof *answer);
  if (b == NULL || answer == NULL || moved == NULL) {
    free(b);
    free(answer);
    free(moved);
    return;
  }
  memcpy(answer, new_part, (size_t)c->n * sizeof *answer);
  b->answer = answer;
  b->moved = moved;
  b->nimp = *a->num_import;
  b->ig = *a->import_gids;
  b->il = *a->import_lids;
  b->ip = *a->import_procs;
  b->ipa = *a->import_to_part;
  b->nexp = *a->num_export;
  b->eg = *a->export_gids;
  b->el = *a->export_lids;
  b->ep = *a->export_procs;
  b->epa = *a->export_to_part;
  *a->import_gids = *a->import_lids = *a->export_gids = *a->export_lids = NULL;
  *a->import_procs = *a->import_to_part = *a->export_procs = *a->export_to_part = NULL;
  c->base_lists = b;
}

/* zp_ctx_native_bounds with the given part sizes (nparts * wdim, the same
 * on every rank) and the weights' figures (zp_native_weight_stats); when
 * every weight is zero and counts is 1, the objects count one each, as a
 * base run balances them.  Not collective. */
static const char *zp_native_bounds_stats(const zp_context *c, const char *method,
                                          const double *sizes, int counts, const double stats[3])
{
  double wmax = stats[0], total = stats[1], sum = 0.0, smin = 0.0;
  int i, zero = 0;
  if (!(total > 0.0) && counts) {
    wmax = stats[2] > 0.0 ? 1.0 : 0.0;
    total = stats[2];
  }
  for (i = 0; i < c->nparts; i++) sum += sizes[(size_t)i * c->wdim];
  for (i = 0; sum > 0.0 && i < c->nparts; i++) {
    double s = sizes[(size_t)i * c->wdim] / sum;
    if (s <= 0.0) zero = 1;
    if (s > 0.0 && (smin == 0.0 || s < smin)) smin = s;
  }
  return zp_native_bounds(method, c->nparts, c->r->size, wmax, total, smin, zero);
}

/* The same, reading the weights' figures.  Collective when the method is
 * a bounded one. */
static const char *zp_native_bounds_sized(const zp_context *c, const char *method,
                                          const double *sizes, int counts)
{
  double stats[3];
  if (zp_native_bounds(method, 2, 1, 0.0, 0.0, 0.0, 1) == NULL) return NULL;
  zp_native_weight_stats(c, stats);
  return zp_native_bounds_stats(c, method, sizes, counts, stats);
}

const char *zp_ctx_native_bounds(zp_context *c, const char *method)
{
  return c == NULL ? NULL : zp_native_bounds_sized(c, method, c->part_sizes, c->obj_wgt_dim <= 1);
}

int zp_native_within_bounds(zp_record *r, const char *method, int is_balance)
{
  zp_context c;
  int ierr, ok = 0, warn = 0;
  /* Only the bounded methods are read for; RCB with one part per rank at
   * most has no bound, which the settings alone tell. */
  if (zp_native_bounds(method, 2, 1, 0.0, 0.0, 0.0, 1) == NULL) return 1;
  /* Capacities change the part sizes: such a call runs as the delegating
   * method's, whose base run checks what Zoltan would get. */
  if (zp_capacity_active(r)) return 0;
  zp_ctx_init(&c, r, is_balance);
  /* Both steps return the same code on every rank. */
  ierr = zp_step_agreed(&c, zp_read_settings(&c), &warn, "zp_read_settings");
  if (ierr >= 0) ierr = zp_step_agreed(&c, zp_build_part_dist(&c), &warn, "zp_build_part_dist");
  if (ierr >= 0) ierr = zp_build_part_sizes(&c);
  if (ierr >= 0 && zp_native_bounds(method, c.nparts, r->size, 0.0, 0.0, 0.0, 1) == NULL)
    ok = 1;
  else if (ierr >= 0)
    ierr = zp_agree(&c, zp_gather_objects(&c));
  /* A delegated call hands Zoltan the weights as they are, zero ones too. */
  if (ierr >= 0 && !ok) ok = zp_native_bounds_sized(&c, method, c.part_sizes, 0) == NULL;
  zp_ctx_free(&c);
  return ierr < 0 ? 0 : ok;
}

/* Run a native Zoltan method on the struct with the given part sizes and
 * read the complete assignment back; every setting the application made is
 * restored afterwards, whatever happens.  who names the base in messages. */
static int zp_run_native(zp_context *c, const char *method, const double *sizes, int *new_part,
                         const char *who)
{
  int changes, ngid, nlid, nimp = 0, nexp = 0, *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  zp_lb_args a = {&changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el, &ep, &epa};
  int zero_weights = 0, guarded = 0, ierr = zp_check_native_inputs(c, method, who);
  const char *outside = NULL;
  double stats[3];
  if (ierr < 0) return ierr;
  zp_native_weight_stats(c, stats);
  if (zp_native_trivial(c, stats, new_part, &zero_weights)) return ierr;
  /* Zoltan's method would fail on some ranks only and hang the others. */
  if (zp_native_bounds(method, 2, 1, 0.0, 0.0, 0.0, 1) != NULL)
    outside = zp_native_bounds_stats(c, method, sizes, c->obj_wgt_dim <= 1, stats);
  if (outside != NULL) {
    if (c->r->rank == c->debug_proc)
      zp_error(c->yo,
               "%s not run: %s, where Zoltan's %s can fail on some ranks and leave the others "
               "waiting (docs/reliability.md, finding S2)",
               who, outside, method);
    return ZOLTAN_FATAL;
  }
  /* Zoltan's method reads callbacks the checks above do not (object sizes,
   * parts): the guard reads them all and agrees before Zoltan runs. */
  if (zp_guard_on(c->r) && c->guard == NULL) {
    ierr = zp_guard_begin(c, method);
    if (ierr < 0) return ierr;
    guarded = c->guard != NULL;
  }
  ierr = zp_native_configure(c, method, sizes, zero_weights);
  if (ierr >= 0) {
    /* The lists are worth keeping only where the layer could hand them
     * over: not for a complete list (RETURN_LISTS=PARTS), and only where
     * Zoltan and the layer name the same rank for a part. */
    int keep = c->keep_base_lists && c->return_lists != ZP_RL_PARTS &&
               (c->pdist == NULL || c->single_proc);
    unsigned char *moved = NULL;
    zp_serve sv;
    /* The callbacks the checks above called answer from what they read. */
    zp_serve_begin(c, &sv);
    sv.who = who;
    ierr = zp_real_lb_partition(c->r->zz, &a);
    zp_serve_end(&sv);
    if (ierr < 0) zp_error(c->yo, "%s returned error code %d on this rank", who, ierr);
    /* The application's geometry failed inside the run (said then): the
     * run's answer is void on every rank. */
    if (ierr >= 0 && sv.geom_failed != 0) ierr = ZOLTAN_FATAL;
    /* Reading this rank's answer is local: one agreement covers it and
     * Zoltan's code (a rank whose Zoltan succeeded reads its own lists even
     * when another rank's failed, and then fails with the others). */
    if (ierr >= 0) {
      int e = zp_native_read_parts(c, method, nexp, eg, epa, new_part, keep ? &moved : NULL);
      if (e < 0) ierr = e;
    }
    ierr = zp_agree(c, ierr);
    if (ierr >= 0 && keep)
      zp_native_keep_lists(c, &a, new_part, moved);
    else
      free(moved);
  }
  zp_native_restore(c, zero_weights);
  if (guarded) zp_guard_end(c);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  return ierr;
}

/* Run a centralised method as if it were selected: its own state, its own
 * input needs and REMAP flag, the given part sizes.  Collective. */
static int zp_run_base_serial(zp_context *c, const zp_method *m, const double *sizes, int *new_part,
                              const char *who)
{
  zp_record *r = c->r;
  const zp_method *saved_method = r->method, *saved_owner = r->state_owner;
  void *saved_state = r->state, *state = NULL;
  double *saved_sizes = c->part_sizes;
  unsigned saved_needs = c->needs, needs = zp_method_needs(m, r->params);
  int ierr = zp_gather_inputs(c, needs, who);
  if (ierr < 0) return ierr;
  if (m->create != NULL && m->create(&state) != ZOLTAN_OK) state = NULL;
  r->method = m;
  r->state = state;
  r->state_owner = m;
  c->part_sizes = (double *)sizes;
  c->needs = needs;
  ierr = zp_run_central(c, new_part);
  c->needs = saved_needs;
  c->part_sizes = saved_sizes;
  r->method = saved_method;
  r->state = saved_state;
  r->state_owner = saved_owner;
  if (state != NULL && m->destroy != NULL) m->destroy(state);
  return ierr;
}

int zp_ctx_run_base(zp_context *c, const char *method, const double *part_sizes, int *new_part)
{
  char clean[ZP_NAME_MAX], who[2 * ZP_NAME_MAX + 16];
  const zp_method *m;
  if (c == NULL || method == NULL || part_sizes == NULL || new_part == NULL ||
      zp_clean_string(method, clean, sizeof clean) != 0) {
    zp_error("zp_ctx_run_base", "invalid arguments");
    return ZOLTAN_FATAL;
  }
  /* Lists kept from an earlier base run no longer say the answer. */
  zp_base_lists_free(c->base_lists);
  c->base_lists = NULL;
  snprintf(who, sizeof who, "%s: base method %s", c->r->method->name, clean);
  m = zp_find_method(clean);
  if (m == NULL) return zp_run_native(c, clean, part_sizes, new_part, who);
  /* A method may run itself as a base only when it has both functions: the
   * base run takes the centralised one, so there is no recursion. */
  if ((m == c->r->method && m->partition_parallel == NULL) || m->partition_serial == NULL) {
    zp_error(c->yo,
             "base method %s must be a native method or a centralised plugin method other than %s",
             clean, c->r->method->name);
    return ZOLTAN_FATAL;
  }
  return zp_run_base_serial(c, m, part_sizes, new_part, who);
}

int zp_ctx_run_base_weighted(zp_context *c, const char *method, const double *part_sizes,
                             const double *weights, int *new_part)
{
  zp_weight_undo u;
  int ierr = ZOLTAN_OK, i;
  if (c == NULL) {
    zp_error("zp_ctx_run_base_weighted", "invalid arguments");
    return ZOLTAN_FATAL;
  }
  if (weights == NULL && c->n > 0) {
    zp_error(c->yo, "zp_ctx_run_base_weighted: no weights given");
    ierr = ZOLTAN_FATAL;
  }
  for (i = 0; ierr == ZOLTAN_OK && i < c->n; i++)
    if (!(weights[i] >= 0.0) || !isfinite(weights[i])) {
      zp_error(c->yo,
               "zp_ctx_run_base_weighted: weight %g of local object %d is not a finite "
               "number >= 0",
               weights[i], i);
      ierr = ZOLTAN_FATAL;
    }
  memset(&u, 0, sizeof u);
  if (ierr == ZOLTAN_OK) ierr = zp_loaddb_override(c, weights, &u);
  ierr = zp_agree(c, ierr);
  if (ierr >= 0) ierr = zp_ctx_run_base(c, method, part_sizes, new_part);
  zp_loaddb_restore(c, &u);
  return ierr;
}
