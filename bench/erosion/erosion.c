/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * erosion - the fluid-with-erosion application of the ULBA paper (Boulmier
 * et al., section IV.B) as a real Zoltan application.
 *
 * The mesh is (P s) x s cells, one rock disc per initial stripe (physics in
 * erosion_model.h).  The Zoltan objects are segments of columns: each column
 * is cut into R segments of s/R cells (R = 1: whole columns, the paper's
 * setting), weighted by their work units; a balance is Zoltan_LB_Partition
 * with AUTO_MIGRATE (the segments travel through pack/unpack callbacks).
 * With one geometric coordinate (x), RCB cuts the domain into stripes along x
 * as in the paper; with two (--base RCB2D) it cuts it into rectangles.
 * Every step: a halo exchange of the neighbouring segments owned by other
 * ranks, the compute (erosion of rock cells, relaxation sweeps on every fluid
 * cell), then the adaptive trigger decides whether to balance.
 *
 * Two times are reported and kept apart everywhere:
 *   measured  per-rank compute time on the per-thread CPU clock
 *             (CLOCK_THREAD_CPUTIME_ID), parallel step time = max over
 *             ranks; a balance costs the max over ranks of its CPU time;
 *   modelled  max over ranks of (work units x calibrated cost per unit) plus
 *             the balance cost: by default the median cost of calibration
 *             balances (the same for every run), or each balance's measured
 *             cost (--lb-cost measured), or a given cost.  On an
 *             oversubscribed 2-core machine only this figure is meaningful
 *             for 16-64 ranks, and with --lb-cost it is exactly reproducible.
 * The trigger is fed the modelled per-rank step time, so that its decisions
 * follow the figure that is reported.
 *
 * Several runs (methods) are done in one invocation on the same problem; see
 * usage() for the options and docs/erosion.md for the experiment.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zoltan.h>

#include <adaptive_trigger.h>
#ifdef EROSION_HAVE_ULBA
#include <ulba_zoltan.h>
#endif

#include "erosion_model.h"

/* Words per segment record in halo messages and migration buffers: the
 * object id, then h types, then EROSION_SLOTS h values (all as doubles). */
#define REC_WORDS(h) (1 + (size_t)(h) * (1 + EROSION_SLOTS))

/* The --erosion word of a rule. */
static const char *erosion_rule_name(int rule)
{
  return rule == EROSION_FROM_BELOW   ? "from-below"
         : rule == EROSION_DOWNSTREAM ? "downstream"
                                      : "isotropic";
}

/* How the balance cost charged to the modelled time is obtained. */
#define LB_CALIBRATED  0 /* median of calibration balances, same for every run */
#define LB_MEASURED    1 /* each balance's own measured CPU time */
#define LB_FIXED       2 /* given by --lb-cost */
#define CALIB_BALANCES 9 /* balances done to calibrate the cost */

/* One run of the comparison. */
typedef struct run_spec {
  char name[32];   /* file-name friendly label, e.g. std_zhai */
  int balance;     /* 0: never balance */
  int ulba;        /* 1: LB_METHOD=ULBA over the base method */
  int automatic;   /* 1: LB_METHOD=AUTO (the advisor picks at each decision);
                    * 2: the same, reading the hints an earlier auto_zhai run
                    * of this invocation wrote (LB_HINTS_FILE) */
  char alpha[16];  /* ULBA_ALPHA value (number or AUTO) */
  char growth[8];  /* ULBA_GROWTH of this run, or "" for --ulba-growth */
  char policy[24]; /* ADAPTIVE_POLICY */
} run_spec;

/* Options of the invocation. */
typedef struct options {
  erosion_config cfg;      /* the problem (P is the number of ranks) */
  long steps;              /* time steps per run */
  char base[16];           /* base partitioner as given: RCB, RCB2D or GREEDY */
  char method[16];         /* the Zoltan method of the base: RCB or GREEDY */
  int dims;                /* geometric dimensions given to Zoltan: 1 or 2 */
  int rows;                /* R, segments per column (objects = X R) */
  int parts;               /* --parts: PEs modelled as Zoltan parts (0 = one per rank) */
  double mem_limit;        /* --mem-limit in GiB (0: 80% of the physical memory) */
  char out[512];           /* output folder */
  char tag[64];            /* prefix of the output files */
  double unit_cost;        /* seconds per work unit; <= 0: calibrate */
  int calib_sweeps;        /* sweeps per unit of the calibration (default: sweeps) */
  double lb_cost;          /* balance cost in seconds when lb_mode is LB_FIXED */
  int lb_mode;             /* LB_CALIBRATED, LB_MEASURED or LB_FIXED */
  long period;             /* ADAPTIVE_PERIOD of the periodic run */
  int no_measured;         /* omit measured columns (for byte-exact comparisons) */
  int columns;             /* write per-column initial/final units */
  int quiet;               /* no progress lines */
  int debug_level;         /* Zoltan's DEBUG_LEVEL of every run (default 0) */
  int ulba_guard;          /* ADAPTIVE_ULBA_GUARD=1 in every run's trigger */
  const char *ulba_growth; /* ULBA_GROWTH of the ulba_* runs (PART or OBJECT) */
  const char *degradation; /* ADAPTIVE_DEGRADATION of every run's trigger */
  int expect_same;         /* check: every run ends in the same cell state */
  int expect_growth;       /* check: only columns of strong rocks gained work */
  char expect_equal[64];   /* check: "A,B" runs A and B wrote identical CSV rows */
  run_spec *runs;          /* runs to do, in order */
  int nruns;               /* number of runs */
} options;

/* The local part of the mesh and everything derived from the partition. */
typedef struct sim {
  const options *opt;    /* the invocation */
  int rank, size;        /* MPI */
  int s;                 /* column height */
  long X;                /* number of columns */
  int R;                 /* segments per column */
  int h;                 /* cells per segment, s / R */
  long NO;               /* number of objects (segments), X R */
  unsigned char *strong; /* strong-rock flags, P entries */
  /* Local segments, sorted by id.  Segment id g = x R + b holds the cells
   * b h .. b h + h - 1 of column x. */
  int n, cap;            /* local segments, allocated slots */
  long *ids;             /* id of each local segment */
  unsigned char *T, *T2; /* types (n h), current and next */
  double *U, *U2;        /* values (n EROSION_SLOTS h), current and next */
  char *gone;            /* 1 once packed for another rank */
  /* Segments received by migration, appended after the call. */
  int nin, capin; /* count, allocated */
  double *inbuf;  /* REC_WORDS(h) doubles per incoming segment */
  /* Partition-derived data. */
  int *owner;                 /* owner rank of every segment (NO entries) */
  const unsigned char **colT; /* types of segment g if local or halo, else NULL */
  const double **colU;        /* values of segment g if local or halo, else NULL */
  /* Halo: per peer rank, the segments sent and received (sorted by id). */
  int *scount, *rcount; /* segments per peer */
  long *slist, *rlist;  /* segments, grouped by peer */
  double *sbuf, *rbuf;  /* message buffers */
  unsigned char *hT;    /* received types */
  double *hU;           /* received values */
  long nsend, nrecv;    /* totals */
  double *col_units;    /* units of each local segment this step */
  /* Parts as PEs (--parts): the part of every segment (NO entries, the
   * same on every rank) and the units of every part this step. */
  int P, ppr;         /* parts (PEs) and parts per rank */
  int *gpart;         /* part of each segment */
  double *part_units; /* P entries */
  int calib_hot;      /* calibration: the middle stripe weighs double */
} sim;

static int g_rank = 0;

#define FAIL(...)                                                                                  \
  do {                                                                                             \
    fprintf(stderr, "erosion[%d]: ", g_rank);                                                      \
    fprintf(stderr, __VA_ARGS__);                                                                  \
    fprintf(stderr, "\n");                                                                         \
  } while (0)

static double thread_cpu(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- local storage ---------------------------------------------------- */

static int sim_reserve(sim *m, int need)
{
  size_t s = (size_t)m->h;
  if (need <= m->cap) return 0;
  {
    int cap = need + need / 2 + 4;
    long *xs = realloc(m->ids, (size_t)cap * sizeof *xs);
    unsigned char *T, *T2;
    double *U, *U2, *cu;
    char *gone;
    if (!xs) return -1;
    m->ids = xs;
    T = realloc(m->T, (size_t)cap * s);
    if (!T) return -1;
    m->T = T;
    T2 = realloc(m->T2, (size_t)cap * s);
    if (!T2) return -1;
    m->T2 = T2;
    U = realloc(m->U, (size_t)cap * s * EROSION_SLOTS * sizeof *U);
    if (!U) return -1;
    m->U = U;
    U2 = realloc(m->U2, (size_t)cap * s * EROSION_SLOTS * sizeof *U2);
    if (!U2) return -1;
    m->U2 = U2;
    gone = realloc(m->gone, (size_t)cap);
    if (!gone) return -1;
    m->gone = gone;
    cu = realloc(m->col_units, (size_t)cap * sizeof *cu);
    if (!cu) return -1;
    m->col_units = cu;
    m->cap = cap;
  }
  return 0;
}

/* The lists and buffers of the halo exchange, which the exchange plan
 * rebuilds whenever the column owners change. */
static void halo_free(sim *m)
{
  free(m->slist);
  free(m->rlist);
  free(m->sbuf);
  free(m->rbuf);
  free(m->hT);
  free(m->hU);
}

static void sim_free(sim *m)
{
  free(m->strong);
  free(m->ids);
  free(m->T);
  free(m->T2);
  free(m->U);
  free(m->U2);
  free(m->gone);
  free(m->inbuf);
  free(m->owner);
  free(m->colT);
  free(m->colU);
  free(m->scount);
  free(m->rcount);
  halo_free(m);
  free(m->col_units);
  free(m->gpart);
  free(m->part_units);
  memset(m, 0, sizeof *m);
}

/* Pack local segment i into rec: id, types, values. */
static void pack_col(const sim *m, int i, double *rec)
{
  size_t s = (size_t)m->h, k;
  rec[0] = (double)m->ids[i];
  for (k = 0; k < s; k++) rec[1 + k] = (double)m->T[(size_t)i * s + k];
  memcpy(rec + 1 + s, m->U + (size_t)i * s * EROSION_SLOTS, s * EROSION_SLOTS * sizeof(double));
}

/* ---- partition-derived data ------------------------------------------- */

static int cmp_long(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* Sort the local segments by id (after a migration appended some). */
static int sort_local(sim *m)
{
  size_t s = (size_t)m->h;
  long *key = malloc(((size_t)m->n + 1) * 2 * sizeof *key);
  unsigned char *T2 = m->T2;
  double *U2 = m->U2;
  long *xs2;
  int i;
  if (!key) return -1;
  for (i = 0; i < m->n; i++) {
    key[2 * i] = m->ids[i];
    key[2 * i + 1] = i;
  }
  qsort(key, (size_t)m->n, 2 * sizeof *key, cmp_long);
  xs2 = key; /* reuse: write the sorted x in place afterwards */
  for (i = 0; i < m->n; i++) {
    long from = key[2 * i + 1];
    memcpy(T2 + (size_t)i * s, m->T + (size_t)from * s, s);
    memcpy(U2 + (size_t)i * s * EROSION_SLOTS, m->U + (size_t)from * s * EROSION_SLOTS,
           s * EROSION_SLOTS * sizeof(double));
  }
  for (i = 0; i < m->n; i++) m->ids[i] = xs2[2 * i];
  m->T2 = m->T;
  m->T = T2;
  m->U2 = m->U;
  m->U = U2;
  free(key);
  return 0;
}

/* 1 when one of the (up to four) neighbours of segment g is owned by rank
 * r: the same rows of columns x-1 and x+1, the segments below and above. */
static int neighbour_owned_by(const sim *m, long g, int r)
{
  long x = g / m->R;
  int b = (int)(g % m->R);
  return (x > 0 && m->owner[g - m->R] == r) || (x + 1 < m->X && m->owner[g + m->R] == r) ||
         (b > 0 && m->owner[g - 1] == r) || (b + 1 < m->R && m->owner[g + 1] == r);
}

/* Rebuild the owner array from every rank's segment list, check that every
 * segment exists exactly once, and rebuild the halo lists.  Collective. */
static int rebuild(sim *m)
{
  int *counts = NULL, *displs = NULL, r, i, ok = 1, gok = 0;
  long *all = NULL, k, total = 0;
  int rc = -1;

  counts = malloc((size_t)m->size * sizeof *counts);
  displs = malloc((size_t)m->size * sizeof *displs);
  if (!counts || !displs) goto end;
  MPI_Allgather(&m->n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
  for (r = 0; r < m->size; r++) {
    displs[r] = (int)total;
    total += counts[r];
  }
  all = malloc(((size_t)total + 1) * sizeof *all);
  if (!all) goto end;
  MPI_Allgatherv(m->ids, m->n, MPI_LONG, all, counts, displs, MPI_LONG, MPI_COMM_WORLD);
  for (k = 0; k < m->NO; k++) m->owner[k] = -1;
  if (total != m->NO) ok = 0;
  for (r = 0; r < m->size && ok; r++)
    for (i = 0; i < counts[r]; i++) {
      long x = all[displs[r] + i];
      if (x < 0 || x >= m->NO || m->owner[x] != -1) {
        ok = 0;
        break;
      }
      m->owner[x] = r;
    }
  if (!ok) {
    FAIL("conservation check failed: %ld segments held for %ld, or a segment twice", total, m->NO);
    goto end;
  }

  /* Halo lists: a segment goes to every other rank owning one of its
   * neighbours, once; both sides enumerate peers and segments in increasing
   * order, so the messages need no headers.  A whole segment is sent even
   * when the receiver needs only its end cell (a vertical neighbour): one
   * record format keeps the exchange simple, and with R = 1 (the paper's
   * stripes) there are no vertical neighbours. */
  for (r = 0; r < m->size; r++) m->scount[r] = m->rcount[r] = 0;
  m->nsend = m->nrecv = 0;
  for (int pass = 0; pass < 2; pass++) {
    long ns = 0, nr = 0;
    for (r = 0; r < m->size; r++) {
      if (r == m->rank) continue;
      for (i = 0; i < m->n; i++) {
        long x = m->ids[i];
        if (neighbour_owned_by(m, x, r)) {
          if (pass == 1)
            m->slist[ns] = x;
          else
            m->scount[r]++;
          ns++;
        }
      }
      /* Segments of r adjacent to one of ours. */
      for (k = 0; k < m->NO; k++) {
        if (m->owner[k] != r) continue;
        if (neighbour_owned_by(m, k, m->rank)) {
          if (pass == 1)
            m->rlist[nr] = k;
          else
            m->rcount[r]++;
          nr++;
        }
      }
    }
    if (pass == 0) {
      size_t w = REC_WORDS(m->h);
      m->nsend = ns;
      m->nrecv = nr;
      halo_free(m);
      m->slist = malloc(((size_t)ns + 1) * sizeof *m->slist);
      m->rlist = malloc(((size_t)nr + 1) * sizeof *m->rlist);
      m->sbuf = malloc(((size_t)ns + 1) * w * sizeof *m->sbuf);
      m->rbuf = malloc(((size_t)nr + 1) * w * sizeof *m->rbuf);
      m->hT = malloc(((size_t)nr + 1) * (size_t)m->h);
      m->hU = malloc(((size_t)nr + 1) * (size_t)m->h * EROSION_SLOTS * sizeof *m->hU);
      if (!m->slist || !m->rlist || !m->sbuf || !m->rbuf || !m->hT || !m->hU) goto end;
    }
  }
  ok = 1;
  rc = 0;
end:
  gok = rc == 0;
  {
    int mine = gok;
    MPI_Allreduce(&mine, &gok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  }
  free(counts);
  free(displs);
  free(all);
  return gok ? 0 : -1;
}

/* Exchange the halo segments and point colT/colU at every segment this rank
 * can see.  Collective among neighbours. */
static int halo_exchange(sim *m)
{
  size_t w = REC_WORDS(m->h), s = (size_t)m->h;
  MPI_Request *req = malloc(2 * (size_t)m->size * sizeof *req);
  /* Real statuses rather than MPI_STATUSES_IGNORE: GCC 12 reads MPICH's
   * sentinel pointer as a zero-sized array and rejects the call under
   * -Werror=stringop-overflow. */
  MPI_Status *st = malloc(2 * (size_t)m->size * sizeof *st);
  long soff = 0, roff = 0, k;
  int nreq = 0, r, i;
  if (!req || !st) {
    free(req);
    free(st);
    return -1;
  }
  /* Pack: local index of each segment to send, by binary search. */
  for (k = 0; k < m->nsend; k++) {
    long *hit = bsearch(&m->slist[k], m->ids, (size_t)m->n, sizeof *m->ids, cmp_long);
    pack_col(m, (int)(hit - m->ids), m->sbuf + (size_t)k * w);
  }
  for (r = 0; r < m->size; r++) {
    if (m->rcount[r] > 0)
      MPI_Irecv(m->rbuf + (size_t)roff * w, (int)(m->rcount[r] * w), MPI_DOUBLE, r, 7,
                MPI_COMM_WORLD, &req[nreq++]);
    roff += m->rcount[r];
  }
  for (r = 0; r < m->size; r++) {
    if (m->scount[r] > 0)
      MPI_Isend(m->sbuf + (size_t)soff * w, (int)(m->scount[r] * w), MPI_DOUBLE, r, 7,
                MPI_COMM_WORLD, &req[nreq++]);
    soff += m->scount[r];
  }
  MPI_Waitall(nreq, req, st);
  free(req);
  free(st);
  for (k = 0; k < m->NO; k++) {
    m->colT[k] = NULL;
    m->colU[k] = NULL;
  }
  for (k = 0; k < m->nrecv; k++) {
    const double *rec = m->rbuf + (size_t)k * w;
    size_t j;
    long x = (long)rec[0];
    if (x != m->rlist[k]) {
      FAIL("halo message out of order: got segment %ld, expected %ld", x, m->rlist[k]);
      return -1;
    }
    for (j = 0; j < s; j++) m->hT[(size_t)k * s + j] = (unsigned char)rec[1 + j];
    memcpy(m->hU + (size_t)k * s * EROSION_SLOTS, rec + 1 + s, s * EROSION_SLOTS * sizeof(double));
    m->colT[x] = m->hT + (size_t)k * s;
    m->colU[x] = m->hU + (size_t)k * s * EROSION_SLOTS;
  }
  for (i = 0; i < m->n; i++) {
    m->colT[m->ids[i]] = m->T + (size_t)i * s;
    m->colU[m->ids[i]] = m->U + (size_t)i * s * EROSION_SLOTS;
  }
  return 0;
}

/* One compute step on the local segments.  Returns the work units done;
 * *eroded gets the rock cells eroded here. */
static long compute(sim *m, long step, long *eroded)
{
  const size_t h = (size_t)m->h, w = h * EROSION_SLOTS;
  const long R = m->R;
  long units = 0, er = 0;
  int i;
  for (i = 0; i < m->n; i++) {
    long g = m->ids[i], x = g / R, e = 0, u;
    int b = (int)(g % R);
    int has_l = x > 0, has_r = x + 1 < m->X, has_b = b > 0, has_a = b + 1 < R;
    /* The ghost cells below and above: the top cell of the segment below,
     * the bottom cell of the segment above. */
    u = erosion_segment_step(
        &m->opt->cfg, m->strong, step, x, b * m->h, m->h, has_l ? m->colT[g - R] : NULL,
        has_l ? m->colU[g - R] : NULL, m->T + i * h, m->U + i * w, has_r ? m->colT[g + R] : NULL,
        has_r ? m->colU[g + R] : NULL, has_b ? m->colT[g - 1] + (h - 1) : NULL,
        has_b ? m->colU[g - 1] + (h - 1) * EROSION_SLOTS : NULL, has_a ? m->colT[g + 1] : NULL,
        has_a ? m->colU[g + 1] : NULL, m->T2 + i * h, m->U2 + i * w, &e);
    m->col_units[i] = (double)u;
    units += u;
    er += e;
  }
  {
    unsigned char *t = m->T;
    double *u = m->U;
    m->T = m->T2;
    m->T2 = t;
    m->U = m->U2;
    m->U2 = u;
  }
  *eroded = er;
  return units;
}

/* ---- Zoltan callbacks ------------------------------------------------- */

static int cb_num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((sim *)d)->n;
}

static void cb_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                        float *w, int *ierr)
{
  sim *m = d;
  int i;
  (void)ng;
  (void)nl;
  for (i = 0; i < m->n; i++) {
    gids[i] = (ZOLTAN_ID_TYPE)m->ids[i];
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) {
      long x = m->ids[i] / m->R, mid = (long)(m->P / 2) * m->s;
      double f = m->calib_hot && x >= mid && x < mid + m->s ? 2.0 : 1.0;
      w[i * wdim] =
          (float)(f * (double)erosion_column_units(&m->opt->cfg, m->h, m->T + (size_t)i * m->h));
    }
  }
  *ierr = ZOLTAN_OK;
}

static int cb_num_geom(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((sim *)d)->opt->dims;
}

/* The segment's centre.  With one coordinate (x only) RCB cuts stripes
 * along x, as in the paper; with two it cuts rectangles. */
static void cb_geom(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int dim,
                    double *x, int *ierr)
{
  const sim *m = d;
  int i;
  (void)ng;
  (void)nl;
  (void)lids;
  *ierr = ZOLTAN_OK;
  if (dim != m->opt->dims) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (i = 0; i < n; i++) {
    long g = (long)gids[i];
    x[(size_t)i * dim] = (double)(g / m->R) + 0.5;
    if (dim == 2) x[(size_t)i * dim + 1] = (double)(g % m->R) * m->h + 0.5 * m->h;
  }
}

/* The current part of each object (--parts): Zoltan assumes part = rank
 * without it. */
static void cb_parts(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *parts, int *ierr)
{
  const sim *m = d;
  int i;
  (void)ng;
  (void)nl;
  (void)lids;
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n; i++) {
    long g = (long)gids[i];
    if (g < 0 || g >= m->NO) {
      *ierr = ZOLTAN_FATAL;
      return;
    }
    parts[i] = m->gpart[g];
  }
}

static int cb_size(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr)
{
  (void)ng;
  (void)nl;
  (void)gid;
  (void)lid;
  *ierr = ZOLTAN_OK;
  return (int)(REC_WORDS(((sim *)d)->h) * sizeof(double));
}

static void cb_pack(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int dest,
                    int size, char *buf, int *ierr)
{
  sim *m = d;
  int i = (int)*lid;
  (void)ng;
  (void)nl;
  (void)dest;
  (void)size;
  *ierr = ZOLTAN_OK;
  if (i < 0 || i >= m->n || (ZOLTAN_ID_TYPE)m->ids[i] != *gid) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  {
    /* Through a double-aligned temporary: Zoltan's buffer is only
     * guaranteed to be char-aligned. */
    size_t w = REC_WORDS(m->h);
    double *rec = malloc(w * sizeof *rec);
    if (!rec) {
      *ierr = ZOLTAN_MEMERR;
      return;
    }
    pack_col(m, i, rec);
    memcpy(buf, rec, w * sizeof *rec);
    free(rec);
  }
  m->gone[i] = 1;
}

static void cb_unpack(void *d, int ng, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr)
{
  sim *m = d;
  size_t w = REC_WORDS(m->h);
  double x;
  (void)ng;
  (void)size;
  *ierr = ZOLTAN_OK;
  if (m->nin == m->capin) {
    int cap = m->capin ? 2 * m->capin : 16;
    double *b = realloc(m->inbuf, (size_t)cap * w * sizeof *b);
    if (!b) {
      *ierr = ZOLTAN_MEMERR;
      return;
    }
    m->inbuf = b;
    m->capin = cap;
  }
  memcpy(m->inbuf + (size_t)m->nin * w, buf, w * sizeof(double));
  memcpy(&x, buf, sizeof x);
  if ((ZOLTAN_ID_TYPE)x != *gid) *ierr = ZOLTAN_FATAL;
  m->nin++;
}

/* After AUTO_MIGRATE: drop the segments that left, append those that came,
 * sort by id. */
static int absorb_migration(sim *m)
{
  size_t s = (size_t)m->h, w = REC_WORDS(m->h);
  int i, j = 0, k;
  for (i = 0; i < m->n; i++) {
    if (m->gone[i]) continue;
    if (j != i) {
      m->ids[j] = m->ids[i];
      memcpy(m->T + (size_t)j * s, m->T + (size_t)i * s, s);
      memcpy(m->U + (size_t)j * s * EROSION_SLOTS, m->U + (size_t)i * s * EROSION_SLOTS,
             s * EROSION_SLOTS * sizeof(double));
    }
    j++;
  }
  m->n = j;
  if (sim_reserve(m, m->n + m->nin) != 0) return -1;
  for (k = 0; k < m->nin; k++) {
    const double *rec = m->inbuf + (size_t)k * w;
    size_t y;
    i = m->n++;
    m->ids[i] = (long)rec[0];
    for (y = 0; y < s; y++) m->T[(size_t)i * s + y] = (unsigned char)rec[1 + y];
    memcpy(m->U + (size_t)i * s * EROSION_SLOTS, rec + 1 + s, s * EROSION_SLOTS * sizeof(double));
  }
  m->nin = 0;
  for (i = 0; i < m->n; i++) m->gone[i] = 0;
  return sort_local(m);
}

/* The new part of every exported segment into m->gpart on every rank (a
 * segment is exported by its one owner, so the maximum over the ranks of
 * "new part or -1" is its new part).  Collective; returns 0 or -1 on every
 * rank. */
static int update_parts(sim *m, int nexp, const ZOLTAN_ID_TYPE *eg, const int *epa)
{
  int *newp = malloc((size_t)m->NO * sizeof *newp), ok, all_ok = 0, e;
  long g;
  ok = newp != NULL;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    free(newp);
    return -1;
  }
  for (g = 0; g < m->NO; g++) newp[g] = -1;
  for (e = 0; e < nexp; e++)
    if ((long)eg[e] < m->NO) newp[eg[e]] = epa[e];
  MPI_Allreduce(MPI_IN_PLACE, newp, (int)m->NO, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (g = 0; g < m->NO; g++)
    if (newp[g] >= 0) m->gpart[g] = newp[g];
  free(newp);
  return 0;
}

/* 0 when the segments of every part are on one rank (AUTO_MIGRATE sends
 * each object to the rank of its new part); -1 otherwise or without
 * memory.  Collective. */
static int parts_on_one_rank(const sim *m)
{
  int *lo = malloc(2 * (size_t)m->P * sizeof *lo), ok, all_ok = 0, p, i;
  ok = lo != NULL;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) {
    free(lo);
    return -1;
  }
  /* lo[p] = smallest rank holding part p, lo[P + p] = minus the largest. */
  for (p = 0; p < 2 * m->P; p++) lo[p] = m->size;
  for (i = 0; i < m->n; i++) {
    p = m->gpart[m->ids[i]];
    if (p < 0 || p >= m->P) {
      ok = 0;
      continue;
    }
    lo[p] = m->rank < lo[p] ? m->rank : lo[p];
    lo[m->P + p] = -m->rank < lo[m->P + p] ? -m->rank : lo[m->P + p];
  }
  MPI_Allreduce(MPI_IN_PLACE, lo, 2 * m->P, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (p = 0; p < m->P && ok; p++)
    if (lo[p] < m->size && lo[p] != -lo[m->P + p]) ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  free(lo);
  return all_ok ? 0 : -1;
}

/* One balance: Zoltan_LB_Partition with AUTO_MIGRATE, then the local
 * bookkeeping, with the conservation checks (every column once, total work
 * unchanged).  glob[0] and glob[1] get the max over ranks of the CPU time and
 * of the wall time of the balance.  Collective; returns 0 or -1. */
static int balance_once(sim *m, struct Zoltan_Struct *zz, const char *name, double glob[2])
{
  int changes, ngid, nlid, nimp, nexp, i;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  int *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL, zerr;
  long tot_before = 0, tot_after = 0, loc = 0;
  double c0, w0, loc2[2];
  for (i = 0; i < m->n; i++)
    loc += erosion_column_units(&m->opt->cfg, m->h, m->T + (size_t)i * m->h);
  MPI_Allreduce(&loc, &tot_before, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  w0 = MPI_Wtime();
  c0 = thread_cpu();
  zerr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                             &el, &ep, &epa);
  if (zerr != ZOLTAN_OK && zerr != ZOLTAN_WARN) {
    FAIL("%s: Zoltan_LB_Partition returned %d", name, zerr);
    return -1;
  }
  if (changes && update_parts(m, nexp, eg, epa) != 0) {
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
    FAIL("%s: out of memory for the new parts", name);
    return -1;
  }
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  if (absorb_migration(m) != 0 || rebuild(m) != 0) return -1;
  if (m->opt->parts > 0 && parts_on_one_rank(m) != 0) {
    if (m->rank == 0) FAIL("%s: a part's segments are on more than one rank after a balance", name);
    return -1;
  }
  loc2[0] = thread_cpu() - c0;
  loc2[1] = MPI_Wtime() - w0;
  MPI_Allreduce(loc2, glob, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  /* Conservation of the work across the balance. */
  loc = 0;
  for (i = 0; i < m->n; i++)
    loc += erosion_column_units(&m->opt->cfg, m->h, m->T + (size_t)i * m->h);
  MPI_Allreduce(&loc, &tot_after, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (tot_after != tot_before) {
    FAIL("%s: total work changed across a balance: %ld -> %ld", name, tot_before, tot_after);
    return -1;
  }
  return 0;
}

/* ---- calibration ------------------------------------------------------ */

/* Seconds of CPU per work unit of the stencil, the median over ranks of a
 * timing on an all-fluid column.  Collective. */
static double calibrate(const options *opt, int size)
{
  erosion_config c = opt->cfg;
  size_t s = (size_t)c.s;
  unsigned char *t = malloc(3 * s), *nt = malloc(s);
  double *u = malloc(3 * s * EROSION_SLOTS * sizeof *u),
         *nu = malloc(s * EROSION_SLOTS * sizeof *nu);
  unsigned char flag = 0;
  double mine = 0.0, *all = NULL, med = 0.0;
  long units = 0, rep = 0, e;
  size_t j;
  if (t && nt && u && nu) {
    double t0, t1;
    for (j = 0; j < 3 * s; j++) t[j] = EROSION_FLUID;
    for (j = 0; j < 3 * s * EROSION_SLOTS; j++) u[j] = 1.0;
    c.P = 1;
    c.num_strong = 0;
    c.sweeps = opt->calib_sweeps;
    t0 = thread_cpu();
    do {
      units += erosion_column_step(&c, &flag, rep, 1, t, u, t + s, u + s * EROSION_SLOTS, t + 2 * s,
                                   u + 2 * s * EROSION_SLOTS, nt, nu, &e);
      rep++;
      t1 = thread_cpu();
    } while (t1 - t0 < 0.05 || rep < 10);
    mine = (t1 - t0) / (double)units;
  }
  all = malloc((size_t)size * sizeof *all);
  if (all) {
    int i, k;
    MPI_Allgather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    /* Insertion sort: size is small. */
    for (i = 1; i < size; i++)
      for (k = i; k > 0 && all[k - 1] > all[k]; k--) {
        double tmp = all[k];
        all[k] = all[k - 1];
        all[k - 1] = tmp;
      }
    med = all[size / 2];
  }
  free(t);
  free(nt);
  free(u);
  free(nu);
  free(all);
  return med;
}

/* ---- one run ---------------------------------------------------------- */

/* Summary of a run, on rank 0. */
typedef struct run_result {
  double model_total;   /* modelled time: compute + balance cost, seconds */
  double model_compute; /* modelled compute part */
  double model_ideal;   /* sum over steps of the AVERAGE modelled step time:
                           perfect balance at every step at no cost, a lower
                           bound of every method's modelled time */
  double meas_total;    /* measured: sum of max CPU step times + balance CPU */
  double lb_cost_total; /* balance cost charged in the modelled time */
  double lb_cpu_total;  /* measured balance CPU time (max over ranks), summed */
  double usage_mean;    /* mean over steps of avg/max modelled step time */
  long lb_count;        /* balances */
  long final_units;     /* total work units at the end */
  uint64_t fingerprint; /* hash of the final cell types */
  long split_columns;   /* columns whose segments end on more than one rank */
  int check_failed;     /* an --expect-* check failed on this run */
} run_result;

static int set_params(struct Zoltan_Struct *zz, const options *opt, const run_spec *rs)
{
  int e = 0;
  {
    char dl[16];
    snprintf(dl, sizeof dl, "%d", opt->debug_level);
    e |= Zoltan_Set_Param(zz, "DEBUG_LEVEL", dl);
  }
  e |= Zoltan_Set_Param(zz, "NUM_GID_ENTRIES", "1");
  e |= Zoltan_Set_Param(zz, "NUM_LID_ENTRIES", "1");
  e |= Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  e |= Zoltan_Set_Param(zz, "RETURN_LISTS", "ALL");
  e |= Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  e |= Zoltan_Set_Param(zz, "IMBALANCE_TOL", "1.01");
  if (rs->automatic) {
    char path[600];
    int rank;
    /* auto_zhai starts as a first run (no hints) and leaves its decision
     * in the file; auto_hints, run after it, starts from that decision. */
    snprintf(path, sizeof path, "%s/%s_hints.txt", opt->out, opt->tag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rs->automatic == 1 && rank == 0) remove(path);
    MPI_Barrier(MPI_COMM_WORLD);
    e |= Zoltan_Set_Param(zz, "LB_METHOD", "AUTO");
    e |= Zoltan_Set_Param(zz, "LB_HINTS_FILE", path);
  } else if (rs->ulba) {
    e |= Zoltan_Set_Param(zz, "LB_METHOD", "ULBA");
    e |= Zoltan_Set_Param(zz, "ULBA_BASE_METHOD", opt->method);
    e |= Zoltan_Set_Param(zz, "ULBA_ALPHA", rs->alpha);
    e |= Zoltan_Set_Param(zz, "ULBA_GROWTH", rs->growth[0] ? rs->growth : opt->ulba_growth);
  } else {
    e |= Zoltan_Set_Param(zz, "LB_METHOD", opt->method);
  }
  return e == 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Everything one run works with, passed between its steps. */
typedef struct run_ctx {
  const options *opt;               /* the command line */
  const run_spec *rs;               /* the run */
  int irun;                         /* its index (for progress lines) */
  double unit_cost, lb_cal;         /* seconds per unit, the calibrated balance cost */
  run_result *res;                  /* what the run measures */
  sim m;                            /* the application */
  struct Zoltan_Struct *zz;         /* the balancer (balanced runs) */
  adaptive_trigger *trig;           /* the trigger (balanced runs) */
  FILE *csv;                        /* the per-step output (rank 0) */
  double *gbuf, *rows;              /* gather buffers: 2 per rank (rows on rank 0) */
  double *pe_times;                 /* this rank's PEs' step times */
  ZOLTAN_ID_TYPE *gids;             /* the local objects' IDs for the trigger */
  double pending_cost;              /* the last balance's cost, charged to the next step */
  double pending_cpu, pending_wall; /* and its measured CPU and wall time */
  int pending_lb;                   /* a balance happened before this step */
  double alpha_used, n_used;        /* ULBA's alpha and N at the last balance */
  char path[700];                   /* an output file's name */
} run_ctx;

/* The application on its initial partition: stripe p (one rock) on PE p,
 * i.e. every segment of its s columns, in id order; rank r holds the
 * stripes of its ppr parts r ppr .. r ppr + ppr - 1.  P PEs: one per rank,
 * or --parts Zoltan parts, ppr per rank (main has checked that size
 * divides P).  Returns 0 or -1. */
static int sim_setup(run_ctx *c)
{
  sim *m = &c->m;
  const options *opt = c->opt;
  long x, x0;
  int P = opt->cfg.P;
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->size);
  m->P = P;
  m->ppr = P / m->size;
  m->opt = opt;
  m->s = opt->cfg.s;
  m->X = erosion_width(&opt->cfg);
  m->R = opt->rows;
  m->h = m->s / m->R;
  m->NO = m->X * m->R;
  m->strong = malloc((size_t)P);
  m->gpart = malloc((size_t)m->NO * sizeof *m->gpart);
  m->part_units = malloc((size_t)P * sizeof *m->part_units);
  m->owner = malloc((size_t)m->NO * sizeof *m->owner);
  m->colT = malloc((size_t)m->NO * sizeof *m->colT);
  m->colU = malloc((size_t)m->NO * sizeof *m->colU);
  m->scount = malloc((size_t)m->size * sizeof *m->scount);
  m->rcount = malloc((size_t)m->size * sizeof *m->rcount);
  c->gbuf = malloc(2 * (size_t)m->size * sizeof *c->gbuf);
  if (!m->strong || !m->owner || !m->colT || !m->colU || !m->scount || !m->rcount || !c->gbuf ||
      !m->gpart || !m->part_units)
    return -1;
  if (erosion_strong_rocks(&opt->cfg, m->strong) != EROSION_OK) return -1;
  for (x = 0; x < m->NO; x++) m->gpart[x] = (int)(x / m->R / m->s);
  x0 = (long)m->rank * m->ppr * m->s;
  if (sim_reserve(m, m->ppr * m->s * m->R) != 0) return -1;
  for (x = x0; x < x0 + (long)m->ppr * m->s; x++)
    for (int b = 0; b < m->R; b++) {
      int i = m->n++;
      m->ids[i] = x * m->R + b;
      m->gone[i] = 0;
      erosion_segment_init(&opt->cfg, x, b * m->h, m->h, m->T + (size_t)i * m->h,
                           m->U + (size_t)i * m->h * EROSION_SLOTS);
    }
  return rebuild(m);
}

/* The balancer of a balanced run: the Zoltan struct with the application's
 * callbacks and the run's method, and the trigger with its policy,
 * attached to the struct.  Returns 0 or -1 (said). */
static int make_balancer(run_ctx *c)
{
  const options *opt = c->opt;
  const run_spec *rs = c->rs;
  sim *m = &c->m;
  char buf[32];
  c->zz = Zoltan_Create(MPI_COMM_WORLD);
  if (!c->zz || set_params(c->zz, opt, rs) != 0) {
    FAIL("%s: cannot create the Zoltan struct or set its parameters", rs->name);
    return -1;
  }
  Zoltan_Set_Num_Obj_Fn(c->zz, cb_num_obj, m);
  Zoltan_Set_Obj_List_Fn(c->zz, cb_obj_list, m);
  Zoltan_Set_Num_Geom_Fn(c->zz, cb_num_geom, m);
  Zoltan_Set_Geom_Multi_Fn(c->zz, cb_geom, m);
  Zoltan_Set_Obj_Size_Fn(c->zz, cb_size, m);
  Zoltan_Set_Pack_Obj_Fn(c->zz, cb_pack, m);
  Zoltan_Set_Unpack_Obj_Fn(c->zz, cb_unpack, m);
  if (opt->parts > 0) {
    snprintf(buf, sizeof buf, "%d", m->P);
    if (Zoltan_Set_Param(c->zz, "NUM_GLOBAL_PARTS", buf) != ZOLTAN_OK) return -1;
    Zoltan_Set_Part_Multi_Fn(c->zz, cb_parts, m);
  }
  c->trig = adaptive_create(MPI_COMM_WORLD);
  if (!c->trig || adaptive_set_param(c->trig, "ADAPTIVE_POLICY", rs->policy) != ZOLTAN_OK) {
    FAIL("%s: cannot create the trigger with ADAPTIVE_POLICY = %s", rs->name, rs->policy);
    return -1;
  }
  snprintf(buf, sizeof buf, "%ld", opt->period);
  adaptive_set_param(c->trig, "ADAPTIVE_PERIOD", buf);
  if (opt->ulba_guard && adaptive_set_param(c->trig, "ADAPTIVE_ULBA_GUARD", "1") != ZOLTAN_OK)
    return -1;
  if (adaptive_set_param(c->trig, "ADAPTIVE_DEGRADATION", opt->degradation) != ZOLTAN_OK) {
    FAIL("%s: ADAPTIVE_DEGRADATION = %s refused", rs->name, opt->degradation);
    return -1;
  }
  /* A known balance cost seeds C, so that the trigger needs no first
   * balance to measure it (every balanced run gets the same seed). */
  if (opt->lb_mode != LB_MEASURED && rs->balance == 1) {
    snprintf(buf, sizeof buf, "%.9g", c->lb_cal);
    if (adaptive_set_param(c->trig, "ADAPTIVE_LB_COST", buf) != ZOLTAN_OK) return -1;
  }
  /* Attached, so that LB_METHOD=ULBA finds the per-step object loads. */
  if (adaptive_attach(c->trig, c->zz) != ZOLTAN_OK) {
    FAIL("%s: adaptive_attach failed (is libzoltan_plugins linked?)", rs->name);
    return -1;
  }
  return 0;
}

/* rs->balance == 2 is the calibration of the balance cost: on the initial
 * mesh, CALIB_BALANCES balances alternate between the true weights and
 * weights where the middle stripe counts double (the imbalance one strong
 * rock creates), so that each moves columns like a real balance does;
 * res->lb_cost_total gets the median of their costs (max over ranks of the
 * CPU time).  Returns 0 or -1. */
static int calibrate_balance_cost(run_ctx *c)
{
  double cost[CALIB_BALANCES], glob2[2];
  for (int k = 0; k < CALIB_BALANCES; k++) {
    c->m.calib_hot = k % 2 == 0;
    if (balance_once(&c->m, c->zz, c->rs->name, glob2) != 0) return -1;
    cost[k] = glob2[0];
  }
  qsort(cost, CALIB_BALANCES, sizeof cost[0], cmp_double);
  c->res->lb_cost_total = cost[CALIB_BALANCES / 2];
  return 0;
}

/* Rank 0: the per-step CSV with its header line.  Returns 0 or -1. */
static int open_csv(run_ctx *c)
{
  const options *opt = c->opt;
  const run_spec *rs = c->rs;
  snprintf(c->path, sizeof c->path, "%s/%s_%s.csv", opt->out, opt->tag, rs->name);
  c->csv = fopen(c->path, "w");
  c->rows = malloc(2 * (size_t)c->m.size * sizeof *c->rows);
  if (!c->csv || !c->rows) {
    FAIL("cannot write %s", c->path);
    return -1;
  }
  fprintf(c->csv,
          "# erosion run %s: P=%d s=%d N=%d p_strong=%g p_weak=%g seed=%llu sweeps=%d "
          "calib_sweeps=%d refined_units=%d erosion=%s base=%s rows=%d method=%s alpha=%s "
          "policy=%s ulba_guard=%d ulba_growth=%s degradation=%s unit_cost_s=%.6e lb_cost=%s\n",
          rs->name, c->m.P, c->m.s, opt->cfg.num_strong, opt->cfg.p_strong, opt->cfg.p_weak,
          (unsigned long long)opt->cfg.seed, opt->cfg.sweeps, opt->calib_sweeps,
          opt->cfg.refined_units, erosion_rule_name(opt->cfg.erosion), opt->base, c->m.R,
          rs->balance ? (rs->automatic ? "AUTO"
                         : rs->ulba    ? "ULBA"
                                       : opt->method)
                      : "none",
          rs->ulba ? rs->alpha : "-", rs->balance ? rs->policy : "-", opt->ulba_guard,
          rs->ulba ? (rs->growth[0] ? rs->growth : opt->ulba_growth) : "-",
          rs->balance ? opt->degradation : "-", c->unit_cost,
          opt->lb_mode == LB_MEASURED ? "measured"
          : opt->lb_mode == LB_FIXED  ? "fixed"
                                      : "calibrated");
  fprintf(c->csv, "step,lb,alpha_used,ulba_N,units_max,units_avg,model_max_s,model_avg_s,"
                  "usage_model,lb_cost_s");
  for (int i = 0; i < c->m.P; i++) fprintf(c->csv, opt->parts > 0 ? ",units_p%d" : ",units_r%d", i);
  if (!opt->no_measured) fprintf(c->csv, ",meas_max_s,meas_avg_s,usage_meas,lb_cpu_s,lb_wall_s");
  fprintf(c->csv, "\n");
  return 0;
}

/* Rank 0: the step's figures into the result and its CSV line (the
 * balance cost is charged to the step that follows the balance). */
static void record_step(run_ctx *c, long step)
{
  const options *opt = c->opt;
  sim *m = &c->m;
  double umax = 0, usum = 0, cmax = 0, csum = 0, *rows = c->rows;
  int P = m->P, size = m->size;
  for (int i = 0; i < P; i++) {
    if (m->part_units[i] > umax) umax = m->part_units[i];
    usum += m->part_units[i];
  }
  /* Measured CPU time is per rank. */
  for (int i = 0; i < size; i++) {
    if (rows[2 * i + 1] > cmax) cmax = rows[2 * i + 1];
    csum += rows[2 * i + 1];
  }
  c->res->model_compute += umax * c->unit_cost;
  c->res->model_ideal += usum / P * c->unit_cost;
  c->res->meas_total += cmax;
  c->res->usage_mean += umax > 0 ? usum / P / umax : 1.0;
  fprintf(c->csv, "%ld,%d,%.4f,%.0f,%.0f,%.2f,%.6e,%.6e,%.5f,%.6e", step, c->pending_lb,
          c->alpha_used, c->n_used, umax, usum / P, umax * c->unit_cost, usum / P * c->unit_cost,
          umax > 0 ? usum / P / umax : 1.0, c->pending_lb ? c->pending_cost : 0.0);
  for (int i = 0; i < P; i++) fprintf(c->csv, ",%.0f", m->part_units[i]);
  if (!opt->no_measured)
    fprintf(c->csv, ",%.6e,%.6e,%.5f,%.6e,%.6e", cmax, csum / size,
            cmax > 0 ? csum / size / cmax : 1.0, c->pending_lb ? c->pending_cpu : 0.0,
            c->pending_lb ? c->pending_wall : 0.0);
  fprintf(c->csv, "\n");
  if (!opt->quiet && (step + 1) % (opt->steps / 10 > 0 ? opt->steps / 10 : 1) == 0)
    fprintf(stderr, "  [%s run %d/%d %-12s] step %ld/%ld, %ld balances\n", opt->tag, c->irun + 1,
            opt->nruns, c->rs->name, step + 1, opt->steps, c->res->lb_count);
}

/* After a ULBA balance: alpha and N for the CSV, and the model that the
 * ULBA policy and ZHAI's overhead term need (only per-step rates, the
 * trigger source, fit it).  Returns 0 or -1. */
static int ulba_feedback(run_ctx *c)
{
  c->alpha_used = c->n_used = 0.0;
#ifdef EROSION_HAVE_ULBA
  if (c->rs->ulba) {
    ulba_model_info info;
    if (ulba_last_model(c->zz, &info) == ZOLTAN_OK) {
      adaptive_ulba_model am;
      c->alpha_used = info.alpha;
      c->n_used = info.N;
      if (info.source == ULBA_SOURCE_TRIGGER && info.N >= 1 && info.N < info.P) {
        am.P = (int)info.P;
        am.N = (int)info.N;
        am.alpha = info.alpha;
        am.a = info.a;
        am.m = info.m;
        am.W = info.W;
        am.omega = 1.0 / c->unit_cost;
        if (adaptive_set_ulba_model(c->trig, &am) != ZOLTAN_OK) return -1;
      } else {
        adaptive_set_ulba_model(c->trig, NULL);
      }
    }
  }
#endif
  return 0;
}

/* The objects' loads to the trigger, its decision, and the balance when it
 * says so (not after the last step).  Returns 0 or -1 (said). */
static int maybe_balance(run_ctx *c, long step, double model)
{
  sim *m = &c->m;
  int dec;
  for (int i = 0; i < m->n; i++) c->gids[i] = (ZOLTAN_ID_TYPE)m->ids[i];
  if (adaptive_report_objects(c->trig, m->n, 1, c->gids, m->col_units) != ZOLTAN_OK) return -1;
  if (c->opt->parts > 0) {
    /* This rank plays the PEs of its parts; the trigger needs every part
     * once over the ranks, which the block of ppr parts gives. */
    const double *pt = m->part_units + (size_t)m->rank * m->ppr;
    for (int i = 0; i < m->ppr; i++) c->pe_times[i] = pt[i] * c->unit_cost;
    dec = adaptive_should_balance_pes(c->trig, m->ppr, c->pe_times);
  } else {
    dec = adaptive_should_balance(c->trig, model);
  }
  if (dec < 0) {
    FAIL("%s: adaptive_should_balance failed at step %ld", c->rs->name, step);
    return -1;
  }
  if (dec == 1 && step + 1 < c->opt->steps) {
    double glob2[2];
    if (balance_once(m, c->zz, c->rs->name, glob2) != 0) return -1;
    c->pending_lb = 1;
    c->pending_cpu = glob2[0];
    c->pending_wall = glob2[1];
    c->pending_cost = c->opt->lb_mode == LB_MEASURED ? glob2[0] : c->lb_cal;
    c->res->lb_count++;
    c->res->lb_cost_total += c->pending_cost;
    c->res->lb_cpu_total += c->pending_cpu;
    if (adaptive_balance_done(c->trig, c->pending_cost) != ZOLTAN_OK) return -1;
    return ulba_feedback(c);
  }
  return 0;
}

/* The steps: halo, compute, the per-part units, the record on rank 0 and,
 * in a balanced run, the trigger and the balance.  Returns 0 or -1. */
static int run_steps(run_ctx *c)
{
  const options *opt = c->opt;
  sim *m = &c->m;
  int P = m->P;
  c->gids = malloc(((size_t)m->NO + 1) * sizeof *c->gids);
  c->pe_times = malloc((size_t)m->ppr * sizeof *c->pe_times);
  if (!c->gids || !c->pe_times) return -1;
  for (long step = 0; step < opt->steps; step++) {
    long units, eroded;
    double t0, cpu, mine[2];
    if (halo_exchange(m) != 0) return -1;
    t0 = thread_cpu();
    units = compute(m, step, &eroded);
    cpu = thread_cpu() - t0;
    mine[0] = (double)units;
    mine[1] = cpu;
    MPI_Gather(mine, 2, MPI_DOUBLE, c->rows ? c->rows : c->gbuf, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (opt->parts > 0) {
      /* The units of every part (PE), on every rank; sums of whole numbers,
       * exact in any order. */
      for (int i = 0; i < P; i++) m->part_units[i] = 0.0;
      for (int i = 0; i < m->n; i++) m->part_units[m->gpart[m->ids[i]]] += m->col_units[i];
      MPI_Allreduce(MPI_IN_PLACE, m->part_units, P, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (m->rank == 0) {
      for (int i = 0; i < P; i++) m->part_units[i] = c->rows[2 * i];
    }
    if (m->rank == 0) record_step(c, step);
    c->pending_lb = 0;
    if (c->rs->balance && maybe_balance(c, step, (double)units * c->unit_cost) != 0) return -1;
  }
  return 0;
}

/* The run's final figures: total units, the fingerprint of the mesh, the
 * columns split between ranks, the totals. */
static void final_figures(run_ctx *c)
{
  sim *m = &c->m;
  run_result *res = c->res;
  long loc = 0, tot = 0;
  uint64_t h = 0, H = 0;
  for (int i = 0; i < m->n; i++) {
    long g = m->ids[i];
    loc += erosion_column_units(&c->opt->cfg, m->h, m->T + (size_t)i * m->h);
    h +=
        erosion_segment_hash(m->s, g / m->R, (int)(g % m->R) * m->h, m->h, m->T + (size_t)i * m->h);
  }
  MPI_Reduce(&loc, &tot, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&h, &H, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  res->final_units = tot;
  res->fingerprint = H;
  /* Columns whose segments end on more than one rank: a cut along y, or an
   * x cut that splits the segments of one column.  The owner array is
   * global, so no communication is needed. */
  for (long x = 0; x < m->X; x++)
    for (int b = 1; b < m->R; b++)
      if (m->owner[x * m->R + b] != m->owner[x * m->R]) {
        res->split_columns++;
        break;
      }
  res->model_total = res->model_compute + res->lb_cost_total;
  res->meas_total += res->lb_cpu_total;
  res->usage_mean /= (double)(c->opt->steps > 0 ? c->opt->steps : 1);
}

/* Rank 0: the per-column units of the gathered (column, initial, final)
 * triples into the columns CSV, and the --expect-growth check. */
static void write_columns(run_ctx *c, const long *all)
{
  sim *m = &c->m;
  long *byx = calloc((size_t)m->X * 2, sizeof *byx), grown_strong = 0, grown_weak = 0;
  FILE *f;
  snprintf(c->path, sizeof c->path, "%s/%s_columns_%s.csv", c->opt->out, c->opt->tag, c->rs->name);
  f = fopen(c->path, "w");
  if (byx && f) {
    for (long k = 0; k < m->NO; k++) {
      long xx = all[3 * k];
      byx[2 * xx] += all[3 * k + 1];
      byx[2 * xx + 1] += all[3 * k + 2];
    }
    fprintf(f, "x,rock,strong,units_initial,units_final\n");
    for (long k = 0; k < m->X; k++) {
      int rock = (int)(k / m->s);
      fprintf(f, "%ld,%d,%d,%ld,%ld\n", k, rock, m->strong[rock], byx[2 * k], byx[2 * k + 1]);
      if (byx[2 * k + 1] != byx[2 * k]) {
        if (m->strong[rock])
          grown_strong++;
        else
          grown_weak++;
      }
    }
    if (c->opt->expect_growth && (grown_weak > 0 || grown_strong == 0)) {
      FAIL("%s: work changed in %ld columns of strong rocks and %ld of weak ones", c->rs->name,
           grown_strong, grown_weak);
      c->res->check_failed = 1;
    }
  }
  if (f) fclose(f);
  free(byx);
}

/* --columns: per-column initial and final units, per segment, summed by
 * column on rank 0.  Returns 0 or -1 (said). */
static int column_output(run_ctx *c)
{
  sim *m = &c->m;
  long *mine = malloc(((size_t)m->n + 1) * 3 * sizeof *mine), *all = NULL;
  int *cnt = malloc((size_t)m->size * sizeof *cnt), *dsp = malloc((size_t)m->size * sizeof *dsp);
  unsigned char *t0 = malloc((size_t)m->h);
  double *u0 = malloc((size_t)m->h * EROSION_SLOTS * sizeof *u0);
  int nm = 3 * m->n, have = mine && cnt && dsp && t0 && u0, all_have = 0, rc = -1;
  /* Every rank must know before the gathers whether all can take part. */
  MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_have) {
    FAIL("%s: out of memory for the per-column output", c->rs->name);
    goto end;
  }
  /* Initial units are known for the initial stripe only; recompute them
   * from the model for the segments held now. */
  for (int i = 0; i < m->n; i++) {
    long g = m->ids[i];
    erosion_segment_init(&c->opt->cfg, g / m->R, (int)(g % m->R) * m->h, m->h, t0, u0);
    mine[3 * i] = g / m->R;
    mine[3 * i + 1] = erosion_column_units(&c->opt->cfg, m->h, t0);
    mine[3 * i + 2] = erosion_column_units(&c->opt->cfg, m->h, m->T + (size_t)i * m->h);
  }
  MPI_Gather(&nm, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (m->rank == 0) {
    int tot = 0;
    for (int r = 0; r < m->size; r++) {
      dsp[r] = tot;
      tot += cnt[r];
    }
    all = malloc(((size_t)tot + 1) * sizeof *all);
  }
  MPI_Gatherv(mine, nm, MPI_LONG, all, cnt, dsp, MPI_LONG, 0, MPI_COMM_WORLD);
  if (m->rank == 0 && all) write_columns(c, all);
  rc = 0;
end:
  free(all);
  free(mine);
  free(cnt);
  free(dsp);
  free(t0);
  free(u0);
  return rc;
}

/* One run of the application: set up, (calibrate, or) step with the
 * balancer of the run, then the final figures and the optional per-column
 * output.  Returns 0, or -1 on every rank when a rank failed. */
static int do_run(const options *opt, const run_spec *rs, int irun, double unit_cost, double lb_cal,
                  run_result *res)
{
  run_ctx c;
  int rc = -1, all = 0;
  memset(&c, 0, sizeof c);
  memset(res, 0, sizeof *res);
  c.opt = opt;
  c.rs = rs;
  c.irun = irun;
  c.unit_cost = unit_cost;
  c.lb_cal = lb_cal;
  c.res = res;
  if (sim_setup(&c) != 0) goto end;
  if (rs->balance && make_balancer(&c) != 0) goto end;
  if (rs->balance == 2) {
    rc = calibrate_balance_cost(&c);
    goto end;
  }
  if (c.m.rank == 0 && open_csv(&c) != 0) goto end;
  if (run_steps(&c) != 0) goto end;
  final_figures(&c);
  if (opt->columns && column_output(&c) != 0) goto end;
  rc = 0;
end:
  if (c.csv) fclose(c.csv);
  if (c.trig) adaptive_destroy(&c.trig);
  if (c.zz) Zoltan_Destroy(&c.zz);
  free(c.gbuf);
  free(c.rows);
  free(c.gids);
  free(c.pe_times);
  sim_free(&c.m);
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

/* ---- command line ----------------------------------------------------- */

static void usage(void)
{
  fprintf(stderr,
          "usage: mpiexec -n P erosion [options]\n"
          "  --s S            stripe width and height in cells (default 64)\n"
          "  --steps K        time steps per run (default S)\n"
          "  --strong N       strongly erodible rocks (default 1)\n"
          "  --p-strong p     erosion probability of strong rocks (default 0.4)\n"
          "  --p-weak p       erosion probability of the others (default 0.02)\n"
          "  --seed S         seed of the strong rocks and of the erosion (default 1)\n"
          "  --sweeps K       relaxation sweeps per work unit (default 20)\n"
          "  --refined-units K  work units of a refined cell, 4..64 in steps of 4 (default 4)\n"
          "  --erosion E      isotropic (default: every fluid neighbour erodes), from-below\n"
          "                   (only the cell below: a one-sided flow) or downstream (only\n"
          "                   the previous column, diagonals at p/sqrt(2): the reference's)\n"
          "  --rocks R        paper (default: discs of radius s/4, the N strong rocks drawn\n"
          "                   from the seed) or reference (radius s/3, the last N strong,\n"
          "                   the last disc moved s/6 towards the domain's end)\n"
          "  --setup NAME     paper (default: the paper's text, rocks drawn from the seed)\n"
          "                   or reference: the ULBA reference code's experiment (last N\n"
          "                   rocks erode, discs of radius s/3, the last one moved, erosion\n"
          "                   downstream, weak rocks inert, 450 steps, alpha 0.3, runs\n"
          "                   reference, s 64 with the erosion probability scaled so that\n"
          "                   the front crosses the same share of a stripe per step as at\n"
          "                   s = 2000 with p = 0.4; docs/erosion.md); later options win\n"
          "  --base M         base partitioner (default RCB): RCB = RCB on x only (stripes\n"
          "                   along x, the paper's), RCB2D = RCB on (x, y) (rectangles),\n"
          "                   GREEDY = our GREEDY (scattered parts)\n"
          "  --parts P        model P PEs as P Zoltan parts (NUM_GLOBAL_PARTS), P/ranks per\n"
          "                   rank (a multiple of the ranks; default one PE per rank)\n"
          "  --mem-limit G    refuse a problem above G GiB (default 80%% of the memory)\n"
          "  --rows R         objects: every column cut into R segments of s/R cells\n"
          "                   (default 1 = whole columns; 8 with RCB2D); R divides s\n"
          "  --runs LIST      comma-separated runs (default main):\n"
          "                   none periodic std_zhai ulba0_zhai ulba_zhai ulba_ulba ulba_auto\n"
          "                   auto_zhai (LB_METHOD=AUTO) auto_hints (AUTO from the hints\n"
          "                   file auto_zhai wrote: give auto_zhai first),\n"
          "                   main = none,periodic,std_zhai,ulba_zhai,ulba_ulba,ulba_auto,\n"
          "                   auto_zhai,auto_hints\n"
          "                   sweep = ULBA + ULBA policy for alpha 0, 0.1, ..., 0.9\n"
          "                   reference = none, std_zhai and ULBA + ZHAI with ULBA_GROWTH\n"
          "                   PART and OBJECT, alpha 0.3, 0.4 and AUTO\n"
          "  --alpha A        fixed alpha of the ulba_* runs (default 0.4)\n"
          "  --period K       ADAPTIVE_PERIOD of the periodic run (default 25)\n"
          "  --unit-cost S    seconds per work unit (default: calibrated)\n"
          "  --calib-sweeps K calibrate the cost per unit with K sweeps (default: --sweeps);\n"
          "                   with --sweeps 1 a large mesh runs fast while the modelled\n"
          "                   time still charges the cost of K sweeps per unit\n"
          "  --lb-cost C      balance cost charged to the modelled time: calibrated (default:\n"
          "                   median of 9 balances of the initial mesh, the same for every run),\n"
          "                   measured (each balance's own CPU time), or seconds\n"
          "  --out DIR        output folder (default .)\n"
          "  --tag T          prefix of the output files (default erosion)\n"
          "  --no-measured    leave measured times out of the CSV (exact comparisons)\n"
          "  --columns        also write per-column initial/final units\n"
          "  --quiet          no progress lines\n"
          "  --debug-level K  Zoltan's DEBUG_LEVEL in every run (default 0; 1 prints ULBA's\n"
          "                   model line at every balance)\n"
          "  --ulba-guard     ADAPTIVE_ULBA_GUARD=1: the ULBA policy may balance before\n"
          "                   sigma- when the degradation contradicts the model\n"
          "  --ulba-growth G  ULBA_GROWTH of the ulba_* runs: PART (default) or OBJECT\n"
          "  --degradation D  ADAPTIVE_DEGRADATION of every trigger: TOTAL (default, Zhai as\n"
          "                   published) or IMBALANCE (only T_max - T_avg accumulates)\n"
          "checks (exit status 1 when violated; conservation is always checked):\n"
          "  --expect-same-physics        every run ends with the same cells and work, and\n"
          "                               the same lower bound, which none beats\n"
          "  --expect-growth-near-strong  only columns crossing a strong rock gain work\n"
          "  --expect-equal A,B           runs A and B write the same CSV rows (ulba_N aside)\n");
}

static int add_run(options *o, const char *name, int balance, int ulba, const char *alpha,
                   const char *policy)
{
  run_spec *r = realloc(o->runs, (size_t)(o->nruns + 1) * sizeof *r);
  if (!r) return -1;
  o->runs = r;
  r += o->nruns++;
  memset(r, 0, sizeof *r);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->balance = balance;
  r->ulba = ulba;
  snprintf(r->alpha, sizeof r->alpha, "%s", alpha);
  snprintf(r->policy, sizeof r->policy, "%s", policy);
  return 0;
}

static int parse_runs(options *o, const char *list, const char *alpha)
{
  char *copy = strdup(list), *tok, *save = NULL;
  int rc = 0;
  if (!copy) return -1;
  for (tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "main")) {
      rc |= parse_runs(
          o, "none,periodic,std_zhai,ulba_zhai,ulba_ulba,ulba_auto,auto_zhai,auto_hints", alpha);
    } else if (!strcmp(tok, "none")) {
      rc |= add_run(o, "none", 0, 0, "0", "NEVER");
    } else if (!strcmp(tok, "periodic")) {
      rc |= add_run(o, "periodic", 1, 0, "0", "PERIODIC");
    } else if (!strcmp(tok, "std_zhai")) {
      rc |= add_run(o, "std_zhai", 1, 0, "0", "ZHAI");
    } else if (!strcmp(tok, "ulba0_zhai")) {
      rc |= add_run(o, "ulba0_zhai", 1, 1, "0", "ZHAI");
    } else if (!strcmp(tok, "ulba_zhai")) {
      rc |= add_run(o, "ulba_zhai", 1, 1, alpha, "ZHAI");
    } else if (!strcmp(tok, "ulba_ulba")) {
      rc |= add_run(o, "ulba_ulba", 1, 1, alpha, "ULBA");
    } else if (!strcmp(tok, "ulba_auto")) {
      rc |= add_run(o, "ulba_auto", 1, 1, "AUTO", "ULBA");
    } else if (!strcmp(tok, "auto_zhai")) {
      /* The advisor (LB_METHOD=AUTO) under the ZHAI trigger: it tries the
       * methods its rules name at a decision and keeps its pick for
       * AUTOLB_REEVALUATE balances; with --lb-cost measured its trials are
       * charged. */
      rc |= add_run(o, "auto_zhai", 1, 0, "0", "ZHAI");
      if (rc == 0) o->runs[o->nruns - 1].automatic = 1;
    } else if (!strcmp(tok, "auto_hints")) {
      /* AUTO as the next run meets it: from the hints file auto_zhai left
       * (run auto_zhai first in the same invocation), no trials. */
      rc |= add_run(o, "auto_hints", 1, 0, "0", "ZHAI");
      if (rc == 0) o->runs[o->nruns - 1].automatic = 2;
    } else if (!strcmp(tok, "reference")) {
      /* The reference experiment (docs/erosion.md): the standard method and
       * ULBA under the ZHAI trigger, ULBA with the paper's growth (PART)
       * and ours (OBJECT), alpha 0.3 (the reference scripts'), 0.4 (the
       * paper's text) and AUTO; "none" gives the perfect-balance bound. */
      static const char *const growth[2] = {"PART", "OBJECT"};
      static const char *const alphas[3] = {"0.3", "0.4", "AUTO"};
      int g, k;
      rc |= parse_runs(o, "none,std_zhai", alpha);
      for (g = 0; g < 2 && rc == 0; g++)
        for (k = 0; k < 3 && rc == 0; k++) {
          char nm[32];
          snprintf(nm, sizeof nm, "ulba_%s_a%s", g ? "object" : "part", alphas[k]);
          rc |= add_run(o, nm, 1, 1, alphas[k], "ZHAI");
          if (rc == 0)
            snprintf(o->runs[o->nruns - 1].growth, sizeof o->runs[0].growth, "%s", growth[g]);
        }
    } else if (!strcmp(tok, "sweep")) {
      int k;
      for (k = 0; k <= 9; k++) {
        char nm[32], a[16];
        snprintf(nm, sizeof nm, "sweep_a%.1f", 0.1 * k);
        snprintf(a, sizeof a, "%.1f", 0.1 * k);
        rc |= add_run(o, nm, 1, 1, a, "ULBA");
      }
    } else {
      FAIL("unknown run %s", tok);
      rc = -1;
    }
  }
  free(copy);
  return rc;
}

/* A whole number in [lo, hi] from an option value, or -1 with a message
 * naming the option and the value. */
/* The reference code's erosion front, and its scale.  A rock cell whose
 * three upstream cells hold fluid is eroded in a step with probability
 * v(p) = 1 - (1 - p) (1 - p / sqrt 2)^2 under EROSION_DOWNSTREAM, so a flat
 * front advances about v(p) columns per step.  The reference runs s = 2000
 * with p = 0.4 (v = 0.69): in a stripe of s columns the front crosses the
 * share v / s of it per step.  A run at a smaller s keeps that share, and so
 * the loaders' growth relative to their load per step and the number of
 * steps, with the p whose v(p) is 0.69 s / 2000 (bisection; p = 0.4 at
 * s = 2000). */
#define REFERENCE_S         2000
#define REFERENCE_P         0.4
#define REFERENCE_STEPS     450
#define REFERENCE_DEFAULT_S 64

static double front_speed(double p)
{
  double d = 1.0 - p * 0.70710678118654752440;
  return 1.0 - (1.0 - p) * d * d;
}

static double reference_p(int s)
{
  double want = front_speed(REFERENCE_P) * (double)s / REFERENCE_S, lo = 0.0, hi = 1.0;
  int k;
  if (want >= front_speed(1.0)) return 1.0;
  for (k = 0; k < 60; k++) {
    double mid = 0.5 * (lo + hi);
    if (front_speed(mid) < want)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

static int int_arg(const char *opt, const char *v, long lo, long hi, int *out)
{
  char *end = NULL;
  long x;
  errno = 0;
  x = strtol(v, &end, 10);
  if (errno != 0 || end == v || *end != '\0' || x < lo || x > hi) {
    FAIL("%s %s: give a whole number in [%ld, %ld]", opt, v, lo, hi);
    return -1;
  }
  *out = (int)x;
  return 0;
}

/* The defaults of every option, and those of --setup reference (the
 * reference experiment's geometry, erosion, alpha and runs). */
static void default_options(options *o, int reference, const char **alpha, const char **runs)
{
  o->ulba_growth = "PART";
  o->degradation = "TOTAL";
  o->cfg.s = 64;
  o->cfg.num_strong = 1;
  o->cfg.p_strong = 0.4;
  o->cfg.p_weak = 0.02;
  o->cfg.seed = 1;
  o->cfg.sweeps = 20;
  o->cfg.refined_units = EROSION_UNITS_REFINED;
  o->cfg.erosion = EROSION_ISOTROPIC;
  o->steps = -1;
  snprintf(o->base, sizeof o->base, "RCB");
  snprintf(o->out, sizeof o->out, ".");
  snprintf(o->tag, sizeof o->tag, "erosion");
  o->unit_cost = 0;
  o->lb_cost = -1;
  o->lb_mode = LB_CALIBRATED;
  o->period = 25;
  if (reference) {
    o->cfg.geometry = EROSION_GEOM_REFERENCE;
    o->cfg.erosion = EROSION_DOWNSTREAM;
    o->cfg.p_weak = 0.0;
    o->cfg.s = REFERENCE_DEFAULT_S;
    *alpha = "0.3";
    *runs = "reference";
  }
}

/* The options whose value is one of a few words: --rocks, --erosion and
 * --lb-cost.  Returns 1 when a is one of them (its value taken), 0 when it
 * is not, -1 for a bad value (said). */
static int word_option(const char *a, const char *v, options *o)
{
  if (!strcmp(a, "--rocks")) {
    if (!strcmp(v, "paper"))
      o->cfg.geometry = EROSION_GEOM_PAPER;
    else if (!strcmp(v, "reference"))
      o->cfg.geometry = EROSION_GEOM_REFERENCE;
    else {
      FAIL("--rocks %s: give paper or reference", v);
      return -1;
    }
  } else if (!strcmp(a, "--erosion")) {
    if (!strcmp(v, "isotropic"))
      o->cfg.erosion = EROSION_ISOTROPIC;
    else if (!strcmp(v, "from-below"))
      o->cfg.erosion = EROSION_FROM_BELOW;
    else if (!strcmp(v, "downstream"))
      o->cfg.erosion = EROSION_DOWNSTREAM;
    else {
      FAIL("--erosion %s: give isotropic, from-below or downstream", v);
      return -1;
    }
  } else if (!strcmp(a, "--lb-cost")) {
    if (!strcmp(v, "measured"))
      o->lb_mode = LB_MEASURED;
    else if (!strcmp(v, "calibrated"))
      o->lb_mode = LB_CALIBRATED;
    else {
      o->lb_mode = LB_FIXED;
      o->lb_cost = atof(v);
      if (!(o->lb_cost >= 0)) {
        FAIL("--lb-cost %s: give seconds >= 0, measured or calibrated", v);
        return -1;
      }
    }
  } else {
    return 0;
  }
  return 1;
}

/* After the options: the values that follow from others (steps, p, rows,
 * the method) and the checks that need several.  Returns 0 or -1 (said). */
static int finish_options(options *o, int reference, int steps_given, int p_given)
{
  int given_rows;
  given_rows = o->rows != 0;
  if (reference && !steps_given) o->steps = REFERENCE_STEPS;
  if (reference && !p_given && o->cfg.s >= 4) o->cfg.p_strong = reference_p(o->cfg.s);
  if (o->steps < 0) o->steps = o->cfg.s;
  if (o->calib_sweeps == 0) o->calib_sweeps = o->cfg.sweeps;
  /* RCB2D is RCB given both coordinates; every other base gets x only. */
  if (!strcmp(o->base, "RCB2D")) {
    snprintf(o->method, sizeof o->method, "RCB");
    o->dims = 2;
    if (o->rows == 0) o->rows = 8;
  } else {
    snprintf(o->method, sizeof o->method, "%s", o->base);
    o->dims = 1;
    if (o->rows == 0) o->rows = 1;
  }
  if (o->rows < 1 || o->cfg.s < 1 || o->cfg.s % o->rows != 0) {
    FAIL("--rows %d%s: give a divisor of --s %d (segments of s/R cells)", o->rows,
         given_rows ? "" : " (the default of --base RCB2D)", o->cfg.s);
    return -1;
  }
  if (o->cfg.erosion == EROSION_DOWNSTREAM && o->rows != 1) {
    FAIL("--erosion downstream needs whole columns (--rows 1, not %d): a segment has no "
         "diagonal neighbours",
         o->rows);
    return -1;
  }
  /* Object counts and offsets are ints: keep s R (segments per stripe) far
   * from overflowing them. */
  if ((long)o->cfg.s * o->rows > (1L << 24)) {
    FAIL("--rows %d with --s %d: at most 2^24 segments per stripe", o->rows, o->cfg.s);
    return -1;
  }
  if (o->period < 1 || o->steps < 1) {
    FAIL("--period and --steps must be >= 1");
    return -1;
  }
  return 0;
}

static int parse(int argc, char **argv, options *o)
{
  const char *runs = "main", *alpha = "0.4";
  int i, reference = 0, p_given = 0, steps_given = 0;
  memset(o, 0, sizeof *o);
  /* --setup first: its values are defaults that later options override. */
  for (i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "--setup")) {
      if (!strcmp(argv[i + 1], "reference"))
        reference = 1;
      else if (strcmp(argv[i + 1], "paper") != 0) {
        FAIL("--setup %s: give paper or reference", argv[i + 1]);
        return -1;
      }
    }
  default_options(o, reference, &alpha, &runs);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define ARG(name) (!strcmp(a, name) && v && (i++, 1))
    int w = v ? word_option(a, v, o) : 0;
    if (w < 0) return -1;
    if (w > 0)
      i++;
    else if (ARG("--s"))
      o->cfg.s = atoi(v);
    else if (ARG("--steps")) {
      o->steps = atol(v);
      steps_given = 1;
    } else if (ARG("--setup"))
      ; /* read above */
    else if (ARG("--strong"))
      o->cfg.num_strong = atoi(v);
    else if (ARG("--p-strong")) {
      o->cfg.p_strong = atof(v);
      p_given = 1;
    } else if (ARG("--p-weak"))
      o->cfg.p_weak = atof(v);
    else if (ARG("--seed"))
      o->cfg.seed = strtoull(v, NULL, 10);
    else if (ARG("--sweeps"))
      o->cfg.sweeps = atoi(v);
    else if (ARG("--refined-units"))
      o->cfg.refined_units = atoi(v);
    else if (ARG("--base"))
      snprintf(o->base, sizeof o->base, "%s", v);
    else if (ARG("--parts")) {
      if (int_arg(a, v, 1, 1 << 20, &o->parts) != 0) return -1;
    } else if (ARG("--mem-limit")) {
      o->mem_limit = atof(v);
      if (!(o->mem_limit > 0)) {
        FAIL("--mem-limit %s: give GiB > 0", v);
        return -1;
      }
    } else if (ARG("--rows")) {
      if (int_arg(a, v, 1, 1 << 16, &o->rows) != 0) return -1;
    } else if (ARG("--runs"))
      runs = v;
    else if (ARG("--alpha"))
      alpha = v;
    else if (ARG("--period"))
      o->period = atol(v);
    else if (ARG("--unit-cost"))
      o->unit_cost = atof(v);
    else if (ARG("--calib-sweeps")) {
      /* The bound of erosion_config_check's sweeps. */
      if (int_arg(a, v, 1, 1 << 20, &o->calib_sweeps) != 0) return -1;
    } else if (ARG("--out"))
      snprintf(o->out, sizeof o->out, "%s", v);
    else if (ARG("--tag"))
      snprintf(o->tag, sizeof o->tag, "%s", v);
    else if (!strcmp(a, "--no-measured"))
      o->no_measured = 1;
    else if (!strcmp(a, "--columns"))
      o->columns = 1;
    else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return -1;
    else if (!strcmp(a, "--quiet"))
      o->quiet = 1;
    else if (ARG("--debug-level")) {
      if (int_arg(a, v, 0, 10, &o->debug_level) != 0) return -1;
    } else if (!strcmp(a, "--ulba-guard"))
      o->ulba_guard = 1;
    else if (ARG("--ulba-growth"))
      o->ulba_growth = v;
    else if (ARG("--degradation"))
      o->degradation = v;
    else if (!strcmp(a, "--expect-same-physics"))
      o->expect_same = 1;
    else if (!strcmp(a, "--expect-growth-near-strong"))
      o->expect_growth = o->columns = 1;
    else if (ARG("--expect-equal"))
      snprintf(o->expect_equal, sizeof o->expect_equal, "%s", v);
    else {
      FAIL("bad argument %s", a);
      return -1;
    }
#undef ARG
  }
  if (finish_options(o, reference, steps_given, p_given) != 0) return -1;
  return parse_runs(o, runs, alpha);
}

static int find_run(const options *o, const char *name)
{
  int i;
  for (i = 0; i < o->nruns; i++)
    if (!strcmp(o->runs[i].name, name)) return i;
  return -1;
}

/* Compare two CSV files line by line, skipping the first (comment) line,
 * which names the method.  Returns 0 when equal. */
/* Blanks the ulba_N field (the fourth) of a CSV row in place: the overloading
 * PEs ULBA detected are a diagnostic, which differs between ULBA with alpha
 * 0 and the standard method although every modelled figure is equal. */
static void blank_ulba_n(char *row)
{
  char *p = row;
  int k;
  for (k = 0; k < 3 && p != NULL; k++) {
    p = strchr(p, ',');
    if (p != NULL) p++;
  }
  if (p == NULL) return;
  {
    char *end = strchr(p, ',');
    if (end != NULL) memmove(p, end, strlen(end) + 1);
  }
}

static int same_rows(const char *a, const char *b)
{
  FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
  char la[65536], lb[65536];
  int line = 0, rc = -1;
  if (!fa || !fb) goto end;
  for (;;) {
    char *ra = fgets(la, sizeof la, fa), *rb = fgets(lb, sizeof lb, fb);
    line++;
    if (!ra || !rb) {
      rc = (!ra && !rb) ? 0 : -1;
      break;
    }
    if (line > 2) {
      blank_ulba_n(la);
      blank_ulba_n(lb);
    }
    if (line > 1 && strcmp(la, lb) != 0) {
      FAIL("%s and %s differ at line %d", a, b, line);
      break;
    }
  }
end:
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return rc;
}

/* The --expect-* checks, on rank 0.  Returns 1 when one fails. */
static int run_checks(const options *o, const run_result *res)
{
  int i, bad = 0, first = -1;
  for (i = 0; i < o->nruns; i++) {
    if (isnan(res[i].model_total)) continue;
    if (res[i].check_failed) bad = 1;
    if (first < 0) first = i;
    if (o->expect_same && (res[i].final_units != res[first].final_units ||
                           res[i].fingerprint != res[first].fingerprint)) {
      FAIL("run %s ends with %ld work units (state %llx), run %s with %ld (%llx)", o->runs[i].name,
           res[i].final_units, (unsigned long long)res[i].fingerprint, o->runs[first].name,
           res[first].final_units, (unsigned long long)res[first].fingerprint);
      bad = 1;
    }
    /* The lower bound is the same for every run (the work of a step does not
     * depend on the partition) and no run beats it. */
    if (o->expect_same &&
        (res[i].model_ideal != res[first].model_ideal || res[i].model_total < res[i].model_ideal)) {
      FAIL("run %s: modelled time %.6e s, lower bound %.6e s (run %s: %.6e s)", o->runs[i].name,
           res[i].model_total, res[i].model_ideal, o->runs[first].name, res[first].model_ideal);
      bad = 1;
    }
  }
  if (o->expect_equal[0]) {
    char a[64], *b, pa[700], pb[700];
    snprintf(a, sizeof a, "%s", o->expect_equal);
    b = strchr(a, ',');
    if (!b) {
      FAIL("--expect-equal needs A,B");
      return 1;
    }
    *b++ = 0;
    if (find_run(o, a) < 0 || find_run(o, b) < 0 || isnan(res[find_run(o, a)].model_total) ||
        isnan(res[find_run(o, b)].model_total)) {
      FAIL("--expect-equal: run %s or %s was not done", a, b);
      return 1;
    }
    snprintf(pa, sizeof pa, "%s/%s_%s.csv", o->out, o->tag, a);
    snprintf(pb, sizeof pb, "%s/%s_%s.csv", o->out, o->tag, b);
    if (same_rows(pa, pb) != 0)
      bad = 1;
    else
      printf("erosion: runs %s and %s wrote identical rows\n", a, b);
  }
  return bad;
}

/* Refuses, before any allocation, a part count the ranks cannot share or a
 * problem the memory cannot hold, naming the limit (rank 0 prints).
 * Returns 0 or -1. */
static int check_machine(const options *o, int size)
{
  int P = o->cfg.P;
  long NO = (long)P * o->cfg.s * o->rows;
  double limit, need;
  if (o->parts > 0 && o->parts < size) {
    if (g_rank == 0)
      FAIL("--parts %d is smaller than the %d ranks: every rank must hold at least one part (PE)",
           o->parts, size);
    return -1;
  }
  if (o->parts > 0 && o->parts % size != 0) {
    if (g_rank == 0)
      FAIL("--parts %d is not a multiple of the %d ranks: every rank holds the same number of "
           "parts (PEs) at the start",
           o->parts, size);
    return -1;
  }
  if (NO > 2147483647L) {
    if (g_rank == 0)
      FAIL("%d PEs x s %d x rows %d = %ld segments: at most 2^31 - 1", P, o->cfg.s, o->rows, NO);
    return -1;
  }
  /* Per cell: two type bytes and two sets of EROSION_SLOTS doubles (current
   * and next) with a quarter more for the halo and migration buffers; per
   * segment and rank: the global owner, part and pointer arrays (32 bytes). */
  need = (double)P * o->cfg.s * o->cfg.s * (2.0 + 2.0 * EROSION_SLOTS * sizeof(double)) * 1.25 +
         (double)NO * size * 32.0;
  if (o->mem_limit > 0) {
    limit = o->mem_limit * 1073741824.0;
  } else {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    limit = pages > 0 && page > 0 ? 0.8 * (double)pages * (double)page : 0.0;
  }
  if (limit > 0 && need > limit) {
    if (g_rank == 0)
      FAIL("%d PEs of %d x %d cells on %d ranks need about %.1f GiB, above the limit of %.1f GiB "
           "(%s): lower --s or --parts",
           P, o->cfg.s, o->cfg.s, size, need / 1073741824.0, limit / 1073741824.0,
           o->mem_limit > 0 ? "--mem-limit" : "80% of this machine's memory");
    return -1;
  }
  return 0;
}

/* The balance cost charged to every balance: --lb-cost's, or the median of
 * CALIB_BALANCES balances of the initial mesh (rank 0's decides). */
static double balance_cost(const options *opt, double unit_cost, int rank)
{
  run_spec cal;
  run_result r;
  double lb_cal = opt->lb_mode == LB_FIXED ? opt->lb_cost : 0.0;
  if (opt->lb_mode != LB_CALIBRATED) return lb_cal;
  memset(&cal, 0, sizeof cal);
  snprintf(cal.name, sizeof cal.name, "calibration");
  cal.balance = 2;
  snprintf(cal.alpha, sizeof cal.alpha, "0");
  snprintf(cal.policy, sizeof cal.policy, "NEVER");
  if (do_run(opt, &cal, -1, unit_cost, 0.0, &r) != 0) {
    if (rank == 0) FAIL("the calibration of the balance cost failed");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Every rank must charge the same cost: rank 0's median decides. */
  lb_cal = r.lb_cost_total;
  MPI_Bcast(&lb_cal, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return lb_cal;
}

/* Rank 0: what the runs will be, before they start. */
static void print_setup(const options *opt, int size, double unit_cost, double lb_cal)
{
  char how[64];
  if (opt->parts > 0)
    printf("erosion: P=%d PEs as Zoltan parts, %d per rank on %d ranks\n", opt->cfg.P,
           opt->cfg.P / size, size);
  printf("erosion: P=%d %s, s=%d (%ld x %d cells), N=%d strong (p=%g), weak p=%g, seed=%llu, "
         "%ld steps, base %s, objects: %s\n",
         opt->cfg.P, opt->parts > 0 ? "parts" : "ranks", opt->cfg.s, erosion_width(&opt->cfg),
         opt->cfg.s, opt->cfg.num_strong, opt->cfg.p_strong, opt->cfg.p_weak,
         (unsigned long long)opt->cfg.seed, opt->steps, opt->base,
         opt->rows == 1 ? "columns" : "column segments");
  if (opt->rows > 1)
    printf("erosion: %d segments of %d cells per column\n", opt->rows, opt->cfg.s / opt->rows);
  printf("erosion: rocks %s, erosion %s\n",
         opt->cfg.geometry == EROSION_GEOM_REFERENCE
             ? "as the reference code (radius s/3, the last N erode, the last moved)"
             : "as the paper (radius s/4, N drawn from the seed)",
         erosion_rule_name(opt->cfg.erosion));
  if (opt->unit_cost > 0)
    snprintf(how, sizeof how, "given");
  else
    snprintf(how, sizeof how, "calibrated at %d sweeps per unit, median over ranks",
             opt->calib_sweeps);
  printf("erosion: cost per work unit %.3e s (%s); balance cost %s\n", unit_cost, how,
         opt->lb_mode == LB_FIXED ? "fixed by --lb-cost"
         : opt->lb_mode == LB_MEASURED
             ? "measured per balance (max over ranks of CPU time)"
             : "calibrated (median of 9 balances, max over ranks of CPU time)");
  if (opt->lb_mode != LB_MEASURED) printf("erosion: balance cost charged %.3e s\n", lb_cal);
  fflush(stdout);
}

/* Rank 0: the table of the runs, the summary CSV and the lower bound that
 * caps the gain of any balancing. */
static void print_summary(const options *opt, const run_result *res, int size, int failed)
{
  int ref = find_run(opt, "std_zhai");
  double refv = ref >= 0 ? res[ref].model_total : NAN;
  char path[700];
  FILE *sum;
  snprintf(path, sizeof path, "%s/%s_summary.csv", opt->out, opt->tag);
  sum = fopen(path, "w");
  if (sum)
    fprintf(sum, "run,P,N,alpha,policy,model_total_s,model_compute_s,lb_cost_s,lb_count,"
                 "usage_mean,gain_vs_std_zhai,meas_total_s,lb_cpu_s,final_units,fingerprint,"
                 "split_columns,ideal_s,ranks\n");
  printf("\n%-17s %6s %10s %8s %5s %7s %9s | %11s\n", "run", "alpha", "policy", "modelled", "LBs",
         "usage", "vs std", "measured");
  printf("%-17s %6s %10s %8s %5s %7s %9s | %11s\n", "", "", "", "time (s)", "", "(model)", "+ZHAI",
         "CPU time (s)");
  for (int i = 0; i < opt->nruns && !failed; i++) {
    const run_spec *r = &opt->runs[i];
    double gain = (refv - res[i].model_total) / refv;
    if (isnan(res[i].model_total)) continue;
    printf("%-17s %6s %10s %8.4f %5ld %7.3f %+8.2f%% | %11.4f\n", r->name, r->ulba ? r->alpha : "-",
           r->balance ? r->policy : "-", res[i].model_total, res[i].lb_count, res[i].usage_mean,
           100.0 * gain, res[i].meas_total);
    if (sum)
      fprintf(sum, "%s,%d,%d,%s,%s,%.6e,%.6e,%.6e,%ld,%.5f,%.5f,%.6e,%.6e,%ld,%llu,%ld,%.6e,%d\n",
              r->name, opt->cfg.P, opt->cfg.num_strong, r->ulba ? r->alpha : "",
              r->balance ? r->policy : "", res[i].model_total, res[i].model_compute,
              res[i].lb_cost_total, res[i].lb_count, res[i].usage_mean, gain,
              opt->no_measured ? 0.0 : res[i].meas_total,
              opt->no_measured ? 0.0 : res[i].lb_cpu_total, res[i].final_units,
              (unsigned long long)res[i].fingerprint, res[i].split_columns, res[i].model_ideal,
              size);
  }
  if (sum) fclose(sum);
  /* The work of a step does not depend on the partition, so every run has
   * the same lower bound; it caps the gain any balancing can bring. */
  for (int i = 0; i < opt->nruns; i++)
    if (!isnan(res[i].model_total)) {
      double lb = res[i].model_ideal;
      printf("lower bound (perfect balance at every step, free): %.4f s", lb);
      if (ref >= 0 && !isnan(refv) && refv > 0)
        printf("; std_zhai is %.1f%% above it, so no method can be more than %.1f%% faster than "
               "std_zhai",
               100.0 * (refv / lb - 1.0), 100.0 * (1.0 - lb / refv));
      printf("\n");
      break;
    }
}

int main(int argc, char **argv)
{
  options opt;
  run_result *res = NULL;
  int rank, size, i, rc = 0, ulba_ok = 0;
  double unit_cost, lb_cal;
  float ver;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_rank = rank;
  if (parse(argc, argv, &opt) != 0) {
    if (rank == 0) usage();
    MPI_Finalize();
    return 2;
  }
  opt.cfg.P = opt.parts > 0 ? opt.parts : size;
  if (check_machine(&opt, size) != 0) {
    MPI_Finalize();
    return 2;
  }
  if (erosion_config_check(&opt.cfg) != EROSION_OK) {
    if (rank == 0)
      FAIL("bad problem: s = %d (>= 4), N = %d (0..P = %d), p-strong %g and p-weak %g (in [0, 1]), "
           "sweeps %d (>= 1), refined-units %d (4..64, a multiple of 4)",
           opt.cfg.s, opt.cfg.num_strong, opt.cfg.P, opt.cfg.p_strong, opt.cfg.p_weak,
           opt.cfg.sweeps, opt.cfg.refined_units);
    MPI_Finalize();
    return 2;
  }
  if (Zoltan_Initialize(argc, argv, &ver) != ZOLTAN_OK) {
    FAIL("Zoltan_Initialize failed");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
#ifdef EROSION_HAVE_ULBA
  ulba_ok = 1;
#endif
  if (rank == 0) mkdir(opt.out, 0777);
  MPI_Barrier(MPI_COMM_WORLD);
  unit_cost = opt.unit_cost > 0 ? opt.unit_cost : calibrate(&opt, size);
  lb_cal = balance_cost(&opt, unit_cost, rank);
  res = calloc((size_t)opt.nruns, sizeof *res);
  if (!res) MPI_Abort(MPI_COMM_WORLD, 1);
  if (rank == 0) print_setup(&opt, size, unit_cost, lb_cal);
  for (i = 0; i < opt.nruns; i++) {
    if ((opt.runs[i].ulba || opt.runs[i].automatic) && !ulba_ok) {
      if (rank == 0)
        printf("erosion: run %s skipped: our methods (ULBA, AUTO) are not built\n",
               opt.runs[i].name);
      res[i].model_total = NAN;
      continue;
    }
    if (do_run(&opt, &opt.runs[i], i, unit_cost, lb_cal, &res[i]) != 0) {
      if (rank == 0) FAIL("run %s failed", opt.runs[i].name);
      rc = 1;
      break;
    }
  }
  if (rank == 0) {
    print_summary(&opt, res, size, rc);
    rc |= run_checks(&opt, res);
    printf("(modelled time = sum over steps of max over %s of work units x %.3e s, plus balance "
           "costs; measured = per-thread CPU clock, max over ranks, plus measured balance CPU)\n",
           opt.parts > 0 ? "parts (PEs)" : "ranks", unit_cost);
  }
  free(res);
  free(opt.runs);
  MPI_Finalize();
  return rc;
}
