/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HIER_WORKLOAD_H
#define HIER_WORKLOAD_H

#include <stddef.h>

/*
 * hier_workload_loads - the loads of the simulators' workload (hier_sim,
 * hier_sim_scotch; diffusion_sim's): side x side ranks of K objects each,
 * object r K + i on rank r, of load 10 + 990 U^4 (U uniform, seed 2026)
 * times 1.5 at the centre of a hotspot a few ranks wide.  w holds side^2 K
 * entries.  Returns their sum.
 */
double hier_workload_loads(int side, int K, double *w);

/*
 * hier_workload_sides - the grid sides of a --sides value, a comma-separated
 * list of positive integers, into sides (at most max).  Returns their
 * count, or -1 (naming the value on stderr) when a side is not a positive
 * integer or there are more than max.
 */
int hier_workload_sides(const char *arg, int *sides, int max);

#endif
