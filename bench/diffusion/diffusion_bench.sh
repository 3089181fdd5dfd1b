#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The figures of docs/diffusion.md in one run: bench_diffusion on the
# hotspot at 4, 8 and 16 ranks and on lb_test's loads at 8, with capacities
# 1:2:4:8 at 4 (real MPI ranks, oversubscribed on a small machine), then
# the virtual-rank simulator from 10^3 to 10^5 ranks.  Every figure is a
# count or a modelled load, so the tables do not depend on the machine.
#
# usage: sh diffusion_bench.sh BENCH_DIFFUSION DIFFUSION_SIM [OUT_DIR]
# (MPIEXEC and MPIEXEC_FLAGS may be set)
set -eu
bench=$1
sim=$2
out=${3:-.}
mpiexec=${MPIEXEC:-mpiexec}
flags=${MPIEXEC_FLAGS---oversubscribe}
mkdir -p "$out"
for np in 4 8 16; do
  # shellcheck disable=SC2086
  $mpiexec $flags -n "$np" "$bench" --side 128 --check --csv "$out/diffusion_hotspot_$np.csv"
done
# shellcheck disable=SC2086
$mpiexec $flags -n 8 "$bench" --side 128 --workload lbtest --check --csv "$out/diffusion_lbtest_8.csv"
# shellcheck disable=SC2086
$mpiexec $flags -n 4 "$bench" --side 128 --capacities 1,2,4,8 --check \
  --csv "$out/diffusion_capacities_4.csv"
"$sim" --check --csv "$out/diffusion_sim.csv"
