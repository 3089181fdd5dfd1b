#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Usage: replay.sh NP MPIEXEC [FLAGS...] -- APP LBSIM METHOD SIM_NP
# Runs the load-database application with METHOD and MEASURED weights on NP
# ranks with LB_DUMP_FILE set, then zp_lbsim on the dump on SIM_NP ranks,
# and requires the replayed assignment to be the live one, object by object.
set -eu
. "$(dirname "$0")/../common/launcher_args.sh"
app=$1 lbsim=$2 method=$3 simnp=$4
dir=$(mktemp -d "${TMPDIR:-/tmp}/zp_replay.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086
$launcher -n "$np" "$app" --method "$method" --source MEASURED --dump "$dir/run.dump" \
  --assign "$dir/live.txt" > "$dir/app.log" 2>&1 || { cat "$dir/app.log"; echo "FAIL: live run"; exit 1; }
grep -q '^ZPDUMP 1$' "$dir/run.dump" || { echo "FAIL: no dump written"; exit 1; }
# shellcheck disable=SC2086
$launcher -n "$simnp" "$lbsim" "$dir/run.dump" --methods "$method" --assign "$dir/sim.txt" \
  --csv "$dir/sim.csv" > "$dir/sim.log" 2>&1 || { cat "$dir/sim.log"; echo "FAIL: zp_lbsim"; exit 1; }
cat "$dir/sim.log"
# zp_lbsim writes "SEQ METHOD GID PART"; the application "GID PART".
awk '{ print $3, $4 }' "$dir/sim.txt" > "$dir/sim2.txt"
n=$(wc -l < "$dir/live.txt")
[ "$n" -gt 0 ] || { echo "FAIL: empty live assignment"; exit 1; }
if ! cmp -s "$dir/live.txt" "$dir/sim2.txt"; then
  echo "FAIL: the replay on $simnp ranks differs from the live run on $np ranks:"
  diff "$dir/live.txt" "$dir/sim2.txt" | head -10
  exit 1
fi
# The CSV has its header and one row.
[ "$(wc -l < "$dir/sim.csv")" -eq 2 ] || { echo "FAIL: CSV rows"; cat "$dir/sim.csv"; exit 1; }
echo "PASS: $method replayed on $simnp ranks = live on $np ranks ($n objects)"
