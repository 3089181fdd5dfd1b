/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ULBA_GRID_H
#define ULBA_GRID_H

/*
 * The application of the ULBA MPI tests: objects on a square grid of the
 * unit square, with weights and coordinates, the Zoltan callbacks that list,
 * locate, pack and unpack them, and the checks every test runs after a
 * balance.  Test code only.
 */

#include <stdio.h>

#include <mpi.h>
#include <zoltan.h>

/* One application object; it travels whole in a migration. */
typedef struct grid_obj {
  ZOLTAN_ID_TYPE gid; /* global ID, 1..total */
  double x, y;        /* coordinates */
  double w;           /* weight */
  int grows;          /* 1 for the objects whose weight grows */
  int part;           /* part the application believes it is in (reported
                         only after grid_track_parts) */
  int gone;           /* 1 after it was packed for another rank */
} grid_obj;

/* The local objects of one rank. */
typedef struct grid_app {
  grid_obj *o; /* objects, in local-ID order */
  int n, cap;  /* used, allocated */
} grid_app;

/* Failed checks on this rank (see GRID_CHECK). */
extern int grid_fails;

/* Count a failed check and say where and why on stderr. */
#define GRID_CHECK(cond, ...)                                                                      \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      int r_;                                                                                      \
      MPI_Comm_rank(MPI_COMM_WORLD, &r_);                                                          \
      fprintf(stderr, "[%d] FAIL %s:%d: ", r_, __FILE__, __LINE__);                                \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      grid_fails++;                                                                                \
    }                                                                                              \
  } while (0)

/* MPI_Init and Zoltan_Initialize (aborting when Zoltan cannot start), and
 * this rank and the size of MPI_COMM_WORLD. */
void grid_begin(int *argc, char ***argv, int *rank, int *size);
/* Sum the failed checks over the ranks, print them on rank 0 after label,
 * MPI_Finalize; returns the exit status (0 when no check failed). */
int grid_end(const char *label);

/* The objects 1..total of a side x side grid (object g at column (g-1) %
 * side, row (g-1) / side, weight 1), rank r holding the r-th of size equal
 * ranges of GIDs; the same global problem at every rank count.  The 4 x 4
 * block at the origin corner is marked as growing. */
void grid_make(grid_app *a, int rank, int size, int total, int side);
/* Move every object by up to amount / 2 in x and y, by a hash of its GID (the
 * same at every rank count), so that no two objects share a coordinate:
 * Zoltan's RCB splits objects that lie on a cut between its two sides,
 * where a point query can only answer one side. */
void grid_jitter(grid_app *a, double amount);
/* A struct on MPI_COMM_WORLD with LB_METHOD = method, one weight, 2-D
 * geometry, IMBALANCE_TOL 1.01, RETURN_LISTS=ALL and the callbacks of a. */
struct Zoltan_Struct *grid_zz(grid_app *a, const char *method);
/* Register a PART_MULTI callback that reports each object's part field, for
 * tests with several parts per rank (otherwise the layer takes the rank). */
void grid_track_parts(struct Zoltan_Struct *zz, grid_app *a);
/* Zoltan_LB_Partition, lists freed; returns its code. */
int grid_partition(struct Zoltan_Struct *zz);
/* The new part of every local object, by position, without migrating
 * (sets RETURN_LISTS=PARTS). */
int grid_parts_of(struct Zoltan_Struct *zz, const grid_app *a, int *part);
/* Drop the objects packed for other ranks by the last migration. */
void grid_compact(grid_app *a);
/* Every GID 1..total exactly once on the communicator, weight conserved. */
void grid_check_conservation(const grid_app *a, int total, double total_w);

/* Capture what this rank writes to fd (1 or 2) until capture_end, which
 * restores it, echoes the text and returns it (malloc'd, NUL-terminated;
 * NULL when capturing failed). */
typedef struct grid_capture {
  int fd;    /* the captured descriptor */
  int saved; /* its duplicate, restored at the end */
  FILE *f;   /* where the text goes meanwhile */
} grid_capture;
int capture_begin(grid_capture *c, int fd);
char *capture_end(grid_capture *c);

#endif
