/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output of the driver: answer files in zdrive's format, the point/box drop
 * test files, gnuplot files and the end-of-run statistics.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zdrive.h"

/*
 * zdrive_par_filename - not collective: "<root>/<base>.<P>.<rank>" with the
 * rank zero-padded to 1 + floor(log10 P) digits, zdrive's naming.
 */
void zdrive_par_filename(const zdrive_deck *deck, const char *base, int rank, int nranks, char *out,
                         size_t len)
{
  int width = 1 + (int)log10((double)(nranks > 0 ? nranks : 1));
  int n = snprintf(out, len, "%s/%s.%d.%0*d", deck->pfile_root, base, nranks, width, rank);
  /* A name that does not fit is left empty, so that opening it fails loudly. */
  if (n < 0 || (size_t)n >= len) out[0] = '\0';
}

/* Orders indices of objects by global ID. */
static const zdrive_elem *sort_elems;
static int by_gid(const void *a, const void *b)
{
  ZOLTAN_ID_TYPE x = sort_elems[*(const int *)a].gid, y = sort_elems[*(const int *)b].gid;
  return (x > y) - (x < y);
}

/*
 * zdrive_write_answers - not collective: writes <file name>.<tag>.P.r with
 * rank 0 first echoing the deck, then the "GID Part Perm IPerm" table in
 * ascending GID order.  Returns 0, or 1 with st set.
 */
int zdrive_write_answers(const zdrive_deck *deck, const zdrive_mesh *mesh, const char *tag,
                         zdrive_status *st)
{
  char base[ZDRIVE_PATH + 16], path[2 * ZDRIVE_PATH + 64];
  int *idx = NULL, i, rc = 1;
  FILE *f = NULL;

  snprintf(base, sizeof(base), "%s.%s", deck->file_name, tag);
  zdrive_par_filename(deck, base, mesh->rank, mesh->nranks, path, sizeof(path));
  idx = malloc((size_t)(mesh->num_elems > 0 ? mesh->num_elems : 1) * sizeof(int));
  if (!idx) {
    zdrive_set_error(st, path, 0, "out of memory");
    goto cleanup;
  }
  for (i = 0; i < mesh->num_elems; i++) idx[i] = i;
  sort_elems = mesh->elems;
  qsort(idx, (size_t)mesh->num_elems, sizeof(int), by_gid);
  f = fopen(path, "w");
  if (!f) {
    zdrive_set_error(st, path, 0, "cannot open the answer file for writing");
    goto cleanup;
  }
  if (mesh->rank == 0 && zdrive_echo_deck(f, deck->deck_name)) {
    zdrive_set_error(st, deck->deck_name, 0, "cannot re-read the deck to echo it");
    goto cleanup;
  }
  fprintf(f, "Global element ids assigned to processor %d\n", mesh->rank);
  fprintf(f, "GID\tPart\tPerm\tIPerm\n");
  for (i = 0; i < mesh->num_elems; i++) {
    const zdrive_elem *e = &mesh->elems[idx[i]];
    fprintf(f, ZOLTAN_ID_SPEC "\t%d\t%d\t%d\n", e->gid, e->part, e->perm, e->iperm);
  }
  if (fclose(f) != 0) {
    f = NULL;
    zdrive_set_error(st, path, 0, "write error");
    goto cleanup;
  }
  f = NULL;
  rc = 0;
cleanup:
  if (f) fclose(f);
  free(idx);
  return rc;
}

/* Point assignment checks, printed as zdrive prints them. */
static void point_drops(FILE *fp, double *x, struct Zoltan_Struct *zz, int rank, int *procs,
                        int nprocs, int *parts, int nparts, int both)
{
  int proc, part, i;
  if (both) {
    if (Zoltan_LB_Point_Assign(zz, x, &proc) != ZOLTAN_OK) {
      fprintf(fp, "error returned from Zoltan_LB_Point_Assign()\n");
    } else {
      fprintf(fp, "%d Zoltan_LB_Point_Assign    (%e %e %e) on proc %d\n", rank, x[0], x[1], x[2],
              proc);
      for (i = 0; i < nprocs && procs[i] != proc; i++) continue;
      if (i == nprocs)
        fprintf(fp,
                "%d Error:  processor %d (from Zoltan_LB_Point_Assign) not in proc list "
                "from Zoltan_LB_Box_Assign\n",
                rank, proc);
    }
  } else {
    fprintf(fp, "%d Zoltan_LB_Point_Assign not tested.\n", rank);
  }
  if (Zoltan_LB_Point_PP_Assign(zz, x, &proc, &part) != ZOLTAN_OK) {
    fprintf(fp, "error returned from Zoltan_LB_Point_PP_Assign()\n");
    return;
  }
  fprintf(fp, "%d Zoltan_LB_Point_PP_Assign (%e %e %e) on proc %d part %d\n", rank, x[0], x[1],
          x[2], proc, part);
  for (i = 0; i < nprocs && procs[i] != proc; i++) continue;
  if (i == nprocs)
    fprintf(fp,
            "%d Error:  processor %d (from Zoltan_LB_Point_PP_Assign) not in proc list "
            "from Zoltan_LB_Box_PP_Assign\n",
            rank, proc);
  if (parts) {
    for (i = 0; i < nparts && parts[i] != part; i++) continue;
    if (i == nparts)
      fprintf(fp,
              "%d Error:  part %d (from Zoltan_LB_Point_PP_Assign) not in part list "
              "from Zoltan_LB_Box_PP_Assign\n",
              rank, part);
  }
}

/* Box assignment checks, then points at the corners and the centre. */
static void box_drops(FILE *fp, double *lo, double *hi, struct Zoltan_Struct *zz, int rank,
                      int want_proc, int want_part, int both)
{
  int procs[1000], parts[1000], np = 0, nq = 0, i, found;
  double x[3];
  fprintf(fp, "\n-------------------------------------------------------\n");
  if (both) {
    if (Zoltan_LB_Box_Assign(zz, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], procs, &np) !=
        ZOLTAN_OK) {
      fprintf(fp, "error returned from Zoltan_LB_Box_Assign()\n");
    } else {
      fprintf(fp,
              "%d Zoltan_LB_Box_Assign    LO: (%e %e %e)\n%d                         "
              "HI: (%e %e %e)\n",
              rank, lo[0], lo[1], lo[2], rank, hi[0], hi[1], hi[2]);
      fprintf(fp, "       On %d Procs: ", np);
      for (found = 0, i = 0; i < np; i++) {
        fprintf(fp, "%d ", procs[i]);
        found |= procs[i] == want_proc;
      }
      fprintf(fp, "\n");
      if (want_proc >= 0 && !found)
        fprintf(fp,
                "%d Zoltan_LB_Box_Assign error:  expected proc %d not in output proc "
                "list\n",
                rank, want_proc);
    }
  } else {
    fprintf(fp, "%d Zoltan_LB_Box_Assign not tested.\n", rank);
  }
  if (Zoltan_LB_Box_PP_Assign(zz, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], procs, &np, parts,
                              &nq) != ZOLTAN_OK) {
    fprintf(fp, "error returned from Zoltan_LB_Box_PP_Assign()\n");
    return;
  }
  fprintf(fp,
          "%d Zoltan_LB_Box_PP_Assign LO: (%e %e %e)\n%d                         "
          "HI: (%e %e %e)\n",
          rank, lo[0], lo[1], lo[2], rank, hi[0], hi[1], hi[2]);
  fprintf(fp, "       On %d Procs: ", np);
  for (found = 0, i = 0; i < np; i++) {
    fprintf(fp, "%d ", procs[i]);
    found |= procs[i] == want_proc;
  }
  fprintf(fp, "\n       In %d Parts: ", nq);
  {
    int pfound = 0;
    for (i = 0; i < nq; i++) {
      fprintf(fp, "%d ", parts[i]);
      pfound |= parts[i] == want_part;
    }
    fprintf(fp, "\n");
    if (want_proc >= 0 && !found)
      fprintf(fp,
              "%d Zoltan_LB_Box_PP_Assign error:  expected proc %d not in output proc "
              "list\n",
              rank, want_proc);
    if (want_part >= 0 && !pfound)
      fprintf(fp,
              "%d Zoltan_LB_Box_PP_Assign error:  expected part %d not in output part "
              "list\n",
              rank, want_part);
  }
  point_drops(fp, lo, zz, rank, procs, np, parts, nq, both);
  point_drops(fp, hi, zz, rank, procs, np, parts, nq, both);
  for (i = 0; i < 3; i++) x[i] = 0.5 * (lo[i] + hi[i]);
  point_drops(fp, x, zz, rank, procs, np, parts, nq, both);
}

/*
 * zdrive_test_drops - collective: zdrive's point- and box-assignment test,
 * written to <file name>.drops.P.r: the unit box, a box at this rank's first
 * object, and a box around everything.  Returns 0, or 1 with st set.
 */
int zdrive_test_drops(struct Zoltan_Struct *zz, const zdrive_deck *deck, const zdrive_mesh *mesh,
                      zdrive_status *st)
{
  char base[ZDRIVE_PATH + 16], path[2 * ZDRIVE_PATH + 64];
  double lo[3], hi[3];
  int i, maxp = -1, gmaxp, both;
  FILE *fp;

  for (i = 0; i < mesh->num_elems; i++)
    if (mesh->elems[i].part > maxp) maxp = mesh->elems[i].part;
  MPI_Allreduce(&maxp, &gmaxp, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  /* Rank-based queries only make sense with one part per rank. */
  both = gmaxp == mesh->nranks - 1 && deck->test_local_parts == 0;
  snprintf(base, sizeof(base), "%s.drops", deck->file_name);
  zdrive_par_filename(deck, base, mesh->rank, mesh->nranks, path, sizeof(path));
  fp = fopen(path, "w");
  if (!fp) {
    zdrive_set_error(st, path, 0, "cannot open the drops file for writing");
    return 1;
  }
  lo[0] = lo[1] = lo[2] = 0.0;
  hi[0] = hi[1] = hi[2] = 1.0;
  box_drops(fp, lo, hi, zz, mesh->rank, -1, -1, both);
  if (mesh->num_elems > 0) {
    const zdrive_elem *e = &mesh->elems[0];
    double x[3] = {0.0, 0.0, 0.0};
    for (i = 0; i < mesh->num_dims; i++) x[i] = e->coord[i];
    for (i = 0; i < 3; i++) {
      lo[i] = x[i];
      hi[i] = x[i] + (double)(i + 1);
    }
    box_drops(fp, lo, hi, zz, mesh->rank, mesh->rank, e->part, both);
  }
  for (i = 0; i < 3; i++) {
    lo[i] = -1000000.0;
    hi[i] = 1000000.0;
  }
  box_drops(fp, lo, hi, zz, mesh->rank, maxp >= 0 ? mesh->rank : -1, -1, both);
  fclose(fp);
  return 0;
}

/*
 * zdrive_write_gnuplot - collective: each rank writes <file name>.gnu.P.r
 * with "x y [z] part" per object; rank 0 writes <file name>.gnuload, a
 * gnuplot script that plots every rank's file (or colours by part when
 * "plot partition" is set).  Returns 0, or 1 with st set.
 */
int zdrive_write_gnuplot(const zdrive_deck *deck, const zdrive_mesh *mesh, zdrive_status *st)
{
  char base[ZDRIVE_PATH + 16], path[2 * ZDRIVE_PATH + 64];
  FILE *f;
  int i, k, r;
  if (mesh->num_dims == 0) {
    if (mesh->rank == 0)
      fprintf(stderr, "zdrive: warning: gnuplot output needs coordinates; none were read\n");
    return 0;
  }
  snprintf(base, sizeof(base), "%s.gnu", deck->file_name);
  zdrive_par_filename(deck, base, mesh->rank, mesh->nranks, path, sizeof(path));
  f = fopen(path, "w");
  if (!f) {
    zdrive_set_error(st, path, 0, "cannot open the gnuplot file for writing");
    return 1;
  }
  for (i = 0; i < mesh->num_elems; i++) {
    for (k = 0; k < mesh->num_dims; k++) fprintf(f, "%e ", mesh->elems[i].coord[k]);
    fprintf(f, "%d\n", mesh->elems[i].part);
  }
  fclose(f);
  if (mesh->rank != 0) return 0;
  snprintf(path, sizeof(path), "%s/%s.gnuload", deck->pfile_root, deck->file_name);
  f = fopen(path, "w");
  if (!f) {
    zdrive_set_error(st, path, 0, "cannot open the gnuplot script for writing");
    return 1;
  }
  fprintf(f, "# gnuplot script written by zdrive; run: gnuplot -persist %s.gnuload\n",
          deck->file_name);
  fprintf(f, "set nokey\n");
  fprintf(f, "%s ", mesh->num_dims == 3 ? "splot" : "plot");
  for (r = 0; r < mesh->nranks; r++) {
    char p2[2 * ZDRIVE_PATH + 64];
    zdrive_par_filename(deck, base, r, mesh->nranks, p2, sizeof(p2));
    if (deck->plot_partition)
      fprintf(f, "%s\"%s\" using 1:%s with points palette", r ? ", " : "", p2,
              mesh->num_dims == 1 ? "(0):2" : (mesh->num_dims == 2 ? "2:3" : "2:3:4"));
    else
      fprintf(f, "%s\"%s\" using 1:%s", r ? ", " : "", p2,
              mesh->num_dims == 1 ? "(0)" : (mesh->num_dims == 2 ? "2" : "2:3"));
  }
  fprintf(f, "\n");
  fclose(f);
  return 0;
}

/* Global part of every object (index gid - gid_base), -1 for none; caller frees. */
static int *global_parts(const zdrive_mesh *mesh, MPI_Comm comm)
{
  int n = mesh->gnvtx > 0 ? mesh->gnvtx : 1, i;
  int *mine = malloc((size_t)n * sizeof(int)), *all = malloc((size_t)n * sizeof(int));
  if (!mine || !all) {
    free(mine);
    free(all);
    return NULL;
  }
  for (i = 0; i < n; i++) mine[i] = -1;
  for (i = 0; i < mesh->num_elems; i++)
    mine[mesh->elems[i].gid - (ZOLTAN_ID_TYPE)mesh->gid_base] = mesh->elems[i].part;
  MPI_Allreduce(mine, all, mesh->gnvtx, MPI_INT, MPI_MAX, comm);
  free(mine);
  return all;
}

/*
 * zdrive_imbalance - collective: max part weight over mean part weight of
 * the first object weight, over nparts parts (<= 0: as many parts as the
 * highest part number + 1).  1.0 is perfect balance.
 */
double zdrive_imbalance(const zdrive_mesh *mesh, int nparts, MPI_Comm comm)
{
  int i, maxp = -1;
  double *w, *gw, total = 0.0, mx = 0.0;
  for (i = 0; i < mesh->num_elems; i++)
    if (mesh->elems[i].part > maxp) maxp = mesh->elems[i].part;
  MPI_Allreduce(MPI_IN_PLACE, &maxp, 1, MPI_INT, MPI_MAX, comm);
  if (nparts <= 0) nparts = maxp + 1;
  if (nparts < maxp + 1) nparts = maxp + 1;
  if (nparts <= 0) return 1.0;
  w = calloc((size_t)nparts, sizeof(double));
  gw = calloc((size_t)nparts, sizeof(double));
  if (!w || !gw) {
    free(w);
    free(gw);
    return -1.0;
  }
  for (i = 0; i < mesh->num_elems; i++) w[mesh->elems[i].part] += mesh->elems[i].wgt[0];
  MPI_Allreduce(w, gw, nparts, MPI_DOUBLE, MPI_SUM, comm);
  for (i = 0; i < nparts; i++) {
    total += gw[i];
    if (gw[i] > mx) mx = gw[i];
  }
  free(w);
  free(gw);
  return total > 0.0 ? mx * nparts / total : 1.0;
}

/*
 * zdrive_print_stats - collective: per-rank objects and weights, the
 * imbalance over parts, the edge cut where a graph exists and the objects
 * received in the last migration, printed by rank 0 like zdrive's summary.
 */
void zdrive_print_stats(const zdrive_mesh *mesh, const char *when, MPI_Comm comm)
{
  double w = 0.0, cut = 0.0, gcut = 0.0, wsum, wmax, wmin;
  long nobj = mesh->num_elems, gmig = 0, mig = mesh->mig_objects, nmax, nmin, nsum;
  int i, j, *parts = NULL;
  for (i = 0; i < mesh->num_elems; i++) w += mesh->elems[i].wgt[0];
  MPI_Allreduce(&w, &wsum, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&w, &wmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&w, &wmin, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&nobj, &nsum, 1, MPI_LONG, MPI_SUM, comm);
  MPI_Allreduce(&nobj, &nmax, 1, MPI_LONG, MPI_MAX, comm);
  MPI_Allreduce(&nobj, &nmin, 1, MPI_LONG, MPI_MIN, comm);
  MPI_Allreduce(&mig, &gmig, 1, MPI_LONG, MPI_SUM, comm);
  if (mesh->has_graph) {
    parts = global_parts(mesh, comm);
    if (parts) {
      for (i = 0; i < mesh->num_elems; i++)
        for (j = 0; j < mesh->elems[i].nadj; j++)
          if (parts[mesh->elems[i].adj[j] - 1] != mesh->elems[i].part)
            cut += mesh->elems[i].ewgt ? mesh->elems[i].ewgt[j] : 1.0;
      free(parts);
    }
    MPI_Allreduce(&cut, &gcut, 1, MPI_DOUBLE, MPI_SUM, comm);
  }
  {
    double imb = zdrive_imbalance(mesh, 0, comm);
    if (mesh->rank == 0) {
      printf("DRIVER STATS (%s): objects total %ld min %ld max %ld per rank\n", when, nsum, nmin,
             nmax);
      printf("DRIVER STATS (%s): weight total %g min %g max %g per rank\n", when, wsum, wmin, wmax);
      printf("DRIVER STATS (%s): part imbalance (max/avg weight) %.4f\n", when, imb);
      if (mesh->has_graph) printf("DRIVER STATS (%s): cut edges (weighted) %g\n", when, gcut / 2.0);
      printf("DRIVER STATS (%s): objects migrated in the last balance %ld\n", when, gmig);
      fflush(stdout);
    }
  }
}
