#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scotch_ablation.sh BUILD_DIR [NP]: what each of SCOTCHLB's passes earns (scotch/README.md,
# "Ablation").  Runs bench_zoltan's SCOTCHLB rows (SCOTCHLB with SCOTCHLB_COMM_COST=1,
# SCOTCHLB-REPART, SCOTCHLB-CUT2, SCOTCHLB-MATCH) on every workload at NP ranks (default 4),
# and bench_scotch --mesh (PARTITION without a price on the cut) on three meshes, once with
# every pass and once with each pass switched off (SCOTCHLB_SKIP).  Then scotch_ablation.py
# compares every row with the run that has every pass: a pass pays on an input when switching
# it off makes the cut, the moves, the modelled iteration time or max/avg of some row of that
# input at least 1% worse.  The runs' outputs stay in the current folder (ablation_*.csv,
# ablation_mesh_*.txt).  About 15 minutes at 4 ranks on 2 cores.
# As root, OpenMPI wants OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.
set -eu
[ $# -ge 1 ] || { echo "usage: scotch_ablation.sh BUILD_DIR [NP]" >&2; exit 2; }
build=$1
np=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
flags=""
mpiexec --version 2>&1 | grep -q "Open MPI\|OpenRTE" && flags="--oversubscribe"
# The passes each benchmark exercises: bench_zoltan has no row of PARTITION without a price
# on the cut (the merge after Scotch); bench_scotch --mesh has no price on the cut and no
# remap.  The meshes at IMBALANCE_TOL 1 are where Scotch leaves pieces to merge.
zoltan_passes="NONE MERGE POLISH STRATEGIES DESCENT SHED FRESH BACK ORDERS"
mesh_passes="NONE MERGE POLISH"
for p in $zoltan_passes; do
  # shellcheck disable=SC2086
  mpiexec $flags -n "$np" "$build/bench/bench_zoltan" --reps 1 --scotch-skip "$p" \
    --methods SCOTCHLB,SCOTCHLB-REPART,SCOTCHLB-CUT2,SCOTCHLB-MATCH \
    --csv "ablation_$p.csv" > "ablation_$p.log" 2>&1
  echo "bench_zoltan, $p off: done" >&2
done
for p in $mesh_passes; do
  : > "ablation_mesh_$p.txt"
  for shape in "128 16 1.05" "300 8 1.1" "64 32 1.05" "128 16 1.0" "100 7 1.0" "80 12 1.0"; do
    # shellcheck disable=SC2086
    set -- $shape
    "$build/bench/bench_scotch" --mesh "$1" --parts "$2" --tol "$3" --reps 1 --skip "$p" \
      >> "ablation_mesh_$p.txt"
  done
done
python3 "$here/scotch_ablation.py" .
