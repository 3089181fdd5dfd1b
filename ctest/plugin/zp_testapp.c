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
static int g_fixed, g_fixed_nparts;

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
  return k;
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

int main(int argc, char **argv)
{
  const char *method = "GREEDY", *weights = "heavy", *dump = NULL, *rl = "ALL", *lists = NULL;
  const char *params[64];
  int warn_on = -1;
  int nparams = 0, M = 1000, empty0 = 0, dup = 0, psizes = 0, migrate = 0, balance_api = 0,
      copy = 0;
  int serialize = 0, init_mod = 0, zmem = 0, rounds = 1, expect_error = 0, i, round, nparts,
      errors_seen = 0;
  unsigned long seed = 1;
  double bound = 0.0, wtotal = 0.0, cut_below = 0.0;
  int then_still = 0;
  const char *target_scale = NULL, *memory = NULL;
  int expect_warn = 0;
  app a;
  struct Zoltan_Struct *zz, *use;
  float ver;

  MPI_Init(&argc, &argv);
  zpt_app_init(&a);
  a.coords = grid_coords;
  g_rank = a.rank;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--method") && i + 1 < argc)
      method = argv[++i];
    else if (!strcmp(argv[i], "--param") && i + 1 < argc && nparams < 64)
      params[nparams++] = argv[++i];
    else if (!strcmp(argv[i], "--objects") && i + 1 < argc)
      M = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--weights") && i + 1 < argc)
      weights = argv[++i];
    else if (!strcmp(argv[i], "--empty-rank0"))
      empty0 = 1;
    else if (!strcmp(argv[i], "--dup-gid"))
      dup = 1;
    else if (!strcmp(argv[i], "--part-sizes"))
      psizes = 1;
    else if (!strcmp(argv[i], "--warn-on") && i + 1 < argc)
      warn_on = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--migrate"))
      migrate = 1;
    else if (!strcmp(argv[i], "--sizes"))
      g_sizes = 1;
    else if (!strcmp(argv[i], "--balance-api"))
      balance_api = 1;
    else if (!strcmp(argv[i], "--copy"))
      copy = 1;
    else if (!strcmp(argv[i], "--serialize"))
      serialize = 1;
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--bound") && i + 1 < argc)
      bound = atof(argv[++i]);
    else if (!strcmp(argv[i], "--expect-error"))
      expect_error = 1;
    else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
      dump = argv[++i];
    else if (!strcmp(argv[i], "--first-next"))
      g_first_next = 1;
    else if (!strcmp(argv[i], "--zoltan-memory"))
      zmem = 1;
    else if (!strcmp(argv[i], "--lists") && i + 1 < argc)
      lists = argv[++i];
    else if (!strcmp(argv[i], "--initial-part-mod") && i + 1 < argc)
      init_mod = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fixed"))
      g_fixed = 1;
    else if (!strcmp(argv[i], "--hypergraph"))
      g_hypergraph = 1;
    else if (!strcmp(argv[i], "--cut-below") && i + 1 < argc)
      cut_below = atof(argv[++i]);
    else if (!strcmp(argv[i], "--bad-neighbour"))
      g_bad_nbr = 1;
    else if (!strcmp(argv[i], "--memory") && i + 1 < argc)
      memory = argv[++i];
    else if (!strcmp(argv[i], "--expect-warn"))
      expect_warn = 1;
    else if (!strcmp(argv[i], "--target-scale") && i + 1 < argc)
      target_scale = argv[++i];
    else if (!strcmp(argv[i], "--then-moves-nothing"))
      then_still = 1;
    else {
      if (a.rank == 0) fprintf(stderr, "zp_testapp: unknown option %s\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }

  /* The global problem, distributed cyclically over the ranks that own. */
  {
    int owners = a.size - (empty0 && a.size > 1), me = a.rank - (empty0 && a.size > 1);
    for (i = 1; i <= M; i++) {
      double u = unif(seed, (uint64_t)i), w;
      if (!strcmp(weights, "unit"))
        w = 1.0;
      else if (!strcmp(weights, "zero"))
        w = 0.0;
      else if (!strcmp(weights, "extreme"))
        w = pow(10.0, -20.0 + 40.0 * u); /* 1e-20 .. 1e20 */
      else
        w = 10.0 + 990.0 * u * u * u * u; /* Charm++ lb_test shape */
      w = (float)w;
      wtotal += w;
      if (me >= 0 && (i - 1) % owners == me) {
        zpt_obj o;
        o.gid = (ZOLTAN_ID_TYPE)i;
        o.w = (float)w;
        /* The initial part is the rank, or (for determinism tests across
         * rank counts) a function of the GID alone. */
        o.part = init_mod > 0 ? (i - 1) % init_mod : a.rank;
        o.gone = 0;
        zpt_app_push(&a, o);
      }
    }
    if (!strcmp(weights, "nan-on-last") && a.rank == a.size - 1 && a.n > 0) a.o[a.n - 1].w = NAN;
    if (dup && a.rank == a.size - 1 && a.n > 0 && a.size > 1) a.o[a.n - 1].gid = 1;
  }

  g_M = M;
  g_owner = calloc((size_t)M + 1, sizeof *g_owner);
  update_owners(&a);
  Zoltan_Initialize(argc, argv, &ver);
  /* Zoltan_Set_Param(NULL, ...) is how applications (and zdrive) turn on
   * Zoltan's allocation tracking before any struct exists. */
  if (zmem) Zoltan_Set_Param(NULL, "DEBUG_MEMORY", "2");
  zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", memory != NULL ? "2" : "1");
  if (memory != NULL) a.w2 = memory_of;
  zpt_register(zz, &a);
  if (g_first_next) {
    /* FIRST/NEXT instead of the list: Zoltan uses the list when both exist. */
    Zoltan_Set_Obj_List_Fn(zz, NULL, NULL);
    Zoltan_Set_First_Obj_Fn(zz, cb_first, &a);
    Zoltan_Set_Next_Obj_Fn(zz, cb_next, &a);
  }
  zpt_register_geometry(zz, &a);
  if (g_sizes) Zoltan_Set_Obj_Size_Multi_Fn(zz, cb_sizes, &a);
  if (g_hypergraph) {
    Zoltan_Set_HG_Size_CS_Fn(zz, cb_hg_size, &a);
    Zoltan_Set_HG_CS_Fn(zz, cb_hg_cs, &a);
  } else {
    Zoltan_Set_Num_Edges_Multi_Fn(zz, cb_num_edges, &a);
    Zoltan_Set_Edge_List_Multi_Fn(zz, cb_edges, &a);
  }
  for (i = 0; i < nparams; i++) {
    char name[128], *eq;
    int e;
    strncpy(name, params[i], sizeof name - 1);
    name[sizeof name - 1] = '\0';
    eq = strchr(name, '=');
    if (!eq) continue;
    *eq = '\0';
    e = Zoltan_Set_Param(zz, name, eq + 1);
    if (e != ZOLTAN_OK) errors_seen = 1;
    if (!strcmp(name, "RETURN_LISTS")) rl = params[i] + (eq - name) + 1;
  }
  if (Zoltan_Set_Param(zz, "LB_METHOD", method) != ZOLTAN_OK) errors_seen = 1;
  if (migrate) Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");

  /* Parts: as Zoltan decides from the parameters; the test reads back the
   * number it set, or the rank count. */
  nparts = a.size;
  for (i = 0; i < nparams; i++)
    if (!strncmp(params[i], "NUM_GLOBAL_PARTS=", 17))
      nparts = atoi(params[i] + 17);
    else if (!strncmp(params[i], "NUM_GLOBAL_PARTITIONS=", 22))
      nparts = atoi(params[i] + 22);
  for (i = 0; i < nparams; i++)
    if (!strncmp(params[i], "NUM_LOCAL_PARTS=", 16)) {
      int nl = atoi(params[i] + 16), g;
      MPI_Allreduce(&nl, &g, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      nparts = g;
    }
  {
    double *target = malloc(nparts * sizeof *target), ts = 0.0;
    double scale[64];
    int nscale = 0;
    for (const char *p = target_scale; p != NULL && *p && nscale < 64;) {
      char *end;
      scale[nscale++] = strtod(p, &end);
      p = *end == ',' ? end + 1 : NULL;
    }
    for (i = 0; i < nparts; i++) {
      target[i] = psizes ? 1.0 + (i % 3) : 1.0;
      if (nscale > 0) target[i] *= scale[i % nscale];
      ts += target[i];
    }
    for (i = 0; i < nparts; i++) target[i] /= ts;
    if (psizes && a.rank == 0) {
      int *ids = malloc(nparts * sizeof *ids), *idx = calloc(nparts, sizeof *idx);
      float *sz = malloc(nparts * sizeof *sz);
      for (i = 0; i < nparts; i++) {
        ids[i] = i;
        sz[i] = (float)(1.0 + (i % 3));
      }
      Zoltan_LB_Set_Part_Sizes(zz, 1, nparts, ids, idx, sz);
      free(ids);
      free(idx);
      free(sz);
    }
    if (a.rank == warn_on) {
      /* A warning raised on this rank only, before any method runs. */
      int id = nparts + 7, idx = 0;
      float sz = 1.0f;
      Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &id, &idx, &sz);
    }

    if (g_fixed) {
      g_fixed_nparts = nparts;
      Zoltan_Set_Num_Fixed_Obj_Fn(zz, cb_num_fixed, &a);
      Zoltan_Set_Fixed_Obj_List_Fn(zz, cb_fixed_list, &a);
    }
    use = zz;
    if (copy) use = Zoltan_Copy(zz);
    if (serialize) {
      size_t n = Zoltan_Serialize_Size(zz);
      char *buf = malloc(n);
      int e = Zoltan_Serialize(zz, n, buf);
      ZPT_CHECK(e == ZOLTAN_OK, "Zoltan_Serialize returned %d", e);
      use = Zoltan_Create(MPI_COMM_WORLD);
      e = Zoltan_Deserialize(use, n, buf);
      ZPT_CHECK(e == ZOLTAN_OK, "Zoltan_Deserialize returned %d", e);
      free(buf);
      /* Callbacks are not serialised by Zoltan: set them again. */
      zpt_register(use, &a);
      zpt_register_geometry(use, &a);
      Zoltan_Set_Num_Edges_Multi_Fn(use, cb_num_edges, &a);
      Zoltan_Set_Edge_List_Multi_Fn(use, cb_edges, &a);
    }

    for (round = 0; round < rounds; round++) {
      int changes = -1, ngid, nlid, nimp = -2, nexp = -2, ierr, gerr, *ip = NULL, *ipa = NULL,
          *ep = NULL, *epa = NULL;
      ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
      rec *mine;

      if (round > 0) {
        /* Drift: objects whose GID is in a growing window get heavier. */
        wtotal = 0.0;
        for (i = 0; i < a.n; i++) {
          if (a.o[i].gid % 7 == (unsigned)round % 7) a.o[i].w = (float)(a.o[i].w * 1.5f);
        }
        {
          double s = 0.0;
          for (i = 0; i < a.n; i++) s += a.o[i].w;
          MPI_Allreduce(&s, &wtotal, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
      }
      if (balance_api)
        ierr = Zoltan_LB_Balance(use, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &nexp, &eg, &el,
                                 &ep);
      else
        ierr = Zoltan_LB_Partition(use, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp,
                                   &eg, &el, &ep, &epa);
      MPI_Allreduce(&ierr, &gerr, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      if (lists != NULL)
        dump_lists(lists, nimp, ig, il, ip, balance_api ? NULL : ipa, nexp, eg, el, ep,
                   balance_api ? NULL : epa, changes, ierr);
      if (expect_error) {
        /* Either a parameter was refused on every rank, or the balance
         * failed on every rank and returned no lists. */
        int mine_err = ierr < 0, all_err, all_seen;
        MPI_Allreduce(&mine_err, &all_err, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&errors_seen, &all_seen, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        ZPT_CHECK(all_err || all_seen, "expected an error on every rank, got %d here", ierr);
        if (!all_seen)
          ZPT_CHECK(nimp <= 0 && nexp <= 0, "error return left lists (%d imports, %d exports)",
                    nimp, nexp);
        Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
        Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
        break;
      }
      ZPT_CHECK(gerr >= 0, "Zoltan_LB_%s returned %d (min over ranks %d)",
                balance_api ? "Balance" : "Partition", ierr, gerr);
      if (gerr < 0) break;
      if (expect_warn) ZPT_CHECK(ierr == ZOLTAN_WARN, "expected ZOLTAN_WARN, got %d", ierr);
      ZPT_CHECK(changes == 0 || changes == 1, "changes = %d", changes);

      if (!changes && strcmp(rl, "PARTS") != 0) {
        ZPT_CHECK(nimp == 0 && nexp == 0, "no changes but lists of %d/%d", nimp, nexp);
      } else if (!strcmp(rl, "NONE")) {
        ZPT_CHECK(nimp == -1 && nexp == -1, "RETURN_LISTS=NONE gave counts %d/%d, expected -1",
                  nimp, nexp);
      } else if (!strcmp(rl, "IMPORT")) {
        ZPT_CHECK(nexp == -1 && nimp >= 0, "RETURN_LISTS=IMPORT gave counts %d/%d", nimp, nexp);
      } else if (!strcmp(rl, "EXPORT")) {
        ZPT_CHECK(nimp == -1 && nexp >= 0, "RETURN_LISTS=EXPORT gave counts %d/%d", nimp, nexp);
      } else if (!strcmp(rl, "PARTS")) {
        ZPT_CHECK(nexp == a.n, "RETURN_LISTS=PARTS gave %d exports for %d objects", nexp, a.n);
      } else if (changes) {
        check_lists(nimp, ig, balance_api ? NULL : ipa, nexp, eg, balance_api ? NULL : epa);
      }
      if (g_sizes && ierr >= 0 && nexp >= 0 && changes && !balance_api) {
        double mv[2] = {0.0, 0.0};
        for (i = 0; i < nexp; i++) {
          int l = (int)el[i];
          if (l >= 0 && l < a.n && a.o[l].part != epa[i]) {
            mv[0] += 1.0;
            mv[1] += size_of(a.o[l].gid);
          }
        }
        MPI_Allreduce(MPI_IN_PLACE, mv, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (a.rank == 0) printf("moved %.0f objects %.0f bytes\n", mv[0], mv[1]);
      }

      if (migrate) {
        zpt_app_compact(&a);
        ZPT_CHECK(a.bad_packs == 0, "%d packed or unpacked objects did not match their GID",
                  a.bad_packs);
        update_owners(&a);
      } else if (nexp >= 0 && changes) {
        /* Apply the export list to the application's own part numbers. */
        for (i = 0; i < nexp; i++) {
          int l = (int)el[i];
          ZPT_CHECK(l >= 0 && l < a.n && a.o[l].gid == eg[i], "export %d has a bad local ID", i);
          if (l >= 0 && l < a.n) a.o[l].part = balance_api ? ep[i] : epa[i];
        }
      }
      Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
      Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);

      if (migrate || (nexp >= 0 && strcmp(rl, "IMPORT") != 0)) {
        mine = malloc((a.n + 1) * sizeof *mine);
        for (i = 0; i < a.n; i++) {
          mine[i].gid = a.o[i].gid;
          mine[i].part = a.o[i].part;
          mine[i].w = a.o[i].w;
        }
        if (migrate && nparts == a.size && !psizes)
          for (i = 0; i < a.n; i++)
            ZPT_CHECK(a.o[i].part == a.rank, "GID %u of part %d lives on rank %d", a.o[i].gid,
                      a.o[i].part, a.rank);
        check_assignment(mine, a.n, M, wtotal, nparts, target, bound);
        if (memory != NULL) {
          /* The application's own part numbers, with the moves applied. */
          check_memory(&a, nparts, memory);
        }
        for (i = 0; g_fixed && i < a.n; i++)
          ZPT_CHECK(fixed_part_of(mine[i].gid) < 0 || mine[i].part == fixed_part_of(mine[i].gid),
                    "GID %u is fixed to part %d but ended in part %d", mine[i].gid,
                    fixed_part_of(mine[i].gid), mine[i].part);
        if (cut_below > 0.0) {
          int tot;
          double cut, edges;
          rec *all = gather_all(mine, a.n, &tot);
          if (a.rank == 0) {
            grid_cut(all, tot, &cut, &edges);
            ZPT_CHECK(cut <= cut_below * (1.0 - 1.0 / nparts) * edges,
                      "edge cut %.0f of %.0f edges is above %g x a random assignment's %.0f", cut,
                      edges, cut_below, (1.0 - 1.0 / nparts) * edges);
          }
          free(all);
        }
        if (dump != NULL) {
          int tot;
          rec *all = gather_all(mine, a.n, &tot);
          if (a.rank == 0) {
            FILE *f = fopen(dump, "w");
            for (i = 0; f && i < tot; i++) fprintf(f, "%u %d\n", all[i].gid, all[i].part);
            if (f) fclose(f);
          }
          free(all);
        }
        free(mine);
      }
    }
    if (then_still && !expect_error) {
      int changes = -1, ngid, nlid, nimp = 0, nexp = 0, *ip = NULL, *ipa = NULL, *ep = NULL,
          *epa = NULL, moved, gmoved;
      ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
      int ierr = Zoltan_LB_Partition(use, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp,
                                     &eg, &el, &ep, &epa);
      ZPT_CHECK(ierr >= 0, "the repeated balance returned %d", ierr);
      moved = 0;
      for (i = 0; ierr >= 0 && changes && i < nexp; i++) {
        int l = (int)el[i];
        moved += l >= 0 && l < a.n && a.o[l].part != epa[i];
      }
      MPI_Allreduce(&moved, &gmoved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      ZPT_CHECK(gmoved == 0, "the repeated balance moved %d objects", gmoved);
      Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
      Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    }
    free(target);
  }
  if (use != zz) Zoltan_Destroy(&use);
  Zoltan_Destroy(&zz);
  if (zmem) {
    /* Every array the layer handed out came from Zoltan's allocator and was
     * freed by Zoltan_LB_Free_Part or internally: nothing may remain. */
    size_t left = Zoltan_Memory_Usage(ZOLTAN_MEM_STAT_TOTAL);
    ZPT_CHECK(left == 0, "%zu bytes allocated through Zoltan_Malloc were never freed", left);
  }
  free(a.o);
  free(g_owner);
  {
    int g = zpt_check_total();
    if (a.rank == 0) printf("zp_testapp: %s\n", g ? "FAILED" : "passed");
    MPI_Finalize();
    return g ? 1 : 0;
  }
}
