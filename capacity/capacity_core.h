/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CAPACITY_CORE_H
#define CAPACITY_CORE_H

/*
 * The capacity model's arithmetic on plain arrays: no MPI, no Zoltan.
 *
 * A rank's capacity is its relative speed: how much work it does per second
 * compared with the others (Watts, Rieffel and Taylor).  The
 * plugin layer (zoltan_plugins/zp_capacity.c) gathers one capacity per rank
 * from a file, a parameter, a benchmark or measurements, and uses these
 * functions to read files, smooth measurements and turn the capacities into
 * part sizes.  Every function is local and deterministic.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define CAPACITY_OK     0    /* done */
#define CAPACITY_WARN   1    /* done; msg holds a warning */
#define CAPACITY_EINVAL (-1) /* bad input; msg says which and where */
#define CAPACITY_ENOMEM (-2) /* out of memory */

/*
 * capacity_file_lookup - this rank's speed from the text of a capacity file.
 * Format, one entry per line ('#' starts a comment, blank lines are
 * ignored):
 *     KEY SPEED [MEMORY]
 * where KEY is a rank number (decimal digits), a host name as
 * MPI_Get_processor_name gives it, or '*' for every rank not otherwise
 * named, SPEED is a finite number > 0 (relative: only ratios matter) and
 * the optional MEMORY is a finite number > 0: how much of the memory
 * weight the rank can hold (absolute, in the application's units).
 * A rank line wins over a host line, which wins over '*'.
 * Inputs: text (NUL-terminated), fname (for messages), rank and nranks,
 * host (this rank's host name), hosts (the nranks host names of the job, or
 * NULL to skip the unknown-host check).
 * Output: *speed, and *memory (when memory != NULL): the MEMORY field of
 * the line that applies, -1 when that line has none.
 * Returns CAPACITY_OK; CAPACITY_WARN with msg when a line names a rank
 * >= nranks or a host no rank runs on (a file written for a larger machine;
 * the line is ignored); CAPACITY_EINVAL with msg "FILE:LINE: ..." naming
 * the value for a malformed line (missing, non-numeric, zero, negative,
 * NaN or infinite speed; a bad rank number; extra fields; a key listed
 * twice) or when no line applies to this rank.  Every rank reading the same
 * text gets the same syntax errors, in the same words.
 */
int capacity_file_lookup(const char *text, const char *fname, int rank, int nranks,
                         const char *host, const char *const *hosts, double *speed, double *memory,
                         char *msg, size_t msg_cap);

/*
 * capacity_parse_loadavg - the first number of a load-average text (the
 * format of /proc/loadavg: "0.52 0.58 0.59 1/389 12345").
 * Returns CAPACITY_OK with *avg (finite, >= 0), or CAPACITY_EINVAL with msg
 * naming what was found instead.
 */
int capacity_parse_loadavg(const char *text, double *avg, char *msg, size_t msg_cap);

/*
 * capacity_loadavg_factor - the share of a host that one of our ranks gets
 * when `sharing` of our ranks run on it and its load average is avg (which
 * counts our own ranks too): 1 / (1 + e), where e = max(0, avg - sharing) /
 * sharing is the external load per rank of ours, Stellner and Trinitis'
 * (1 + avenrun_i) with the application's own processes left out.  sharing
 * < 1 is taken as 1.  The result is in (0, 1].
 */
double capacity_loadavg_factor(double avg, int sharing);

/*
 * capacity_smooth - the next value of a measured capacity: the exponential
 * average weight * sample + (1 - weight) * prev, kept at prev when it
 * differs from prev by less than the relative deadband (so that noise does
 * not move work back and forth).  prev <= 0 means "none yet": the sample is
 * returned.  weight in (0, 1], deadband in [0, 1).
 */
double capacity_smooth(double prev, double sample, double weight, double deadband);

/*
 * capacity_part_weights - the capacity behind each part.  Part p lives on
 * rank pdist[p] when single_proc is 1 (several parts may share a rank, which
 * then splits its capacity equally between them), or on ranks pdist[p] ..
 * pdist[p+1]-1 when single_proc is 0 (a part spread over several ranks sums
 * their capacities).  pdist == NULL means part p is on rank p (nparts ==
 * nranks).  rank_cap has nranks entries > 0; part_cap receives nparts.
 * A part on no rank gets 0.  Returns CAPACITY_OK, CAPACITY_EINVAL on
 * inconsistent arguments, CAPACITY_ENOMEM.
 */
int capacity_part_weights(int nranks, const double *rank_cap, int nparts, const int *pdist,
                          int single_proc, double *part_cap);

/*
 * capacity_compose - multiply each part's sizes (nparts rows of wdim
 * columns, each column summing to 1) by the part's capacity, then
 * normalise each column to sum 1 again: the application's part sizes and
 * the capacities compose as a product.  A column whose product sums to zero
 * (every sized part has zero capacity) is left as it was and
 * CAPACITY_WARN is returned.
 */
int capacity_compose(int nparts, int wdim, const double *part_cap, double *sizes);

/*
 * capacity_memory_bound - cap part sizes by memory limits (water filling).
 * sizes holds nparts rows of wdim columns, each column summing to 1; limit
 * holds each part's memory capacity (INFINITY for none, >= 0 otherwise) and
 * total the total memory weight of all objects (> 0).  Assuming a part's
 * memory follows its share of the load, a part of size x needs x * total
 * of memory, so each column becomes x_p = min(limit_p / total, lambda *
 * size_p) with lambda chosen so that the column still sums to 1: the parts
 * with room keep their proportions and take what the full ones cannot.
 * Parts of size 0 stay empty.  When even the limits of all parts of
 * positive size cannot hold total, the column becomes limit_p / (their sum)
 * (every such part equally over its limit) and CAPACITY_WARN is returned.
 * Returns CAPACITY_OK, CAPACITY_WARN, CAPACITY_EINVAL (bad arguments),
 * CAPACITY_ENOMEM.
 */
int capacity_memory_bound(int nparts, int wdim, const double *limit, double total, double *sizes);

/*
 * capacity_memory_repair - move objects out of parts whose memory exceeds
 * their limit.  n objects with wdim weights each (w, row-major); mem_dim is
 * the column that is memory, load_dim the one balanced (their part loads
 * guide where objects go); part[n] is the assignment, changed in place;
 * sizes (nparts rows of wdim) are the target fractions and limit[nparts]
 * the memory capacities (INFINITY for none).  Every part over its limit,
 * in part order, sheds its objects from the largest memory down, skipping
 * those larger than what is still to shed, then, if it is still over, the
 * smallest ones that remain, one at a time: it never sheds more than one
 * object beyond its excess.  Each object goes to the part with room for it
 * whose load, with the object, is smallest relative to its size.  Local and
 * deterministic; *moved receives the number of objects moved.
 * Returns CAPACITY_OK when every part ends within its limit, CAPACITY_WARN
 * when some part cannot be brought within it (no part has room), with
 * *worst (when not NULL) the part furthest over its limit, relative to it;
 * CAPACITY_EINVAL on bad arguments, CAPACITY_ENOMEM.
 */
int capacity_memory_repair(size_t n, int wdim, const double *w, int mem_dim, int load_dim,
                           int nparts, const double *sizes, const double *limit, int *part,
                           size_t *moved, int *worst);

/*
 * capacity_kernel - the benchmark's unit of work: a fixed mix of
 * floating-point arithmetic and memory traffic over a 32 KiB buffer,
 * repeated `rounds` times.  Returns a checksum (so that the compiler keeps
 * the work).  The time per round is what the benchmark measures.
 */
double capacity_kernel(long rounds);

#ifdef __cplusplus
}
#endif

#endif /* CAPACITY_CORE_H */
