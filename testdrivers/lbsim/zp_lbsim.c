/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zp_lbsim: replay the balances recorded with LB_DUMP_FILE through any
 * method, ours or Zoltan's, and compare them (Bhandarkar, Brunner and Kalé's +LBSim).
 *
 *   zp_lbsim FILE [--methods M1,M2,...] [--parts P] [--seq K] [--comm-cost X]
 *            [--csv OUT.csv] [--assign OUT]
 *
 * Every rank reads the whole file.  Each dump becomes a Zoltan problem on
 * MPI_COMM_WORLD: an object goes to rank (its recorded rank mod the ranks
 * of this run), with its recorded weights, part, coordinates and edges;
 * the dump's parameters, tolerances and part sizes are set, then each
 * method partitions it through Zoltan_LB_Partition (the layer is linked
 * ahead of Zoltan, so our methods and Zoltan's run the same way as in the
 * application).  Our centralised methods see the objects in global-ID
 * order whatever the rank count, so their replay is the live answer; a
 * native method gives the live answer when the replay runs on as many
 * ranks as the live run.
 *
 * For each dump and method rank 0 prints, and writes to --csv: max/avg of
 * the first weight (against the part sizes), objects and weight moved,
 * edge cut, the modelled step time (the largest, over parts, of the part's
 * load + comm-cost x the weight of its edges that leave the part) and the
 * balance time.  --assign writes
 * "SEQ METHOD GID PART" lines for every object.  Exit status: 0, 1 when a
 * method failed, 2 on bad arguments or a malformed file (the message names
 * the line).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "loaddb_dump.h"
#include "loaddb_eval.h"

/* What the callbacks serve: the dump and the objects of this rank. */
typedef struct sim {
  const loaddb_dump *d; /* the dump */
  int nranks;           /* ranks of this run */
  int n;                /* local objects */
  size_t *idx;          /* their indices in the dump */
  size_t *edges;        /* local edge count prefix, n + 1 */
} sim;

/* Options. */
typedef struct opts {
  const char *file, *methods, *csv, *assign;
  int parts;
  long seq;
  double comm_cost;
} opts;

static int owner(const sim *s, size_t i) { return s->d->procs[i] % s->nranks; }

static int num_obj(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((sim *)data)->n;
}

static void obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int wdim,
                     float *w, int *ierr)
{
  const sim *s = data;
  int i, k;
  (void)nlid;
  for (i = 0; i < s->n; i++) {
    size_t o = s->idx[i];
    for (k = 0; k < ngid; k++) g[i * ngid + k] = (ZOLTAN_ID_TYPE)s->d->gids[o * (size_t)ngid + k];
    l[i] = (ZOLTAN_ID_TYPE)i;
    for (k = 0; k < wdim; k++)
      w[i * wdim + k] = k < s->d->wdim ? (float)s->d->wgts[o * (size_t)s->d->wdim + k] : 1.0f;
  }
  *ierr = ZOLTAN_OK;
}

static void part_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                       int *parts, int *ierr)
{
  const sim *s = data;
  int i;
  (void)ngid;
  (void)nlid;
  (void)g;
  for (i = 0; i < n; i++) {
    int p = s->d->cur_part[s->idx[l[i]]];
    parts[i] = p >= 0 ? p : 0;
  }
  *ierr = ZOLTAN_OK;
}

static int num_geom(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((sim *)data)->d->gdim;
}

static void geom_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                       int dim, double *x, int *ierr)
{
  const sim *s = data;
  int i, k;
  (void)ngid;
  (void)nlid;
  (void)g;
  for (i = 0; i < n; i++)
    for (k = 0; k < dim; k++) x[i * dim + k] = s->d->coords[s->idx[l[i]] * (size_t)dim + k];
  *ierr = ZOLTAN_OK;
}

static void num_edges(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                      int *ne, int *ierr)
{
  const sim *s = data;
  int i;
  (void)ngid;
  (void)nlid;
  (void)g;
  for (i = 0; i < n; i++) {
    size_t o = s->idx[l[i]];
    ne[i] = (int)(s->d->adj_start[o + 1] - s->d->adj_start[o]);
  }
  *ierr = ZOLTAN_OK;
}

/* The index of a neighbour among the dump's objects (they are sorted). */
static void edge_list(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l,
                      int *ne, ZOLTAN_ID_PTR nbr, int *procs, int ewd, float *ew, int *ierr)
{
  const sim *s = data;
  size_t e = 0, q;
  int i, k;
  (void)nlid;
  (void)g;
  (void)ne;
  for (i = 0; i < n; i++) {
    size_t o = s->idx[l[i]];
    for (q = s->d->adj_start[o]; q < s->d->adj_start[o + 1]; q++, e++) {
      const unsigned long *h = s->d->nbr + q * (size_t)ngid;
      for (k = 0; k < ngid; k++) nbr[e * (size_t)ngid + k] = (ZOLTAN_ID_TYPE)h[k];
      procs[e] = owner(s, loaddb_find(s->d, h));
      for (k = 0; k < ewd; k++)
        ew[e * (size_t)ewd + k] =
            k < s->d->edim ? (float)s->d->ewgts[q * (size_t)s->d->edim + k] : 1.0f;
    }
  }
  *ierr = ZOLTAN_OK;
}

/* The Zoltan problem of one dump for one method on this run's ranks. */
static struct Zoltan_Struct *make_problem(const loaddb_dump *d, sim *s, const char *method,
                                          int parts)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  char buf[64];
  size_t k;
  if (zz == NULL) return NULL;
  /* Quiet before LB_METHOD, which Zoltan announces at the default level. */
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  for (k = 0; k < d->nparams; k++) {
    if (d->params[k].index < 0)
      Zoltan_Set_Param(zz, d->params[k].name, d->params[k].value);
    else
      Zoltan_Set_Param_Vec(zz, d->params[k].name, d->params[k].value, d->params[k].index);
  }
  /* An unknown method must fail, not run Zoltan's default (RCB) under its
   * name; Zoltan has printed why. */
  if (Zoltan_Set_Param(zz, "LB_METHOD", method) != ZOLTAN_OK) {
    Zoltan_Destroy(&zz);
    return NULL;
  }
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  snprintf(buf, sizeof buf, "%d", d->ngid);
  Zoltan_Set_Param(zz, "NUM_GID_ENTRIES", buf);
  Zoltan_Set_Param(zz, "NUM_LID_ENTRIES", "1");
  snprintf(buf, sizeof buf, "%d", parts);
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", buf);
  snprintf(buf, sizeof buf, "%d", d->edim);
  Zoltan_Set_Param(zz, "EDGE_WEIGHT_DIM", buf);
  for (k = 0; k < (size_t)d->wdim; k++) {
    snprintf(buf, sizeof buf, "%.17g", d->tol[k]);
    Zoltan_Set_Param_Vec(zz, "IMBALANCE_TOL", buf, (int)k);
  }
  /* Recorded sizes apply to the recorded number of parts only. */
  if (d->sizes_set && parts == d->parts) {
    int p, w;
    for (p = 0; p < d->parts; p++)
      for (w = 0; w < d->wdim; w++) {
        float f = (float)d->sizes[(size_t)p * (size_t)d->wdim + (size_t)w];
        Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &p, &w, &f);
      }
  }
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, s);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, s);
  Zoltan_Set_Part_Multi_Fn(zz, part_multi, s);
  if (d->gdim > 0) {
    Zoltan_Set_Num_Geom_Fn(zz, num_geom, s);
    Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, s);
  }
  if (d->nedges > 0) {
    Zoltan_Set_Num_Edges_Multi_Fn(zz, num_edges, s);
    Zoltan_Set_Edge_List_Multi_Fn(zz, edge_list, s);
  }
  return zz;
}

/* Partition dump d with one method; rank 0 prints and writes the results.
 * Returns 0, or 1 when the method failed.  Collective. */
static int run_one(const loaddb_dump *d, const char *method, const opts *o, FILE *csv, FILE *assign)
{
  sim s;
  int rank, parts = o->parts > 0 ? o->parts : d->parts, rc, changes, ngid, nlid, nimp, nexp, i;
  int *ip = NULL, *ipa = NULL, *ep = NULL, *epa = NULL, *mine = NULL, *newp = NULL, fail = 0;
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  struct Zoltan_Struct *zz;
  double t0, t;
  size_t k;
  loaddb_eval m;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s.nranks);
  s.d = d;
  s.n = 0;
  s.idx = malloc((d->nobj + 1) * sizeof *s.idx);
  mine = malloc((d->nobj + 1) * sizeof *mine);
  newp = malloc((d->nobj + 1) * sizeof *newp);
  if (!s.idx || !mine || !newp) {
    fprintf(stderr, "zp_lbsim: out of memory\n");
    fail = 1;
    goto End;
  }
  for (k = 0; k < d->nobj; k++) {
    mine[k] = -1;
    if (owner(&s, k) == rank) s.idx[s.n++] = k;
  }
  zz = make_problem(d, &s, method, parts);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  rc = zz ? Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                                &el, &ep, &epa)
          : ZOLTAN_FATAL;
  t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  fail = rc != ZOLTAN_OK && rc != ZOLTAN_WARN;
  for (i = 0; !fail && i < nexp; i++) mine[s.idx[el[i]]] = epa[i];
  MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(mine, newp, (int)d->nobj, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (k = 0; !fail && k < d->nobj; k++) fail = newp[k] < 0 || newp[k] >= parts;
  if (rank == 0 && fail) {
    printf("%-6ld %-14s failed (Zoltan_LB_Partition returned %d on rank 0)\n", d->seq, method, rc);
  } else if (rank == 0) {
    loaddb_evaluate(d, newp, parts, o->comm_cost, &m);
    printf("%-6ld %-14s %8.4f %10.0f %12.6g %12.6g %12.6g %10.4f\n", d->seq, method, m.maxavg,
           m.moved_obj, m.moved_w, m.cut, m.step, t);
    if (csv)
      fprintf(csv, "%ld,%s,%d,%zu,%.6f,%.0f,%.9g,%.9g,%.9g,%.6f\n", d->seq, method, parts, d->nobj,
              m.maxavg, m.moved_obj, m.moved_w, m.cut, m.step, t);
    for (k = 0; assign && k < d->nobj; k++) {
      int g;
      fprintf(assign, "%ld %s", d->seq, method);
      for (g = 0; g < d->ngid; g++)
        fprintf(assign, " %lu", d->gids[k * (size_t)d->ngid + (size_t)g]);
      fprintf(assign, " %d\n", newp[k]);
    }
  }
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  Zoltan_Destroy(&zz);
End:
  free(s.idx);
  free(mine);
  free(newp);
  return fail;
}

/* A whole-string number: 0, or -1 with a message naming the option. */
static int number(const char *opt, const char *v, double lo, double hi, double *out)
{
  char *end;
  *out = strtod(v, &end);
  if (end == v || *end != '\0' || !(*out >= lo && *out <= hi)) {
    fprintf(stderr, "zp_lbsim: %s '%s' is not a number in [%.9g, %.9g]\n", opt, v, lo, hi);
    return -1;
  }
  return 0;
}

static int parse_args(int argc, char **argv, opts *o)
{
  int i;
  double x = 0.0;
  memset(o, 0, sizeof *o);
  o->seq = -1;
  for (i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (argv[i][0] != '-' && o->file == NULL)
      o->file = argv[i];
    else if (v == NULL)
      return -1;
    else if (!strcmp(argv[i], "--methods"))
      o->methods = argv[++i];
    else if (!strcmp(argv[i], "--csv"))
      o->csv = argv[++i];
    else if (!strcmp(argv[i], "--assign"))
      o->assign = argv[++i];
    else if (!strcmp(argv[i], "--parts")) {
      if (number(argv[i], argv[i + 1], 1, 1 << 24, &x)) return -1;
      o->parts = (int)x;
      i++;
    } else if (!strcmp(argv[i], "--seq")) {
      if (number(argv[i], argv[i + 1], 1, 2147483647.0, &x)) return -1;
      o->seq = (long)x;
      i++;
    } else if (!strcmp(argv[i], "--comm-cost")) {
      if (number(argv[i], argv[i + 1], 0, 1e300, &o->comm_cost)) return -1;
      i++;
    } else
      return -1;
  }
  return o->file != NULL ? 0 : -1;
}

/* The whole file in memory; NULL (with a message) when it cannot be read. */
static char *read_all(const char *name, size_t *len)
{
  FILE *f = fopen(name, "rb");
  char *text = NULL;
  size_t cap = 0, n;
  *len = 0;
  if (f == NULL) {
    fprintf(stderr, "zp_lbsim: cannot open '%s'\n", name);
    return NULL;
  }
  do {
    if (*len + 65536 > cap) {
      char *g = realloc(text, cap = 2 * cap + 65536);
      if (g == NULL) {
        fprintf(stderr, "zp_lbsim: '%s' does not fit in memory\n", name);
        free(text);
        fclose(f);
        return NULL;
      }
      text = g;
    }
    n = fread(text + *len, 1, cap - *len, f);
    *len += n;
  } while (n > 0);
  fclose(f);
  return text;
}

/* Every method of the comma-separated list (or the dump's own) on d. */
static int run_methods(const loaddb_dump *d, const opts *o, FILE *csv, FILE *assign)
{
  char list[1024], *m, *save = NULL;
  int fail = 0;
  snprintf(list, sizeof list, "%s", o->methods ? o->methods : d->method);
  for (m = strtok_r(list, ",", &save); m != NULL; m = strtok_r(NULL, ",", &save))
    fail |= run_one(d, m, o, csv, assign);
  return fail;
}

int main(int argc, char **argv)
{
  opts o;
  int rank, fail = 0, rc = 1, dumps = 0;
  size_t len = 0, pos = 0;
  char *text = NULL, msg[512];
  float ver;
  FILE *csv = NULL, *assign = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (parse_args(argc, argv, &o) != 0) {
    if (rank == 0)
      fprintf(stderr, "usage: zp_lbsim FILE [--methods M1,M2,...] [--parts P] [--seq K] "
                      "[--comm-cost X] [--csv OUT.csv] [--assign OUT]\n");
    MPI_Finalize();
    return 2;
  }
  Zoltan_Initialize(argc, argv, &ver);
  text = read_all(o.file, &len);
  if (rank == 0 && o.csv && (csv = fopen(o.csv, "w")) != NULL)
    fprintf(csv, "seq,method,parts,objects,maxavg,moved_objects,moved_weight,edge_cut,step_model,"
                 "balance_seconds\n");
  if (rank == 0 && o.assign) assign = fopen(o.assign, "w");
  if (rank == 0)
    printf("%-6s %-14s %8s %10s %12s %12s %12s %10s\n", "seq", "method", "max/avg", "moved",
           "moved_wgt", "edge_cut", "step_model", "seconds");
  while (text != NULL) {
    loaddb_dump d;
    rc = loaddb_dump_parse(text, len, &pos, &d, msg, sizeof msg);
    if (rc == LOADDB_DUMP_OK && (o.seq < 0 || o.seq == d.seq)) {
      dumps++;
      fail |= run_methods(&d, &o, csv, assign);
    }
    loaddb_dump_free(&d);
    if (rc != LOADDB_DUMP_OK) break;
  }
  if (text != NULL && rc < 0 && rank == 0) fprintf(stderr, "zp_lbsim: %s: %s\n", o.file, msg);
  if (text != NULL && rc == 0 && dumps == 0 && rank == 0)
    fprintf(stderr, "zp_lbsim: %s: no dump%s\n", o.file, o.seq >= 0 ? " with that --seq" : "");
  if (csv) fclose(csv);
  if (assign) fclose(assign);
  free(text);
  MPI_Finalize();
  if (text == NULL || rc < 0 || dumps == 0) return 2;
  return fail;
}
