#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# degradation.sh DIR EROSION MPIEXEC ARGS...: ADAPTIVE_DEGRADATION in the erosion application
# (docs/adaptive_trigger.md).  Uniform growth (no strong rock, every column erodes alike):
# TOTAL balances at least once and IMBALANCE never, since a balance cannot remove growth that
# every PE shares.  A growing hot spot (one strong rock): IMBALANCE's first balance comes at
# TOTAL's first or at most two steps later.  Times are modelled, so the decisions repeat.
set -u
dir=$1 ero=$2
shift 2
common="--parts 16 --s 64 --steps 128 --sweeps 1 --no-measured --quiet --unit-cost 1.6e-8 --lb-cost 0.0005 --runs std_zhai"
balances() { # CASE DEGRADATION "EXTRA OPTIONS" LAUNCHER...: std_zhai's balance steps
  c=$1 d=$2 extra=$3
  shift 3
  mkdir -p "$dir/$c-$d"
  # shellcheck disable=SC2086
  "$@" "$ero" $common $extra --degradation "$d" --out "$dir/$c-$d" > "$dir/$c-$d/log" 2>&1 ||
    { cat "$dir/$c-$d/log" >&2; echo "FAIL: erosion $c $d exited non-zero" >&2; exit 1; }
  grep -v '^#' "$dir/$c-$d/erosion_std_zhai.csv" | awk -F, 'NR > 1 && $2 == 1 { printf "%s ", $1 }'
}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
ut=$(balances uniform TOTAL "--strong 0 --p-weak 0.1" "$@") || exit 1
ui=$(balances uniform IMBALANCE "--strong 0 --p-weak 0.1" "$@") || exit 1
ht=$(balances hotspot TOTAL "--strong 1" "$@") || exit 1
hi=$(balances hotspot IMBALANCE "--strong 1" "$@") || exit 1
echo "uniform growth: TOTAL balances at steps [ $ut], IMBALANCE at [ $ui]"
echo "hot spot:       TOTAL balances at steps [ $ht], IMBALANCE at [ $hi]"
[ -n "$ut" ] || { echo "FAIL: TOTAL made no balance on uniform growth, so the test shows nothing"; exit 1; }
[ -z "$ui" ] || { echo "FAIL: IMBALANCE balanced on uniform growth"; exit 1; }
set -- $ht
t1=${1:-}
set -- $hi
i1=${1:-}
[ -n "$t1" ] && [ -n "$i1" ] || { echo "FAIL: no balance on the hot spot"; exit 1; }
[ "$i1" -ge "$t1" ] && [ "$i1" -le $((t1 + 2)) ] ||
  { echo "FAIL: IMBALANCE's first balance (step $i1) is not within two steps after TOTAL's ($t1)"; exit 1; }
echo "ok"
