/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LOADDB_DUMP_H
#define LOADDB_DUMP_H

/*
 * The load dump format: what a balance saw, written by the layer when
 * LB_DUMP_FILE is set and read back by zp_lbsim to replay it through any
 * method (Bhandarkar, Brunner and Kalé's +LBDump / +LBSim).  docs/loaddb.md specifies it.
 *
 * It is text, on purpose: a dump is written once per balance by one rank
 * for the object counts a centralised method handles (up to millions), so
 * its size and speed matter less than being portable across machines and
 * endianness, readable with less and diffable; doubles are printed with 17
 * significant digits, which reads back to the same bits.  A file holds one
 * or more dumps, each from "balance" to "end":
 *
 *     ZPDUMP 1
 *     balance SEQ method NAME ranks P parts NP ngid G wdim W gdim D edim E objects N edges M
 *     tol T_1 .. T_W
 *     sizes SET S_1 .. S_(NP*W)         (part-major; SET 1 = set by the application
 *                                       or the capacity model, 0 = uniform)
 *     param NAME INDEX VALUE            (zero or more; the rest of the line is VALUE)
 *     o GID_1 .. GID_G PROC PART W_1 .. W_W C_1 .. C_D NE   (N lines, by GID)
 *     e GID_1 .. GID_G EW_1 .. EW_E     (NE lines after their object)
 *     end
 *
 * "ZPDUMP 1" opens every dump (a file may be the concatenation of dumps
 * from several runs); lines starting with '#' are comments.  This module
 * parses text already in memory and writes to a FILE: no MPI, no Zoltan.
 */

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOADDB_DUMP_VERSION   1
#define LOADDB_DUMP_NAME_MAX  64  /* longest method or parameter name */
#define LOADDB_DUMP_VALUE_MAX 256 /* longest parameter value */

/* One recorded parameter. */
typedef struct loaddb_param {
  char name[LOADDB_DUMP_NAME_MAX];   /* upper case */
  int index;                         /* vector index, -1 for a scalar */
  char value[LOADDB_DUMP_VALUE_MAX]; /* as the application set it */
} loaddb_param;

/* One balance: the whole problem in global-ID order. */
typedef struct loaddb_dump {
  long seq;                          /* balance number in its run, from 1 */
  char method[LOADDB_DUMP_NAME_MAX]; /* LB_METHOD of the live run */
  int ranks;                         /* ranks of the live run */
  int parts;                         /* number of parts */
  int ngid;                          /* entries per global ID */
  int wdim;                          /* weights per object (>= 1) */
  int gdim;                          /* coordinates per object, 0 = none */
  int edim;                          /* weights per edge, 0 = none */
  size_t nobj;                       /* objects */
  size_t nedges;                     /* edges (directed entries) */
  double *tol;                       /* wdim imbalance tolerances */
  int sizes_set;                     /* 1 when the sizes below were set */
  double *sizes;                     /* parts * wdim part sizes, part-major */
  size_t nparams;                    /* recorded parameters */
  loaddb_param *params;              /* nparams of them */
  unsigned long *gids;               /* nobj * ngid, increasing */
  int *procs;                        /* owning rank of each object */
  int *cur_part;                     /* current part (-1 = none) */
  double *wgts;                      /* nobj * wdim weights the method saw */
  double *coords;                    /* nobj * gdim, NULL when gdim == 0 */
  size_t *adj_start;                 /* nobj + 1 offsets into nbr */
  unsigned long *nbr;                /* nedges * ngid neighbour IDs */
  double *ewgts;                     /* nedges * edim, NULL when edim == 0 */
} loaddb_dump;

/* Return codes. */
#define LOADDB_DUMP_OK     1    /* a dump was read */
#define LOADDB_DUMP_END    0    /* no dump left */
#define LOADDB_DUMP_EINVAL (-1) /* malformed; msg names the line and the value */
#define LOADDB_DUMP_ENOMEM (-2) /* out of memory */

/*
 * loaddb_dump_parse - read the next dump of text[*pos .. len).
 * Output: *out (free it with loaddb_dump_free, whatever is returned);
 * *pos moves past the dump; on LOADDB_DUMP_EINVAL msg (cap bytes) names
 * the line number, what was expected and what was found.
 * Checks: the version, every count against the header, global IDs strictly
 * increasing, parts in [-1, parts), ranks in [0, ranks), weights, sizes
 * and coordinates finite (weights, sizes >= 0), tolerances >= 1,
 * neighbours that are objects of the dump.
 */
int loaddb_dump_parse(const char *text, size_t len, size_t *pos, loaddb_dump *out, char *msg,
                      size_t cap);

/* loaddb_dump_free - free what a parse allocated and zero *d. */
void loaddb_dump_free(loaddb_dump *d);

/*
 * loaddb_dump_write - append d to f in the format above (the "ZPDUMP"
 * line included).  Returns 0, or -1 when writing failed.
 */
int loaddb_dump_write(FILE *f, const loaddb_dump *d);

#ifdef __cplusplus
}
#endif

#endif /* LOADDB_DUMP_H */
