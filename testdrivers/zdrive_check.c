/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zdrive_check - checks the answer files of one zdrive run against the
 * problem, for methods that have no golden answers (ours).
 *
 * usage: zdrive_check <graph file> <nparts> <max imbalance> <unit|file|combined[=D]> <answer files...>
 *
 * It asserts that every vertex of the graph appears exactly once over all
 * answer files (so the object count is conserved), that every part is in
 * [0, nparts), and that the part weights (the first vertex weight of the
 * file with "file", 1 per vertex with "unit", or with "combined" the sum
 * over the file's weights (the first D with "combined=D", as many as the
 * deck's OBJ_WEIGHT_DIM gives the methods) of the vertex's share of that
 * weight's total, the load our methods balance when there are several) are
 * balanced:
 * max part weight / mean part weight
 * <= max(max imbalance, 1 + heaviest vertex / mean), the second term being
 * what any list-scheduling method can promise when one vertex is heavy.
 * Exit status 0 when all holds, 1 otherwise, with a message per violation.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How the vertex weights are read. */
enum { W_UNIT, W_FIRST, W_COMBINED };

/* Replace each vertex's first weight by the sum of its shares of every
 * weight's total (all[v * vdim + d]). */
static void combine(long n, long vdim, const double *all, double *w)
{
  double *tot = calloc((size_t)vdim + 1, sizeof *tot);
  long v, d;
  if (tot == NULL) return;
  for (v = 0; v < n; v++)
    for (d = 0; d < vdim; d++) tot[d] += all[v * vdim + d];
  for (v = 0; v < n; v++) {
    w[v] = 0.0;
    for (d = 0; d < vdim; d++) w[v] += tot[d] > 0.0 ? all[v * vdim + d] / tot[d] : 0.0;
  }
  free(tot);
}

/* Reads the vertex count and the vertex weights of a Chaco graph file. */
static int read_weights(const char *path, int mode, long use_dims, long *nv, double **w)
{
  FILE *f = fopen(path, "r");
  char line[1 << 16];
  long n = 0, ne = 0, fmt = 0, v = 0, vdim = 0, d, ncon = 0;
  int header = 0, vnum;
  double *all = NULL;
  if (!f) {
    fprintf(stderr, "zdrive_check: cannot open %s\n", path);
    return 1;
  }
  while (fgets(line, sizeof(line), f)) {
    char *p = line, *end;
    while (isspace((unsigned char)*p)) p++;
    if (!header) {
      if (!*p || *p == '%' || *p == '#') continue;
      /* Chaco's header: vertices, edges, format, and the number of
       * weights per vertex when there are several. */
      if (sscanf(p, "%ld %ld %ld %ld", &n, &ne, &fmt, &ncon) < 2 || n <= 0) {
        fprintf(stderr, "zdrive_check: %s: bad header\n", path);
        fclose(f);
        return 1;
      }
      header = 1;
      *w = malloc((size_t)n * sizeof(double));
      vdim = (fmt / 10) % 10 ? (ncon > 1 ? ncon : 1) : 0;
      if (mode == W_COMBINED && use_dims > 0 && use_dims < vdim) vdim = use_dims;
      if (vdim > 0 && mode == W_COMBINED) all = calloc((size_t)(n * vdim), sizeof *all);
      if (!*w || (vdim > 0 && mode == W_COMBINED && !all)) {
        fclose(f);
        return 1;
      }
      for (v = 0; v < n; v++) (*w)[v] = 1.0;
      v = 0;
      if (mode == W_UNIT || vdim == 0) break;
      continue;
    }
    if (v >= n) break;
    vnum = (int)((fmt / 100) % 10);
    if (vnum) {
      (void)strtol(p, &end, 10);
      p = end;
    }
    /* A vertex line lists all the file's weights; only the first vdim are
     * read. */
    for (d = 0; d < (mode == W_COMBINED ? vdim : 1); d++) {
      double x = strtod(p, &end);
      p = end;
      if (d == 0) (*w)[v] = x;
      if (all) all[v * vdim + d] = x;
    }
    v++;
  }
  fclose(f);
  if (all) combine(n, vdim, all, *w);
  free(all);
  *nv = n;
  return header ? 0 : 1;
}

int main(int argc, char **argv)
{
  long nv = 0, i, count = 0;
  int nparts, mode, a, bad = 0;
  double maximb, *w = NULL, *pw, total = 0.0, mx = 0.0, wmax = 0.0, mean, imb, bound;
  int *seen;

  if (argc < 6) {
    fprintf(stderr,
            "usage: %s <graph> <nparts> <max imbalance> <unit|file|combined> <answer files...>\n",
            argv[0]);
    return 2;
  }
  nparts = atoi(argv[2]);
  maximb = atof(argv[3]);
  mode = !strcmp(argv[4], "unit")           ? W_UNIT
         : !strncmp(argv[4], "combined", 8) ? W_COMBINED
                                            : W_FIRST;
  if (nparts <= 0 ||
      read_weights(argv[1], mode, !strncmp(argv[4], "combined=", 9) ? atol(argv[4] + 9) : 0, &nv,
                   &w))
    return 2;
  seen = calloc((size_t)nv, sizeof(int));
  pw = calloc((size_t)nparts, sizeof(double));
  if (!seen || !pw) return 2;
  for (a = 5; a < argc; a++) {
    FILE *f = fopen(argv[a], "r");
    char line[4096];
    int table = 0;
    if (!f) {
      fprintf(stderr, "zdrive_check: cannot open %s\n", argv[a]);
      return 1;
    }
    while (fgets(line, sizeof(line), f)) {
      unsigned long gid;
      int part, perm, iperm;
      if (!table) {
        table = !strncmp(line, "GID", 3);
        continue;
      }
      if (sscanf(line, "%lu %d %d %d", &gid, &part, &perm, &iperm) != 4) continue;
      count++;
      if (gid < 1 || (long)gid > nv) {
        printf("FAIL: %s: GID %lu outside [1, %ld]\n", argv[a], gid, nv);
        bad = 1;
        continue;
      }
      if (seen[gid - 1]++) {
        printf("FAIL: GID %lu appears more than once (again in %s)\n", gid, argv[a]);
        bad = 1;
      }
      if (part < 0 || part >= nparts) {
        printf("FAIL: %s: GID %lu in part %d outside [0, %d)\n", argv[a], gid, part, nparts);
        bad = 1;
        continue;
      }
      pw[part] += w[gid - 1];
    }
    fclose(f);
  }
  for (i = 0; i < nv; i++)
    if (!seen[i]) {
      printf("FAIL: GID %ld is in no answer file\n", i + 1);
      bad = 1;
    }
  if (count != nv) {
    printf("FAIL: %ld objects in the answer files, %ld in the graph\n", count, nv);
    bad = 1;
  }
  for (i = 0; i < nv; i++)
    if (w[i] > wmax) wmax = w[i];
  for (a = 0; a < nparts; a++) {
    total += pw[a];
    if (pw[a] > mx) mx = pw[a];
  }
  mean = total / nparts;
  imb = mean > 0 ? mx / mean : 1.0;
  bound = mean > 0 && 1.0 + wmax / mean > maximb ? 1.0 + wmax / mean : maximb;
  printf("zdrive_check: %ld objects, %d parts, imbalance %.4f (bound %.4f)\n", count, nparts, imb,
         bound);
  if (imb > bound + 1e-9) {
    printf("FAIL: imbalance %.4f exceeds %.4f\n", imb, bound);
    bad = 1;
  }
  free(seen);
  free(pw);
  free(w);
  return bad;
}
