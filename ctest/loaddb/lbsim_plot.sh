#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Usage: lbsim_plot.sh NP MPIEXEC [FLAGS...] -- APP LBSIM ZP_PLOT
# A live run that balances several times writes a dump sequence; zp_lbsim
# replays every balance through three methods into CSV (one row per
# balance and method); zp-plot draws it.
set -eu
. "$(dirname "$0")/../common/launcher_args.sh"
app=$1 lbsim=$2 plot=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/zp_lbsim_plot.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086
$launcher -n "$np" "$app" --method GREEDY --source MEASURED --balances 3 --dump "$dir/run.dump" \
  > "$dir/app.log" 2>&1 || { cat "$dir/app.log"; echo "FAIL: live run"; exit 1; }
dumps=$(grep -c '^ZPDUMP 1$' "$dir/run.dump")
[ "$dumps" -ge 2 ] || { echo "FAIL: $dumps dumps, expected a sequence"; exit 1; }
# shellcheck disable=SC2086
$launcher -n "$np" "$lbsim" "$dir/run.dump" --methods GREEDY,RCB,AUTO --csv "$dir/sim.csv" \
  > "$dir/sim.log" 2>&1 || { cat "$dir/sim.log"; echo "FAIL: zp_lbsim"; exit 1; }
rows=$(($(wc -l < "$dir/sim.csv") - 1))
[ "$rows" -eq $((3 * dumps)) ] || { cat "$dir/sim.csv"; echo "FAIL: $rows rows for $dumps dumps"; exit 1; }
if ! command -v gnuplot > /dev/null 2>&1; then
  echo "FAIL: gnuplot is missing (scripts/deps.sh installs gnuplot-nox)"
  exit 1
fi
sh "$plot" -o "$dir/sim.svg" "$dir/sim.csv" > "$dir/plot.log" 2>&1 || { cat "$dir/plot.log"; exit 1; }
grep -q '<svg' "$dir/sim.svg" || { echo "FAIL: no SVG"; exit 1; }
echo "PASS: $dumps balances replayed through 3 methods and drawn"
