#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The main job: installs missing packages, builds, then balances the shipped
# 48x48 mesh (testdrivers/examples, heavy-tailed weights, a heavy corner) at
# 4 ranks with Zoltan's RCB and with our GREEDY, REFINE and GREEDYREFINE
# through the zdrive-compatible driver, and prints the balance before and
# after each run and over three rounds of a growing hot region.  It ends
# with a picture: 150 steps of a drifting load balanced by GREEDY when the
# adaptive trigger (ZHAI) says so, drawn by tools/zp-plot.
# ZP_MPI=mpich runs it on MPICH (Zoltan built from source on first use).
set -eu
cd "$(dirname "$0")/.."
src=$PWD
. scripts/mpi-select.sh
sh scripts/deps.sh
. scripts/env.sh
if [ "$zp_mpi" = mpich ]; then
  build=${BUILD_DIR:-build-mpich}
  launcher=mpiexec.mpich
else
  build=${BUILD_DIR:-build}
  launcher=mpiexec
fi
case $build in /*) ;; *) build="$PWD/$build" ;; esac
mkdir -p "$build"
zp_prepare_zoltan "$build"
# shellcheck disable=SC2086
cmake -S . -B "$build" $zp_cmake_mpi_args > /dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target zdrive example_adaptive
work=$(mktemp -d)
cp testdrivers/examples/* "$work"/
cd "$work"
flags=""
$launcher --help 2>&1 | grep -q oversubscribe && flags="--oversubscribe"
printf '\n%-14s %-22s %-22s %-10s %-10s %s\n' "LB_METHOD" "max/avg load before" "max/avg load after" "moved" "cut edges" "3 rounds of drift: max/avg after, objects moved"
for m in rcb greedy refine greedyrefine; do
  out=$($launcher $flags -n 4 "$build/testdrivers/zdrive" "zdrive.inp.$m" 2>&1) || {
    echo "$out" | tail -20; echo "demo: $m failed"; exit 1; }
  before=$(echo "$out" | sed -n 's/^DRIVER STATS (before): part imbalance (max\/avg weight) //p')
  after=$(echo "$out" | sed -n 's/^DRIVER STATS (after): part imbalance (max\/avg weight) //p')
  moved=$(echo "$out" | sed -n 's/^DRIVER STATS (after): objects migrated in the last balance //p')
  cut=$(echo "$out" | sed -n 's/^DRIVER STATS (after): cut edges (weighted) //p')
  drift=$(echo "$out" | sed -n 's/^DYNAMIC iteration [0-9]*: imbalance before [0-9.]* after \([0-9.]*\); migrated \([0-9]*\) objects.*/\1 (\2)/p' | tr '\n' ' ')
  printf '%-14s %-22s %-22s %-10s %-10s %s\n' "$(echo $m | tr a-z A-Z)" "$before" "$after" "$moved" "$cut" "$drift"
done
echo
echo "2304 objects on 4 ranks; 'moved' counts objects that changed rank. Full driver output:"
echo "  cd $work && $launcher -n 4 $build/testdrivers/zdrive zdrive.inp.greedy"

# The picture: every rank's step time with the balance steps marked.
$launcher $flags -n 4 "$build/adaptive_trigger/example_adaptive" --modelled ZHAI GREEDY 150 trace.csv > trigger.log 2>&1 || {
  tail -20 trigger.log; echo "demo: the trigger example failed"; exit 1; }
echo
sed -n 's/^example_adaptive: policy/Trigger run: policy/p' trigger.log
sh "$src/tools/zp-plot" -o "$work/trigger.png" trace.csv
