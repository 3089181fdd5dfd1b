#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench_path at 2 and 4 ranks (and 8, 16 with --many, oversubscribed on a
# 2-core machine: the figures say so), the CSVs, and one log-log plot of the
# time of a call against the objects per rank count (docs/benchmarks.md,
# "The cost of a call"), once with the C library's default heap and once
# with a warm one (--warm-heap).  Run from the build folder's bench/ directory:
#   sh ../../bench/bench_path.sh [--many] [--sizes 1e4,1e5,1e6] [--reps 3]
# Zoltan's PHG runs at the sizes of PHG_SIZES only (default 1e4,1e5): one
# PHG call at 10^6 objects takes about a minute on 2 cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ranks="2 4"
sizes=1e4,1e5,1e6
reps=3
while [ $# -gt 0 ]; do
  case $1 in
    --many) ranks="2 4 8 16" ;;
    --sizes) sizes=$2; shift ;;
    --reps) reps=$2; shift ;;
    *) echo "bench_path.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
phg_sizes=${PHG_SIZES:-1e4,1e5}
all="RCB,HSFC,BLOCK,GREEDY,REFINE,GREEDYREFINE,ULBA/RCB,ULBA/HSFC,ULBA/GREEDY,SCOTCHLB,SCOTCHLB-GATHER,DIFFUSION,AUTO"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpiexec=${MPIEXEC:-mpiexec}
for np in $ranks; do
  out=bench_path_np$np.csv
  : > "$out.tmp"
  "$mpiexec" --oversubscribe -n "$np" ./bench_path --sizes "$sizes" --reps "$reps" \
    --methods "$all" --csv "$out.a"
  cat "$out.a" > "$out.tmp"
  "$mpiexec" --oversubscribe -n "$np" ./bench_path --sizes "$phg_sizes" --reps "$reps" \
    --methods PHG-REPART --csv "$out.b"
  tail -n +2 "$out.b" | grep PHG >> "$out.tmp" || true
  mv "$out.tmp" "$out"
  rm -f "$out.a" "$out.b"
  # The same rows with a warm heap (bench_path --warm-heap): freed memory
  # stays mapped, so each figure is the call's work without the page faults
  # of memory the C library gave back in between (docs/benchmarks.md).
  "$mpiexec" --oversubscribe -n "$np" ./bench_path --warm-heap --sizes "$sizes" --reps "$reps" \
    --methods "$all,ULBA-ALPHA0/RCB" --csv "bench_path_np${np}_warm.csv"
  if command -v gnuplot >/dev/null 2>&1; then
    gnuplot -e "csv='$out'; out='path_np$np.png'; col=5" "$here/plot_path.gp"
    gnuplot -e "csv='$out'; out='path_first_np$np.png'; col=4" "$here/plot_path.gp"
    gnuplot -e "csv='bench_path_np${np}_warm.csv'; out='path_warm_np$np.png'; col=5; tag=', warm heap'" \
      "$here/plot_path.gp"
  fi
done
