#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench_scotch_parallel.sh BIN NP SIDE [LAUNCHER FLAGS...]
# Runs bench_scotch_parallel on both of SCOTCHLB's paths (one process per
# path, so that peak memory is each path's own) and prints the two lines and
# the ratios gathered / PT-Scotch: call time, busiest rank's memory growth,
# and the cut.
bin=$1
np=$2
side=$3
shift 3
launcher=${MPIEXEC:-mpiexec}
g=$($launcher -n "$np" "$@" "$bin" --path gathered --side "$side" --parts 16) || exit 1
p=$($launcher -n "$np" "$@" "$bin" --path ptscotch --side "$side" --parts 16) || exit 1
echo "$g"
echo "$p"
printf '%s\n%s\n' "$g" "$p" | awk '
  { for (i = 1; i < NF; i += 2) v[NR, $i] = $(i + 1) }
  END {
    rg = v[1, "rss_growth_kb_rank0"]; og = v[1, "rss_growth_kb_other_max"]
    rp = v[2, "rss_growth_kb_rank0"]; op = v[2, "rss_growth_kb_other_max"]
    bg = rg > og ? rg : og; bp = rp > op ? rp : op
    printf "ratio gathered/PT-Scotch at %s ranks, %s objects: time %.2f, busiest-rank memory growth %.2f, cut %.3f\n",
      v[1, "ranks"], v[1, "objects"], v[1, "median_s"] / v[2, "median_s"], bg / bp,
      v[1, "cut"] / v[2, "cut"]
  }'
