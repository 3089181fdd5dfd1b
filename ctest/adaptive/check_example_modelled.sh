#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_example_modelled.sh WORKDIR STEPS LAUNCHER... -- EXAMPLE
# Runs adaptive_trigger/example_adaptive in modelled time with ZHAI twice,
# writing a trace each time, and fails unless:
#   - both runs exit with status 0 (their own checks: every object once,
#     every counter right, C equal to the model's balance cost);
#   - the two traces are identical (no wall-clock time reaches a decision);
#   - the times in the trace are the model's: t_min <= t_avg <= t_max, the
#     average grows by exactly G/P per step whatever the partition (the hot
#     objects gain the same weight wherever they live), and between balances
#     t_max never falls and grows by at most G per step;
#   - ZHAI recomputed from the t_max column gives the traced degradation,
#     and every decision is "degradation >= C";
#   - the number of balances is at least 1 and at most STEPS / n_min, where
#     n_min is the shortest interval the fastest possible growth G allows:
#     the degradation after n steps is at most G/2 (1 + (n-1)(n-2)).
# G, C and P are read from the example's output, so that the model stays
# written in one place.
set -u
work=$1 steps=$2
shift 2
launcher=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
[ "$#" -ge 2 ] || { echo "usage: $0 WORKDIR STEPS LAUNCHER... -- EXAMPLE"; exit 2; }
shift
example=$1
rm -rf "$work" && mkdir -p "$work" || exit 1

for run in a b; do
  # shellcheck disable=SC2086
  $launcher "$example" --modelled ZHAI RCB "$steps" "$work/trace_$run.csv" > "$work/run_$run.log" 2>&1
  rc=$?
  cat "$work/run_$run.log"
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: run $run of the example exited with status $rc"
    exit 1
  fi
done
if ! cmp -s "$work/trace_a.csv" "$work/trace_b.csv"; then
  echo "FAIL: two runs of the same modelled problem made different traces:"
  diff "$work/trace_a.csv" "$work/trace_b.csv" | head -n 10
  exit 1
fi

model=$(sed -n 's/.*unit cost \([^ ]*\) s, balance cost \([^ ]*\) s, T_max grows by at most \([^ ]*\) s per step.*/\2 \3/p' "$work/run_a.log")
summary=$(sed -n 's/.* \([0-9]*\) ranks, \([0-9]*\) steps: \([0-9]*\) balances.*/\1 \2 \3/p' "$work/run_a.log")
if [ -z "$model" ] || [ -z "$summary" ]; then
  echo "FAIL: the example printed no model line or no summary line"
  exit 1
fi

# shellcheck disable=SC2086
set -- $model $summary
awk -F, -v C="$1" -v G="$2" -v P="$3" -v nsteps="$4" -v printed="$5" '
function fail(msg) { printf "FAIL: trace line %d: %s\n", NR, msg; bad = 1 }
function abs(x) { return x < 0 ? -x : x }
function median(a, b, c) { return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)) }
NR == 1 {
  for (i = 1; i <= NF; i++) col[$i] = i
  split("step since t_max t_avg t_min degradation cost decision policy", need, " ")
  for (k in need) if (!(need[k] in col)) { printf "FAIL: trace has no column %s\n", need[k]; bad = 1 }
  if (bad) exit 1
  next
}
{
  step = $col["step"]; since = $col["since"]; tmax = $col["t_max"]; tavg = $col["t_avg"]
  tmin = $col["t_min"]; deg = $col["degradation"]; cost = $col["cost"]; dec = $col["decision"]
  tol = 1e-7  # the trace prints 9 significant digits
  rows++
  if ($col["policy"] != "ZHAI") fail("policy " $col["policy"])
  if (step != rows - 1) fail("step " step ", expected " rows - 1)
  if (abs(cost - C) > 1e-9 * C) fail("cost " cost ", the model says " C)
  if (since != (rows == 1 || last_dec ? 1 : last_since + 1)) fail("since " since " after since " last_since)
  if (tmin > tavg + tol || tavg > tmax + tol) fail("t_min " tmin ", t_avg " tavg ", t_max " tmax " out of order")
  if (rows > 1 && abs(tavg - last_avg - G / P) > tol) fail("t_avg grew by " tavg - last_avg ", the model says " G / P)
  if (since > 1 && (tmax < last_max - tol || tmax > last_max + G + tol))
    fail("t_max went from " last_max " to " tmax ", the model allows growth in [0, " G "]")
  # ZHAI: reference = t_max at since 1, median of the last min(since, 3)
  # t_max since the balance (mean of two at since 2), degradation = sum of
  # (median - reference).
  if (since == 1) { ref = tmax; d = 0 }
  else if (since == 2) d += (p1 + tmax) / 2 - ref
  else d += median(p2, p1, tmax) - ref
  p2 = p1; p1 = tmax
  if (abs(d - deg) > tol) fail("degradation " deg ", recomputed from t_max " d)
  if (abs(deg - C) > tol && dec != (deg >= C ? 1 : 0))
    fail("decision " dec " with degradation " deg " and C " C)
  balances += dec
  last_dec = dec; last_since = since; last_avg = tavg; last_max = tmax
}
END {
  if (bad) exit 1
  if (rows != nsteps) { printf "FAIL: %d trace lines for %d steps\n", rows, nsteps; exit 1 }
  if (balances != printed) { printf "FAIL: %d balances in the trace, %d printed\n", balances, printed; exit 1 }
  for (nmin = 2; G / 2 * (1 + (nmin - 1) * (nmin - 2)) < C - tol; nmin++) ;
  hi = int(nsteps / nmin)
  if (balances < 1 || balances > hi) {
    printf "FAIL: %d balances, the model allows 1 to %d (no interval shorter than %d steps)\n", balances, hi, nmin
    exit 1
  }
  printf "ok: %d decisions follow ZHAI with C = %s; %d balances, within [1, %d] (intervals >= %d steps)\n", rows, C, balances, hi, nmin
}' "$work/trace_a.csv"
