/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LB_METHOD=ULBA on degenerate problems, through the plain Zoltan API.
 *
 * "tiny": problems with fewer objects than parts (no object at all, a single
 * object, one object fewer than parts), with one part per rank and with two
 * parts more than ranks.  Zoltan's RCB fails on a single object when asked
 * for complete lists, which ULBA's base run does; ULBA must instead answer
 * ZOLTAN_OK on every rank, give every object a part of its own, keep an
 * object where it is when its rank holds one part, give the same answer
 * twice, and migrate correctly.
 *
 * "debugline": the model line printed at DEBUG_LEVEL 1 names no NaN or
 * infinity: at the first balance (no growth measured yet), with static
 * loads (no imbalance builds up), with a growing corner, and on a tiny
 * problem, it prints numbers or "n/a (why)".
 *
 * Exit 0 only if every check passed on every rank.
 */
/* strndup is POSIX. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zoltan.h>

#include "ulba_grid.h"

#define CHECK GRID_CHECK
#define SIDE  40 /* the grid of the debug-line runs is SIDE x SIDE */

/* The parts of one tiny balance: every object in [0, P), no part twice. */
static void check_own_parts(const grid_app *a, const int *part, int P, const char *what)
{
  int *count = calloc((size_t)P + 1, sizeof *count), *all = calloc((size_t)P + 1, sizeof *all);
  for (int i = 0; i < a->n; i++) {
    CHECK(part[i] >= 0 && part[i] < P, "%s: GID %u in part %d of %d", what, (unsigned)a->o[i].gid,
          part[i], P);
    if (part[i] >= 0 && part[i] < P) count[part[i]]++;
  }
  MPI_Allreduce(count, all, P, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int p = 0; p < P; p++) CHECK(all[p] <= 1, "%s: part %d holds %d objects", what, p, all[p]);
  free(count);
  free(all);
}

/* One tiny problem of `total` objects and P parts (0 = one per rank). */
static void run_tiny(int total, int P, int rank, int size)
{
  grid_app a;
  struct Zoltan_Struct *zz;
  char what[64], nparts[32];
  int *p1, *p2, parts = P > 0 ? P : size;
  snprintf(what, sizeof what, "%d objects, %d parts", total, parts);
  grid_make(&a, rank, size, total, 8);
  zz = grid_zz(&a, "ULBA");
  if (P > 0) {
    snprintf(nparts, sizeof nparts, "%d", P);
    Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", nparts);
  }
  p1 = malloc(((size_t)a.n + 1) * sizeof *p1);
  p2 = malloc(((size_t)a.n + 1) * sizeof *p2);
  /* Twice: the second call has a load history. */
  CHECK(grid_parts_of(zz, &a, p1) == ZOLTAN_OK, "%s: the first balance failed", what);
  CHECK(grid_parts_of(zz, &a, p2) == ZOLTAN_OK, "%s: the second balance failed", what);
  check_own_parts(&a, p1, parts, what);
  for (int i = 0; i < a.n; i++) {
    CHECK(p1[i] == p2[i], "%s: GID %u moved from part %d to %d with nothing changed", what,
          (unsigned)a.o[i].gid, p1[i], p2[i]);
    /* With one part per rank an object is in its rank's part, and stays. */
    if (P == 0)
      CHECK(p1[i] == rank, "%s: GID %u left part %d for %d", what, (unsigned)a.o[i].gid, rank,
            p1[i]);
  }
  /* The answer migrates as any other. */
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  CHECK(grid_partition(zz) == ZOLTAN_OK, "%s: the migrating balance failed", what);
  grid_compact(&a);
  grid_check_conservation(&a, total, (double)total);
  Zoltan_Destroy(&zz);
  free(p1);
  free(p2);
  free(a.o);
}

static void run_tiny_all(int rank, int size)
{
  int more = size + 2;
  run_tiny(0, 0, rank, size);
  if (size >= 2) run_tiny(1, 0, rank, size);
  if (size >= 3) run_tiny(size - 1, 0, rank, size);
  run_tiny(0, more, rank, size);
  run_tiny(1, more, rank, size);
  run_tiny(more - 1, more, rank, size);
}

/* Whether a line says NaN or infinity in any spelling printf uses. */
static int has_nan_or_inf(const char *line, size_t len)
{
  char low[1024];
  size_t n = len < sizeof low - 1 ? len : sizeof low - 1;
  for (size_t k = 0; k < n; k++) low[k] = (char)tolower((unsigned char)line[k]);
  low[n] = '\0';
  return strstr(low, "nan") != NULL || strstr(low, "inf") != NULL;
}

/* Check the ULBA lines of captured text: none says NaN or infinity, the
 * k-th contains expect[k] (NULL: anything); returns the number of lines. */
static int check_lines(const char *text, const char *const *expect, int nexpect)
{
  int k = 0;
  for (const char *l = strstr(text, "ZOLTAN ULBA:"); l != NULL; l = strstr(l + 1, "ZOLTAN ULBA:")) {
    const char *end = strchr(l, '\n');
    size_t len = end ? (size_t)(end - l) : strlen(l);
    CHECK(!has_nan_or_inf(l, len), "model line %d names a NaN or an infinity: %.*s", k, (int)len,
          l);
    if (k < nexpect && expect[k] != NULL) {
      char *line = strndup(l, len);
      CHECK(strstr(line, expect[k]) != NULL, "model line %d lacks '%s': %s", k, expect[k], line);
      free(line);
    }
    k++;
  }
  return k;
}

/* Balance `steps` times at DEBUG_LEVEL 1, the corner growing if `grow`,
 * and check the model lines that rank 0 prints. */
static void run_lines(int steps, int grow, int total, const char *const *expect, int rank, int size)
{
  grid_app a;
  struct Zoltan_Struct *zz;
  grid_capture cap;
  char *text = NULL;
  int lines;
  grid_make(&a, rank, size, total, SIDE);
  zz = grid_zz(&a, "ULBA");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "1");
  if (capture_begin(&cap, 1) != 0) return;
  for (int step = 0; step < steps; step++) {
    CHECK(grid_partition(zz) == ZOLTAN_OK, "step %d failed", step);
    grid_compact(&a);
    for (int i = 0; grow && i < a.n; i++)
      if (a.o[i].grows) a.o[i].w += 0.25;
  }
  text = capture_end(&cap);
  if (rank == 0) {
    CHECK(text != NULL, "nothing captured");
    lines = text ? check_lines(text, expect, steps) : 0;
    CHECK(lines == steps, "%d model lines for %d balances", lines, steps);
  }
  free(text);
  Zoltan_Destroy(&zz);
  free(a.o);
}

static void run_debug_lines(int rank, int size)
{
  static const char *const first[] = {"n/a (no growth measured yet)", NULL, NULL};
  static const char *const still[] = {"no growth measured yet", NULL, NULL};
  static const char *const tiny[] = {"n/a (fewer objects than parts"};
  /* A single part has no model at all; more parts with static loads build
   * no imbalance. */
  const char *again = size == 1 ? "n/a (a single part)" : "n/a (no part grows faster";
  const char *const statics[] = {still[0], again, again};
  run_lines(3, 1, SIDE * SIDE, first, rank, size);
  run_lines(3, 0, SIDE * SIDE, statics, rank, size);
  if (size >= 2) run_lines(1, 0, 1, tiny, rank, size);
}

int main(int argc, char **argv)
{
  int rank, size;
  grid_begin(&argc, &argv, &rank, &size);
  if (argc >= 2 && strcmp(argv[1], "tiny") == 0) {
    run_tiny_all(rank, size);
  } else if (argc >= 2 && strcmp(argv[1], "debugline") == 0) {
    run_debug_lines(rank, size);
  } else {
    if (rank == 0) fprintf(stderr, "usage: %s tiny | debugline\n", argv[0]);
    grid_fails++;
  }
  return grid_end(argc >= 2 ? argv[1] : "?");
}
