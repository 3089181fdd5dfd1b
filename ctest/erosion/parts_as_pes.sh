#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Usage: parts_as_pes.sh P RANKS MPIEXEC [FLAGS...] -- EROSION OUT [ARGS...]
# Parts as PEs (--parts, docs/erosion.md): the erosion application with P
# PEs modelled as P Zoltan parts on RANKS ranks gives the same modelled
# figures as one rank per PE: every per-step row of every run (work units of
# every PE, balances, alpha, modelled times and usage) and the summary (with
# the final cell state), apart from the columns that name the ranks.
set -eu
pes=$1
ranks=$2
shift 2
# launcher_args.sh reads NP first; the rank counts are given per run below.
set -- 0 "$@"
. "$(dirname "$0")/../common/launcher_args.sh"
app=$1
out=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC2086
$launcher -n "$pes" "$app" "$@" --out "$out" --tag pe > "$out/pe.log" 2>&1 ||
  { cat "$out/pe.log"; fail "$pes ranks, one PE each"; }
# shellcheck disable=SC2086
$launcher -n "$ranks" "$app" "$@" --parts "$pes" --out "$out" --tag parts > "$out/parts.log" 2>&1 ||
  { cat "$out/parts.log"; fail "$ranks ranks, --parts $pes"; }
grep -q "P=$pes PEs as Zoltan parts" "$out/parts.log" || fail "no parts line"
n=0
for f in "$out"/pe_*.csv; do
  run=${f#"$out"/pe_}
  [ "$run" = summary.csv ] && continue
  n=$((n + 1))
  # The first line names the parameters, the second the columns (units_rK
  # against units_pK); the rows must be equal.
  tail -n +3 "$f" > "$out/a"
  tail -n +3 "$out/parts_$run" > "$out/b"
  cmp -s "$out/a" "$out/b" || { diff "$out/a" "$out/b" | head; fail "run ${run%.csv} differs"; }
done
[ "$n" -ge 3 ] || fail "only $n runs compared"
# The summary without its last column (the rank count).
sed 's/,[^,]*$//' "$out/pe_summary.csv" > "$out/a"
sed 's/,[^,]*$//' "$out/parts_summary.csv" > "$out/b"
cmp -s "$out/a" "$out/b" || { diff "$out/a" "$out/b"; fail "the summaries differ"; }
echo "PASS: $pes PEs as parts on $ranks ranks = $pes ranks ($n runs)"
