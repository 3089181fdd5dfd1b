/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Zoltan application written only against Zoltan's public API, used to
 * test the plugin layer from the outside.  The same source is built linked
 * with libzoltan_plugins, linked without it (run under LD_PRELOAD), and
 * linked statically with -Wl,--wrap.
 *
 * The global problem does not depend on the rank count: objects have GIDs
 * 1..M and weights drawn from a seeded generator per GID; ranks receive them
 * cyclically (or rank 0 gets none with --empty-rank0).  After each balance
 * the program checks, across all ranks:
 *   - every GID is present exactly once, the count and total weight are
 *     conserved (after AUTO_MIGRATE: the application's own data);
 *   - part ids are in range, import and export lists describe the same moves;
 *   - optionally max part load / target <= a bound.
 *   --initial-part-mod K  object g starts in part (g-1) mod K, not in its rank
 *   --lists FILE          write every rank's import/export lists to FILE
 * It exits 0 only if every check passed (or, with --expect-error, only if
 * Zoltan returned an error on every rank).
 *
 * Options:
 *   --method M            LB_METHOD (default GREEDY)
 *   --param NAME=VALUE    any Zoltan or plugin parameter (repeatable)
 *   --param-last NAME=VALUE  one parameter set on the last rank only (the
 *                         application's mistake, or a setting that may
 *                         differ, such as DEBUG_LEVEL)
 *   --objects M           global number of objects (default 1000)
 *   --seed S              weight seed (default 1)
 *   --weights unit|heavy|zero|extreme|nan-on-last   weight model (default heavy;
 *                         extreme: log-uniform in [1e-20, 1e20])
 *   --empty-rank0         rank 0 owns no objects
 *   --dup-gid             the last rank repeats GID 1 (bad input)
 *   --part-sizes          part p gets relative size 1 + (p % 3)
 *   --warn-on R           rank R alone gives a size for a part that does not
 *                         exist (the layer ignores it with a warning on that
 *                         rank); with --expect-warn: every rank gets the WARN
 *   --migrate             AUTO_MIGRATE=TRUE with pack/unpack callbacks
 *   --balance-api         call Zoltan_LB_Balance instead of _Partition
 *   --copy                balance a Zoltan_Copy of the struct
 *   --serialize           balance a struct rebuilt by Zoltan_Deserialize
 *   --rounds K            balance K times, changing weights between rounds
 *   --bound B             require max load/target <= B (0: no check)
 *   --expect-error        succeed only if the balance fails on every rank
 *   --dump FILE           rank 0 writes "gid part" lines of the result
 *   --first-next          register FIRST/NEXT_OBJ instead of OBJ_LIST
 *   --zoltan-memory       turn on Zoltan's memory accounting (DEBUG_MEMORY)
 *                         and require that every byte allocated through
 *                         Zoltan's allocator was freed by the end
 *   --fixed               fix the objects whose GID is 3 mod 10 to part
 *                         (GID / 10) mod parts (fixed-object callbacks) and
 *                         require that every balance leaves them there
 *   --fixed-foreign       with --fixed, the last rank also fixes an object
 *                         that no rank holds (bad input on one rank only:
 *                         every rank must fail, none may wait)
 *   --hypergraph          register the grid as a hypergraph (one two-pin net
 *                         per grid edge) instead of the graph callbacks
 *   --cut-below F         require the grid graph's edge cut to be at most F
 *                         times what a random assignment cuts on average
 *                         ((1 - 1/parts) of the edges), after every round
 *   --bad-neighbour       object 1 names neighbour M + 5, which no rank has
 *   --then-moves-nothing  after the rounds, balance once more with the same
 *                         weights and require that no object moves
 *   --memory LIST         objects get a second weight, their memory,
 *                         1 + (GID mod 5) (OBJ_WEIGHT_DIM = 2), and after
 *                         every balance part p must hold at most LIST[p]
 *                         of it (comma-separated, cycled; 0 = no limit)
 *   --expect-warn         require ZOLTAN_WARN from every balance (checks
 *                         still apply)
 *   --sizes               register ZOLTAN_OBJ_SIZE_MULTI_FN: objects with an
 *                         even GID are 50 times larger than the others;
 *                         after every balance rank 0 prints "moved N objects
 *                         B bytes" (the objects whose part changes)
 *   --target-scale LIST   comma-separated factors: part p's target load is
 *                         also multiplied by factor p (cycled), e.g. the
 *                         rank speeds of a CAPACITY_FILE with one part per
 *                         rank; the --bound check uses these targets
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>
#include <zoltan_mem.h>

#include "zp_rng.h"
#include "zpt_app.h"
#include "zpt_check.h"

typedef zpt_obj obj;

typedef zpt_app app;

/* Register FIRST/NEXT_OBJ instead of OBJ_LIST (--first-next). */
static int g_first_next;

/* Uniform in [0, 1) from a seed and a key. */
static double unif(uint64_t seed, uint64_t key)
{
  return zp_unit_double(zp_mix64(seed * 0x100000001b3ULL + key));
}

static int g_rank;

/* Owner rank of every GID (1-based), kept current after each balance so
 * that the graph callbacks can name neighbours' ranks. */
static int *g_owner;
static int g_M;
#define GRID_W 37

/* --memory: the second weight of an object. */
static double memory_of(ZOLTAN_ID_TYPE gid) { return 1.0 + (double)(gid % 5); }

/* --memory: every part's memory within its limit (limits cycled; 0 = none). */
static void check_memory(const app *a, int nparts, const char *limits)
{
  double *mem = calloc((size_t)nparts, sizeof *mem), lim[64];
  int nlim = 0, i;
  for (const char *p = limits; p != NULL && *p && nlim < 64;) {
    char *end;
    lim[nlim++] = strtod(p, &end);
    p = *end == ',' ? end + 1 : NULL;
  }
  for (i = 0; i < a->n; i++)
    if (a->o[i].part >= 0 && a->o[i].part < nparts) mem[a->o[i].part] += memory_of(a->o[i].gid);
  MPI_Allreduce(MPI_IN_PLACE, mem, nparts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (i = 0; i < nparts && nlim > 0; i++) {
    double l = lim[i % nlim];
    ZPT_CHECK(l <= 0 || mem[i] <= l, "part %d holds %g of memory, above its limit %g", i, mem[i],
              l);
  }
  if (g_rank == 0) {
    printf("memory per part:");
    for (i = 0; i < nparts; i++) printf(" %g", mem[i]);
    printf("\n");
  }
  free(mem);
}

/* --sizes: an object's size in bytes (at least what the pack callback
 * writes). */
static int g_sizes;
static int size_of(ZOLTAN_ID_TYPE gid) { return (int)sizeof(zpt_obj) * (gid % 2 ? 1 : 50); }

static void cb_sizes(void *data, int ngid, int nlid, int num, ZOLTAN_ID_PTR gids,
                     ZOLTAN_ID_PTR lids, int *sizes, int *ierr)
{
  (void)data;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (int k = 0; k < num; k++) sizes[k] = size_of(gids[k]);
  *ierr = ZOLTAN_OK;
}

/* --bad-neighbour: object 1 lists a neighbour GID that no rank has. */
static int g_bad_nbr;

/* ---- callbacks ---------------------------------------------------------- */

static int cb_first(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int wdim,
                    float *w, int *ierr)
{
  app *a = d;
  (void)ngid;
  (void)nlid;
  *ierr = ZOLTAN_OK;
  if (a->n == 0) return 0;
  *gid = a->o[0].gid;
  *lid = 0;
  if (wdim > 0) w[0] = a->o[0].w;
  return 1;
}

static int cb_next(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                   ZOLTAN_ID_PTR ngid_out, ZOLTAN_ID_PTR nlid_out, int wdim, float *w, int *ierr)
{
  app *a = d;
  int i = (int)*lid + 1;
  (void)ngid;
  (void)nlid;
  (void)gid;
  *ierr = ZOLTAN_OK;
  if (i >= a->n) return 0;
  *ngid_out = a->o[i].gid;
  *nlid_out = (ZOLTAN_ID_TYPE)i;
  if (wdim > 0) w[0] = a->o[i].w;
  return 1;
}

/* Objects sit on a GRID_W-wide grid by GID, with a deterministic jitter so
 * that geometric methods see no ties. */
static void grid_coords(ZOLTAN_ID_TYPE gid, double xy[2])
{
  ZOLTAN_ID_TYPE g = gid - 1;
  xy[0] = (double)(g % GRID_W) + 0.25 * unif(99, g);
  xy[1] = (double)(g / GRID_W) + 0.25 * unif(98, g);
}

/* Grid neighbours: left, right, up, down, when they exist. */
static int nbrs(ZOLTAN_ID_TYPE gid, ZOLTAN_ID_TYPE *out)
{
  int k = 0;
  ZOLTAN_ID_TYPE g = gid - 1;
  if (g % GRID_W > 0) out[k++] = gid - 1;
  if (g % GRID_W < GRID_W - 1 && gid + 1 <= (ZOLTAN_ID_TYPE)g_M) out[k++] = gid + 1;
  if (g >= GRID_W) out[k++] = gid - GRID_W;
  if (gid + GRID_W <= (ZOLTAN_ID_TYPE)g_M) out[k++] = gid + GRID_W;
  if (g_bad_nbr && gid == 1 && k > 0) out[0] = (ZOLTAN_ID_TYPE)g_M + 5;
  return k;
}

static void cb_num_edges(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int *ne, int *ierr)
{
  int i;
  ZOLTAN_ID_TYPE tmp[4];
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (i = 0; i < n; i++) ne[i] = nbrs(gids[i], tmp);
  *ierr = ZOLTAN_OK;
}

static void cb_edges(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *ne, ZOLTAN_ID_PTR nb, int *np, int wdim, float *ew, int *ierr)
{
  int i, k, off = 0;
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)lids;
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n; i++) {
    int c = nbrs(gids[i], nb + off);
    for (k = 0; k < c; k++) {
      np[off + k] = nb[off + k] <= (ZOLTAN_ID_TYPE)g_M ? g_owner[nb[off + k]] : 0;
      if (wdim > 0) ew[(off + k) * wdim] = 1.0f;
    }
    if (c != ne[i]) *ierr = ZOLTAN_FATAL;
    off += c;
  }
}

/* --hypergraph: the grid as a hypergraph, one two-pin net per grid edge
 * (net 2 u for the edge to the right of object u, 2 u + 1 for the one
 * below), listed by the rank that owns u; no graph callbacks. */
static int g_hypergraph;

static int hg_nets(const app *a, ZOLTAN_ID_TYPE *nets, ZOLTAN_ID_TYPE *pins)
{
  int i, k = 0;
  for (i = 0; i < a->n; i++) {
    ZOLTAN_ID_TYPE u = a->o[i].gid, g = u - 1;
    if (g % GRID_W < GRID_W - 1 && u + 1 <= (ZOLTAN_ID_TYPE)g_M) {
      if (nets) nets[k] = 2 * u, pins[2 * k] = u, pins[2 * k + 1] = u + 1;
      k++;
    }
    if (u + GRID_W <= (ZOLTAN_ID_TYPE)g_M) {
      if (nets) nets[k] = 2 * u + 1, pins[2 * k] = u, pins[2 * k + 1] = u + GRID_W;
      k++;
    }
  }
  return k;
}

static void cb_hg_size(void *d, int *nlists, int *npins, int *format, int *ierr)
{
  *nlists = hg_nets(d, NULL, NULL);
  *npins = 2 * *nlists;
  *format = ZOLTAN_COMPRESSED_EDGE;
  *ierr = ZOLTAN_OK;
}

static void cb_hg_cs(void *d, int ngid, int nlists, int npins, int format, ZOLTAN_ID_PTR lists,
                     int *starts, ZOLTAN_ID_PTR pins, int *ierr)
{
  int k;
  (void)ngid;
  (void)npins;
  (void)format;
  hg_nets(d, lists, pins);
  for (k = 0; k < nlists; k++) starts[k] = 2 * k;
  *ierr = ZOLTAN_OK;
}

/* --fixed: objects whose GID is 3 mod 10 are fixed to part (GID / 10) mod
 * the part count, through ZOLTAN_NUM_FIXED_OBJ_FN and
 * ZOLTAN_FIXED_OBJ_LIST_FN; every balance must leave them there. */
static int g_fixed, g_fixed_nparts, g_fixed_foreign;

/* --fixed-foreign: the GID no rank holds, and whether this rank names it. */
#define FOREIGN_GID 4000000000u
static int names_foreign(const app *a) { return g_fixed_foreign && a->rank == a->size - 1; }

static int fixed_part_of(ZOLTAN_ID_TYPE gid)
{
  return g_fixed && gid % 10 == 3 ? (int)((gid / 10) % (ZOLTAN_ID_TYPE)g_fixed_nparts) : -1;
}

static int cb_num_fixed(void *d, int *ierr)
{
  app *a = d;
  int i, k = 0;
  for (i = 0; i < a->n; i++) k += fixed_part_of(a->o[i].gid) >= 0;
  *ierr = ZOLTAN_OK;
  return k + names_foreign(a);
}

static void cb_fixed_list(void *d, int nfix, int ngid, ZOLTAN_ID_PTR gids, int *parts, int *ierr)
{
  app *a = d;
  int i, k = 0;
  (void)ngid;
  for (i = 0; i < a->n && k < nfix; i++)
    if (fixed_part_of(a->o[i].gid) >= 0) {
      gids[k] = a->o[i].gid;
      parts[k++] = fixed_part_of(a->o[i].gid);
    }
  if (names_foreign(a) && k < nfix) {
    gids[k] = FOREIGN_GID;
    parts[k++] = 0;
  }
  *ierr = ZOLTAN_OK;
}

static void update_owners(app *a)
{
  int *mine = calloc((size_t)g_M + 1, sizeof *mine), i;
  for (i = 0; i < a->n; i++) mine[a->o[i].gid] = a->rank + 1;
  MPI_Allreduce(mine, g_owner, g_M + 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (i = 1; i <= g_M; i++) g_owner[i] -= 1;
  free(mine);
}

/* Write the lists of every rank, in rank order, exactly as returned. */
static void dump_lists(const char *file, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip,
                       int *ipa, int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep, int *epa,
                       int changes, int ierr)
{
  int r, i, size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (r = 0; r < size; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == g_rank) {
      FILE *f = fopen(file, r == 0 ? "w" : "a");
      if (f == NULL) continue;
      fprintf(f, "rank %d ierr %d changes %d imports %d exports %d\n", r, ierr, changes, nimp,
              nexp);
      for (i = 0; i < nimp; i++)
        fprintf(f, "I %u %u %d %d\n", ig[i], il ? il[i] : 0u, ip[i], ipa ? ipa[i] : -9);
      for (i = 0; i < nexp; i++)
        fprintf(f, "E %u %u %d %d\n", eg[i], el ? el[i] : 0u, ep[i], epa ? epa[i] : -9);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- checks ------------------------------------------------------------- */

typedef struct rec {
  unsigned gid;
  int part;
  double w;
} rec;

/* Edges of the grid cut by the parts in all[0..tot-1] (every GID once),
 * and the edges in all; each edge counted once. */
static void grid_cut(const rec *all, int tot, double *cut, double *edges)
{
  int *part = malloc(((size_t)g_M + 1) * sizeof *part), i, k;
  ZOLTAN_ID_TYPE nb[4];
  *cut = *edges = 0.0;
  for (i = 0; i < tot; i++) part[all[i].gid] = all[i].part;
  for (i = 1; i <= g_M; i++) {
    int c = nbrs((ZOLTAN_ID_TYPE)i, nb);
    for (k = 0; k < c; k++)
      if (nb[k] > (ZOLTAN_ID_TYPE)i) {
        *edges += 1.0;
        *cut += part[nb[k]] != part[i];
      }
  }
  free(part);
}

static int rec_cmp(const void *x, const void *y)
{
  const rec *p = x, *q = y;
  return (p->gid > q->gid) - (p->gid < q->gid);
}

/* Gather (gid, part, weight) of all objects on every rank, sorted by GID. */
static rec *gather_all(const rec *mine, int n, int *total)
{
  return zpt_gather_sorted(mine, n, sizeof(rec), rec_cmp, total);
}

/* Every GID 1..M once, weights conserved, parts in range, balance bound. */
static void check_assignment(rec *mine, int n, int M, double wtotal, int nparts,
                             const double *target, double bound)
{
  int total, i;
  rec *all = gather_all(mine, n, &total);
  double s = 0.0, *load = calloc(nparts, sizeof *load), maxr = 0.0;
  ZPT_CHECK(total == M, "object count %d after balancing, expected %d", total, M);
  for (i = 0; i < total; i++) {
    ZPT_CHECK(all[i].gid == (unsigned)(i + 1),
              "GID at position %d is %u, expected %d (lost or duplicated)", i, all[i].gid, i + 1);
    if (all[i].gid != (unsigned)(i + 1)) break;
    ZPT_CHECK(all[i].part >= 0 && all[i].part < nparts, "GID %u in part %d outside [0,%d)",
              all[i].gid, all[i].part, nparts);
    if (all[i].part >= 0 && all[i].part < nparts) load[all[i].part] += all[i].w;
    s += all[i].w;
  }
  ZPT_CHECK(fabs(s - wtotal) <= 1e-9 * (1.0 + fabs(wtotal)), "total weight %.17g, expected %.17g",
            s, wtotal);
  for (i = 0; i < nparts; i++)
    if (target[i] > 0) maxr = fmax(maxr, load[i] / (target[i] * s));
  if (bound > 0 && s > 0)
    ZPT_CHECK(maxr <= bound, "max load/target = %.4f exceeds %.4f", maxr, bound);
  if (g_rank == 0) {
    /* A digest of every (GID, part), so that a script can compare two runs'
     * answers (FNV-1a over the sorted pairs). */
    unsigned long long h = 1469598103934665603ULL;
    for (i = 0; i < total; i++) {
      h = (h ^ (unsigned long long)all[i].gid) * 1099511628211ULL;
      h = (h ^ (unsigned long long)(unsigned)all[i].part) * 1099511628211ULL;
    }
    printf("check: %d objects, weight %.6g, max load/target %.4f\n", total, s, maxr);
    printf("answer digest: %016llx\n", h);
  }
  free(load);
  free(all);
}

/* Imports and exports must describe the same moves: gather (gid, dest part)
 * of both lists and compare. */
static void check_lists(int nimp, ZOLTAN_ID_PTR ig, int *ipa, int nexp, ZOLTAN_ID_PTR eg, int *epa)
{
  rec *a = malloc((nimp + 1) * sizeof *a), *b = malloc((nexp + 1) * sizeof *b), *ga, *gb;
  int i, ta, tb;
  for (i = 0; i < nimp; i++) {
    a[i].gid = ig[i];
    a[i].part = ipa ? ipa[i] : -1;
    a[i].w = 0;
  }
  for (i = 0; i < nexp; i++) {
    b[i].gid = eg[i];
    b[i].part = epa ? epa[i] : -1;
    b[i].w = 0;
  }
  ga = gather_all(a, nimp, &ta);
  gb = gather_all(b, nexp, &tb);
  ZPT_CHECK(ta == tb, "%d imports but %d exports in total", ta, tb);
  for (i = 0; i < ta && i < tb; i++) {
    ZPT_CHECK(ga[i].gid == gb[i].gid && ga[i].part == gb[i].part,
              "import (%u -> %d) differs from export (%u -> %d)", ga[i].gid, ga[i].part, gb[i].gid,
              gb[i].part);
    if (ga[i].gid != gb[i].gid) break;
  }
  free(a);
  free(b);
  free(ga);
  free(gb);
}

/* ---- main --------------------------------------------------------------- */

/* The command line (see the options in parse_options). */
typedef struct opts {
  const char *method, *weights, *dump, *rl, *lists, *target_scale, *memory;
  const char *params[64];
  const char *param_last; /* --param-last: set on the last rank only */
  int nparams, M, warn_on, empty0, dup, psizes, migrate, balance_api, copy, serialize, init_mod;
  int zmem, rounds, expect_error, expect_warn, then_still;
  unsigned long seed;
  double bound, cut_below;
} opts;

/* Reads the options into o (defaults first).  Returns 0, or 2 for an
 * unknown option (said on rank 0). */
static int parse_options(int argc, char **argv, int rank, opts *o)
{
  memset(o, 0, sizeof *o);
  o->method = "GREEDY";
  o->weights = "heavy";
  o->rl = "ALL";
  o->warn_on = -1;
  o->M = 1000;
  o->rounds = 1;
  o->seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL, *k = argv[i];
    int used = 1; /* 2 when the option takes the next argument */
    if (v && !strcmp(k, "--method"))
      o->method = v, used = 2;
    else if (v && !strcmp(k, "--param") && o->nparams < 64)
      o->params[o->nparams++] = v, used = 2;
    else if (v && !strcmp(k, "--param-last"))
      o->param_last = v, used = 2;
    else if (v && !strcmp(k, "--objects"))
      o->M = atoi(v), used = 2;
    else if (v && !strcmp(k, "--seed"))
      o->seed = strtoul(v, NULL, 10), used = 2;
    else if (v && !strcmp(k, "--weights"))
      o->weights = v, used = 2;
    else if (v && !strcmp(k, "--warn-on"))
      o->warn_on = atoi(v), used = 2;
    else if (v && !strcmp(k, "--rounds"))
      o->rounds = atoi(v), used = 2;
    else if (v && !strcmp(k, "--bound"))
      o->bound = atof(v), used = 2;
    else if (v && !strcmp(k, "--dump"))
      o->dump = v, used = 2;
    else if (v && !strcmp(k, "--lists"))
      o->lists = v, used = 2;
    else if (v && !strcmp(k, "--initial-part-mod"))
      o->init_mod = atoi(v), used = 2;
    else if (v && !strcmp(k, "--cut-below"))
      o->cut_below = atof(v), used = 2;
    else if (v && !strcmp(k, "--memory"))
      o->memory = v, used = 2;
    else if (v && !strcmp(k, "--target-scale"))
      o->target_scale = v, used = 2;
    else if (!strcmp(k, "--empty-rank0"))
      o->empty0 = 1;
    else if (!strcmp(k, "--dup-gid"))
      o->dup = 1;
    else if (!strcmp(k, "--part-sizes"))
      o->psizes = 1;
    else if (!strcmp(k, "--migrate"))
      o->migrate = 1;
    else if (!strcmp(k, "--sizes"))
      g_sizes = 1;
    else if (!strcmp(k, "--balance-api"))
      o->balance_api = 1;
    else if (!strcmp(k, "--copy"))
      o->copy = 1;
    else if (!strcmp(k, "--serialize"))
      o->serialize = 1;
    else if (!strcmp(k, "--expect-error"))
      o->expect_error = 1;
    else if (!strcmp(k, "--first-next"))
      g_first_next = 1;
    else if (!strcmp(k, "--zoltan-memory"))
      o->zmem = 1;
    else if (!strcmp(k, "--fixed"))
      g_fixed = 1;
    else if (!strcmp(k, "--fixed-foreign"))
      g_fixed_foreign = 1;
    else if (!strcmp(k, "--hypergraph"))
      g_hypergraph = 1;
    else if (!strcmp(k, "--bad-neighbour"))
      g_bad_nbr = 1;
    else if (!strcmp(k, "--expect-warn"))
      o->expect_warn = 1;
    else if (!strcmp(k, "--then-moves-nothing"))
      o->then_still = 1;
    else {
      if (rank == 0) fprintf(stderr, "zp_testapp: unknown option %s\n", k);
      return 2;
    }
    i += used - 1;
  }
  return 0;
}

/* The global problem, distributed cyclically over the ranks that own
 * objects; returns the total weight. */
static double make_problem(const opts *o, app *a)
{
  int owners = a->size - (o->empty0 && a->size > 1), me = a->rank - (o->empty0 && a->size > 1);
  double wtotal = 0.0;
  for (int i = 1; i <= o->M; i++) {
    double u = unif(o->seed, (uint64_t)i), w;
    if (!strcmp(o->weights, "unit"))
      w = 1.0;
    else if (!strcmp(o->weights, "zero"))
      w = 0.0;
    else if (!strcmp(o->weights, "extreme"))
      w = pow(10.0, -20.0 + 40.0 * u); /* 1e-20 .. 1e20 */
    else
      w = 10.0 + 990.0 * u * u * u * u; /* Charm++ lb_test shape */
    w = (float)w;
    wtotal += w;
    if (me >= 0 && (i - 1) % owners == me) {
      zpt_obj obj;
      obj.gid = (ZOLTAN_ID_TYPE)i;
      obj.w = (float)w;
      /* The initial part is the rank, or (for determinism tests across
       * rank counts) a function of the GID alone. */
      obj.part = o->init_mod > 0 ? (i - 1) % o->init_mod : a->rank;
      obj.gone = 0;
      zpt_app_push(a, obj);
    }
  }
  if (!strcmp(o->weights, "nan-on-last") && a->rank == a->size - 1 && a->n > 0)
    a->o[a->n - 1].w = NAN;
  if (o->dup && a->rank == a->size - 1 && a->n > 0 && a->size > 1) a->o[a->n - 1].gid = 1;
  return wtotal;
}

/* The graph or hypergraph callbacks of the test's grid. */
static void register_graph(struct Zoltan_Struct *zz, app *a)
{
  if (g_hypergraph) {
    Zoltan_Set_HG_Size_CS_Fn(zz, cb_hg_size, a);
    Zoltan_Set_HG_CS_Fn(zz, cb_hg_cs, a);
  } else {
    Zoltan_Set_Num_Edges_Multi_Fn(zz, cb_num_edges, a);
    Zoltan_Set_Edge_List_Multi_Fn(zz, cb_edges, a);
  }
}

/* The struct with the callbacks and the --param values; *errors_seen is 1
 * when Zoltan refused one of them or the method. */
static struct Zoltan_Struct *make_struct(opts *o, app *a, int *errors_seen)
{
  struct Zoltan_Struct *zz;
  /* Zoltan_Set_Param(NULL, ...) is how applications (and zdrive) turn on
   * Zoltan's allocation tracking before any struct exists. */
  if (o->zmem) Zoltan_Set_Param(NULL, "DEBUG_MEMORY", "2");
  zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", o->memory != NULL ? "2" : "1");
  if (o->memory != NULL) a->w2 = memory_of;
  zpt_register(zz, a);
  if (g_first_next) {
    /* FIRST/NEXT instead of the list: Zoltan uses the list when both exist. */
    Zoltan_Set_Obj_List_Fn(zz, NULL, NULL);
    Zoltan_Set_First_Obj_Fn(zz, cb_first, a);
    Zoltan_Set_Next_Obj_Fn(zz, cb_next, a);
  }
  zpt_register_geometry(zz, a);
  if (g_sizes) Zoltan_Set_Obj_Size_Multi_Fn(zz, cb_sizes, a);
  register_graph(zz, a);
  for (int i = 0; i < o->nparams; i++) {
    char name[128], *eq;
    strncpy(name, o->params[i], sizeof name - 1);
    name[sizeof name - 1] = '\0';
    eq = strchr(name, '=');
    if (!eq) continue;
    *eq = '\0';
    if (Zoltan_Set_Param(zz, name, eq + 1) != ZOLTAN_OK) *errors_seen = 1;
    if (!strcmp(name, "RETURN_LISTS")) o->rl = o->params[i] + (eq - name) + 1;
  }
  if (Zoltan_Set_Param(zz, "LB_METHOD", o->method) != ZOLTAN_OK) *errors_seen = 1;
  if (o->migrate) Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  if (o->param_last != NULL && a->rank == a->size - 1) {
    char name[128], *eq;
    snprintf(name, sizeof name, "%s", o->param_last);
    eq = strchr(name, '=');
    if (eq != NULL) {
      *eq = '\0';
      if (Zoltan_Set_Param(zz, name, eq + 1) != ZOLTAN_OK) *errors_seen = 1;
    }
  }
  return zz;
}

/* The number of parts Zoltan takes from the parameters, or the rank count. */
static int count_parts(const opts *o, int size)
{
  int nparts = size;
  for (int i = 0; i < o->nparams; i++)
    if (!strncmp(o->params[i], "NUM_GLOBAL_PARTS=", 17))
      nparts = atoi(o->params[i] + 17);
    else if (!strncmp(o->params[i], "NUM_GLOBAL_PARTITIONS=", 22))
      nparts = atoi(o->params[i] + 22);
  for (int i = 0; i < o->nparams; i++)
    if (!strncmp(o->params[i], "NUM_LOCAL_PARTS=", 16)) {
      int nl = atoi(o->params[i] + 16), g;
      MPI_Allreduce(&nl, &g, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      nparts = g;
    }
  return nparts;
}

/* The target share of each part (malloc'ed, nparts entries): 1, 2, 3 by
 * part number with --part-sizes (also set in zz, on rank 0), scaled by
 * --target-scale; and the one-rank warning of --warn-on. */
static double *make_targets(const opts *o, struct Zoltan_Struct *zz, int rank, int nparts)
{
  double *target = malloc(nparts * sizeof *target), ts = 0.0, scale[64];
  int nscale = 0;
  for (const char *p = o->target_scale; p != NULL && *p && nscale < 64;) {
    char *end;
    scale[nscale++] = strtod(p, &end);
    p = *end == ',' ? end + 1 : NULL;
  }
  for (int i = 0; i < nparts; i++) {
    target[i] = o->psizes ? 1.0 + (i % 3) : 1.0;
    if (nscale > 0) target[i] *= scale[i % nscale];
    ts += target[i];
  }
  for (int i = 0; i < nparts; i++) target[i] /= ts;
  if (o->psizes && rank == 0) {
    int *ids = malloc(nparts * sizeof *ids), *idx = calloc(nparts, sizeof *idx);
    float *sz = malloc(nparts * sizeof *sz);
    for (int i = 0; i < nparts; i++) {
      ids[i] = i;
      sz[i] = (float)(1.0 + (i % 3));
    }
    Zoltan_LB_Set_Part_Sizes(zz, 1, nparts, ids, idx, sz);
    free(ids);
    free(idx);
    free(sz);
  }
  if (rank == o->warn_on) {
    /* A warning raised on this rank only, before any method runs. */
    int id = nparts + 7, idx = 0;
    float sz = 1.0f;
    Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &id, &idx, &sz);
  }
  return target;
}

/* The struct the balances use: zz itself, its copy (--copy) or a struct
 * deserialised from it (--serialize), whose callbacks are set again since
 * Zoltan does not serialise them. */
static struct Zoltan_Struct *struct_to_use(const opts *o, struct Zoltan_Struct *zz, app *a)
{
  struct Zoltan_Struct *use = zz;
  if (o->copy) use = Zoltan_Copy(zz);
  if (o->serialize) {
    size_t n = Zoltan_Serialize_Size(zz);
    char *buf = malloc(n);
    int e = Zoltan_Serialize(zz, n, buf);
    ZPT_CHECK(e == ZOLTAN_OK, "Zoltan_Serialize returned %d", e);
    use = Zoltan_Create(MPI_COMM_WORLD);
    e = Zoltan_Deserialize(use, n, buf);
    ZPT_CHECK(e == ZOLTAN_OK, "Zoltan_Deserialize returned %d", e);
    free(buf);
    zpt_register(use, a);
    zpt_register_geometry(use, a);
    Zoltan_Set_Num_Edges_Multi_Fn(use, cb_num_edges, a);
    Zoltan_Set_Edge_List_Multi_Fn(use, cb_edges, a);
  }
  return use;
}

/* Drift before a later round: objects whose GID is in a growing window get
 * heavier.  Returns the new total weight. */
static double drift(app *a, int round)
{
  double s = 0.0, wtotal = 0.0;
  for (int i = 0; i < a->n; i++)
    if (a->o[i].gid % 7 == (unsigned)round % 7) a->o[i].w = (float)(a->o[i].w * 1.5f);
  for (int i = 0; i < a->n; i++) s += a->o[i].w;
  MPI_Allreduce(&s, &wtotal, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return wtotal;
}

/* The lists of one balance. */
typedef struct lists_of {
  int changes, ngid, nlid, nimp, nexp, ierr, *ip, *ipa, *ep, *epa;
  ZOLTAN_ID_PTR ig, il, eg, el;
} lists_of;

static void free_lists(lists_of *l)
{
  Zoltan_LB_Free_Part(&l->ig, &l->il, &l->ip, &l->ipa);
  Zoltan_LB_Free_Part(&l->eg, &l->el, &l->ep, &l->epa);
}

/* One Zoltan_LB_Partition (or Zoltan_LB_Balance) into l. */
static void balance_once(const opts *o, struct Zoltan_Struct *use, lists_of *l)
{
  memset(l, 0, sizeof *l);
  l->changes = -1;
  l->nimp = l->nexp = -2;
  if (o->balance_api)
    l->ierr = Zoltan_LB_Balance(use, &l->changes, &l->ngid, &l->nlid, &l->nimp, &l->ig, &l->il,
                                &l->ip, &l->nexp, &l->eg, &l->el, &l->ep);
  else
    l->ierr = Zoltan_LB_Partition(use, &l->changes, &l->ngid, &l->nlid, &l->nimp, &l->ig, &l->il,
                                  &l->ip, &l->ipa, &l->nexp, &l->eg, &l->el, &l->ep, &l->epa);
}

/* --expect-error: either a parameter was refused on every rank, or the
 * balance failed on every rank and returned no lists. */
static void check_expected_error(const lists_of *l, int errors_seen)
{
  int mine_err = l->ierr < 0, all_err, all_seen;
  MPI_Allreduce(&mine_err, &all_err, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&errors_seen, &all_seen, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  ZPT_CHECK(all_err || all_seen, "expected an error on every rank, got %d here", l->ierr);
  if (!all_seen)
    ZPT_CHECK(l->nimp <= 0 && l->nexp <= 0, "error return left lists (%d imports, %d exports)",
              l->nimp, l->nexp);
}

/* The counts and lists RETURN_LISTS asked for. */
static void check_return_lists(const opts *o, const app *a, const lists_of *l)
{
  const char *rl = o->rl;
  if (!l->changes && strcmp(rl, "PARTS") != 0) {
    ZPT_CHECK(l->nimp == 0 && l->nexp == 0, "no changes but lists of %d/%d", l->nimp, l->nexp);
  } else if (!strcmp(rl, "NONE")) {
    ZPT_CHECK(l->nimp == -1 && l->nexp == -1, "RETURN_LISTS=NONE gave counts %d/%d, expected -1",
              l->nimp, l->nexp);
  } else if (!strcmp(rl, "IMPORT")) {
    ZPT_CHECK(l->nexp == -1 && l->nimp >= 0, "RETURN_LISTS=IMPORT gave counts %d/%d", l->nimp,
              l->nexp);
  } else if (!strcmp(rl, "EXPORT")) {
    ZPT_CHECK(l->nimp == -1 && l->nexp >= 0, "RETURN_LISTS=EXPORT gave counts %d/%d", l->nimp,
              l->nexp);
  } else if (!strcmp(rl, "PARTS")) {
    ZPT_CHECK(l->nexp == a->n, "RETURN_LISTS=PARTS gave %d exports for %d objects", l->nexp, a->n);
  } else if (l->changes) {
    check_lists(l->nimp, l->ig, o->balance_api ? NULL : l->ipa, l->nexp, l->eg,
                o->balance_api ? NULL : l->epa);
  }
}

/* --sizes: the objects and bytes the balance moves, printed on rank 0. */
static void report_moves(const app *a, const lists_of *l)
{
  double mv[2] = {0.0, 0.0};
  for (int i = 0; i < l->nexp; i++) {
    int k = (int)l->el[i];
    if (k >= 0 && k < a->n && a->o[k].part != l->epa[i]) {
      mv[0] += 1.0;
      mv[1] += size_of(a->o[k].gid);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, mv, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (a->rank == 0) printf("moved %.0f objects %.0f bytes\n", mv[0], mv[1]);
}

/* rank 0 writes every GID's part to dump (--dump), or checks the grid's
 * edge cut against cut_below times a random assignment's (--cut-below). */
static void cut_and_dump(const opts *o, const rec *mine, int n, int nparts, int rank)
{
  int tot;
  rec *all = gather_all(mine, n, &tot);
  if (rank == 0 && o->cut_below > 0.0) {
    double cut, edges;
    grid_cut(all, tot, &cut, &edges);
    ZPT_CHECK(cut <= o->cut_below * (1.0 - 1.0 / nparts) * edges,
              "edge cut %.0f of %.0f edges is above %g x a random assignment's %.0f", cut, edges,
              o->cut_below, (1.0 - 1.0 / nparts) * edges);
  }
  if (rank == 0 && o->dump != NULL) {
    FILE *f = fopen(o->dump, "w");
    for (int i = 0; f && i < tot; i++) fprintf(f, "%u %d\n", all[i].gid, all[i].part);
    if (f) fclose(f);
  }
  free(all);
}

/* After a balance applied to the application: every object once, the
 * balance bound, memory limits, fixed objects, the cut and the dump. */
static void check_after(const opts *o, const app *a, int nparts, const double *target,
                        double wtotal)
{
  rec *mine = malloc((a->n + 1) * sizeof *mine);
  for (int i = 0; i < a->n; i++) {
    mine[i].gid = a->o[i].gid;
    mine[i].part = a->o[i].part;
    mine[i].w = a->o[i].w;
  }
  if (o->migrate && nparts == a->size && !o->psizes)
    for (int i = 0; i < a->n; i++)
      ZPT_CHECK(a->o[i].part == a->rank, "GID %u of part %d lives on rank %d", a->o[i].gid,
                a->o[i].part, a->rank);
  check_assignment(mine, a->n, o->M, wtotal, nparts, target, o->bound);
  /* The application's own part numbers, with the moves applied. */
  if (o->memory != NULL) check_memory(a, nparts, o->memory);
  for (int i = 0; g_fixed && i < a->n; i++)
    ZPT_CHECK(fixed_part_of(mine[i].gid) < 0 || mine[i].part == fixed_part_of(mine[i].gid),
              "GID %u is fixed to part %d but ended in part %d", mine[i].gid,
              fixed_part_of(mine[i].gid), mine[i].part);
  if (o->cut_below > 0.0 || o->dump != NULL) cut_and_dump(o, mine, a->n, nparts, a->rank);
  free(mine);
}

/* One round: drift (after the first), a balance and its checks.  Returns 1
 * when the rounds must stop (an expected or a global error). */
static int run_round(const opts *o, struct Zoltan_Struct *use, app *a, int round, int nparts,
                     const double *target, double *wtotal, int errors_seen)
{
  lists_of l;
  int gerr;
  if (round > 0) *wtotal = drift(a, round);
  balance_once(o, use, &l);
  MPI_Allreduce(&l.ierr, &gerr, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (o->lists != NULL)
    dump_lists(o->lists, l.nimp, l.ig, l.il, l.ip, o->balance_api ? NULL : l.ipa, l.nexp, l.eg,
               l.el, l.ep, o->balance_api ? NULL : l.epa, l.changes, l.ierr);
  if (o->expect_error) {
    check_expected_error(&l, errors_seen);
    free_lists(&l);
    return 1;
  }
  ZPT_CHECK(gerr >= 0, "Zoltan_LB_%s returned %d (min over ranks %d)",
            o->balance_api ? "Balance" : "Partition", l.ierr, gerr);
  if (gerr < 0) return 1;
  if (o->expect_warn) ZPT_CHECK(l.ierr == ZOLTAN_WARN, "expected ZOLTAN_WARN, got %d", l.ierr);
  ZPT_CHECK(l.changes == 0 || l.changes == 1, "changes = %d", l.changes);
  check_return_lists(o, a, &l);
  if (g_sizes && l.ierr >= 0 && l.nexp >= 0 && l.changes && !o->balance_api) report_moves(a, &l);
  if (o->migrate) {
    zpt_app_compact(a);
    ZPT_CHECK(a->bad_packs == 0, "%d packed or unpacked objects did not match their GID",
              a->bad_packs);
    update_owners(a);
  } else if (l.nexp >= 0 && l.changes) {
    /* Apply the export list to the application's own part numbers. */
    for (int i = 0; i < l.nexp; i++) {
      int k = (int)l.el[i];
      ZPT_CHECK(k >= 0 && k < a->n && a->o[k].gid == l.eg[i], "export %d has a bad local ID", i);
      if (k >= 0 && k < a->n) a->o[k].part = o->balance_api ? l.ep[i] : l.epa[i];
    }
  }
  free_lists(&l);
  if (o->migrate || (l.nexp >= 0 && strcmp(o->rl, "IMPORT") != 0))
    check_after(o, a, nparts, target, *wtotal);
  return 0;
}

/* --then-moves-nothing: one more balance of the balanced problem moves no
 * object. */
static void check_repeat_moves_nothing(const opts *o, struct Zoltan_Struct *use, const app *a)
{
  lists_of l;
  int moved = 0, gmoved;
  opts partition = *o;
  partition.balance_api = 0;
  balance_once(&partition, use, &l);
  ZPT_CHECK(l.ierr >= 0, "the repeated balance returned %d", l.ierr);
  for (int i = 0; l.ierr >= 0 && l.changes && i < l.nexp; i++) {
    int k = (int)l.el[i];
    moved += k >= 0 && k < a->n && a->o[k].part != l.epa[i];
  }
  MPI_Allreduce(&moved, &gmoved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  ZPT_CHECK(gmoved == 0, "the repeated balance moved %d objects", gmoved);
  free_lists(&l);
}

int main(int argc, char **argv)
{
  opts o;
  app a;
  struct Zoltan_Struct *zz, *use;
  double wtotal, *target;
  int nparts, errors_seen = 0, g;
  float ver;

  MPI_Init(&argc, &argv);
  zpt_app_init(&a);
  a.coords = grid_coords;
  g_rank = a.rank;
  if (parse_options(argc, argv, a.rank, &o)) {
    MPI_Finalize();
    return 2;
  }
  wtotal = make_problem(&o, &a);
  g_M = o.M;
  g_owner = calloc((size_t)o.M + 1, sizeof *g_owner);
  update_owners(&a);
  Zoltan_Initialize(argc, argv, &ver);
  zz = make_struct(&o, &a, &errors_seen);
  /* Parts: as Zoltan decides from the parameters; the test reads back the
   * number it set, or the rank count. */
  nparts = count_parts(&o, a.size);
  target = make_targets(&o, zz, a.rank, nparts);
  if (g_fixed) {
    g_fixed_nparts = nparts;
    Zoltan_Set_Num_Fixed_Obj_Fn(zz, cb_num_fixed, &a);
    Zoltan_Set_Fixed_Obj_List_Fn(zz, cb_fixed_list, &a);
  }
  use = struct_to_use(&o, zz, &a);
  for (int round = 0; round < o.rounds; round++)
    if (run_round(&o, use, &a, round, nparts, target, &wtotal, errors_seen)) break;
  if (o.then_still && !o.expect_error) check_repeat_moves_nothing(&o, use, &a);
  free(target);
  if (use != zz) Zoltan_Destroy(&use);
  Zoltan_Destroy(&zz);
  if (o.zmem) {
    /* Every array the layer handed out came from Zoltan's allocator and was
     * freed by Zoltan_LB_Free_Part or internally: nothing may remain. */
    size_t left = Zoltan_Memory_Usage(ZOLTAN_MEM_STAT_TOTAL);
    ZPT_CHECK(left == 0, "%zu bytes allocated through Zoltan_Malloc were never freed", left);
  }
  free(a.o);
  free(g_owner);
  g = zpt_check_total();
  if (a.rank == 0) printf("zp_testapp: %s\n", g ? "FAILED" : "passed");
  MPI_Finalize();
  return g ? 1 : 0;
}
