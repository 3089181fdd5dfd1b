#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The ULBA paper's reference experiment (docs/erosion.md, "The reference
# experiment"): erosion --setup reference at P PEs modelled as P Zoltan
# parts (--parts) on RANKS ranks, for every P and N, SEEDS seeds each: the
# standard method and ULBA under the ZHAI trigger, ULBA_GROWTH PART (the
# paper's) and OBJECT (ours), alpha 0.3, 0.4 and AUTO.
#
# Cost model, the same for every run of a P: a work unit costs UNIT_COST
# seconds (default 6.01e-7, the reference code's sleep per unit), and a
# balance costs LB_COST seconds (default: the median CPU time of 9 balances
# of the initial mesh, measured once per P and then fixed, so that the
# seeds differ only in their erosion draws).
#
# Prints a markdown row per (P, N) with the medians over the seeds: the
# standard run's modelled time, the perfect-balance bound, the headroom
# (standard minus bound, in % of the standard), each ULBA run's gain over
# the standard run of its seed, and the share of the headroom that the best
# ULBA run captures.
#
# usage: sh erosion_reference.sh EROSION_BINARY OUT_DIR
# environment: PES ("32 64 128 256"), NS ("1 2 3"), SEEDS ("1 2 3 4 5"),
#   RANKS (2), UNIT_COST (6.01e-7), LB_COST (calibrated per P), MPIEXEC
#   (mpiexec), MPIEXEC_FLAGS (--oversubscribe), EXTRA (more erosion options,
#   e.g. "--s 128" or an ablation's "--erosion isotropic")
set -eu
bin=$1
out=$2
pes=${PES:-32 64 128 256}
ns=${NS:-1 2 3}
seeds=${SEEDS:-1 2 3 4 5}
ranks=${RANKS:-2}
unit=${UNIT_COST:-6.01e-7}
mpiexec=${MPIEXEC:-mpiexec}
flags=${MPIEXEC_FLAGS---oversubscribe}
extra=${EXTRA:-}
ulba_runs="ulba_part_a0.3 ulba_part_a0.4 ulba_part_aAUTO ulba_object_a0.3 ulba_object_a0.4 ulba_object_aAUTO"
mkdir -p "$out"
# median and field: the summary CSV's helpers.
# shellcheck source=bench/erosion/summary_fns.sh
. "$(dirname "$0")/summary_fns.sh"
echo "| P (parts as PEs) | N | balance cost (s) | std+ZHAI (s) | bound (s) | headroom | PART 0.3 | PART 0.4 | PART AUTO | OBJECT 0.3 | OBJECT 0.4 | OBJECT AUTO | best captures |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for p in $pes; do
  lb=${LB_COST:-}
  if [ -z "$lb" ]; then
    # One short invocation measures the balance cost of this P's mesh.
    # shellcheck disable=SC2086
    $mpiexec $flags -n "$ranks" "$bin" --setup reference --parts "$p" --steps 1 --runs none \
      --sweeps 1 --unit-cost "$unit" --quiet $extra --out "$out" --tag "P${p}_calibration" \
      > "$out/P${p}_calibration.log" 2>&1 || {
      echo "erosion_reference.sh: the calibration at P = $p failed; see $out/P${p}_calibration.log" >&2
      exit 1
    }
    lb=$(awk '/balance cost charged/ { print $5 }' "$out/P${p}_calibration.log")
  fi
  for n in $ns; do
    for sd in $seeds; do
      tag=P${p}_N${n}_seed${sd}
      [ -f "$out/${tag}_summary.csv" ] && continue
      # shellcheck disable=SC2086
      $mpiexec $flags -n "$ranks" "$bin" --setup reference --parts "$p" --strong "$n" \
        --seed "$sd" --sweeps 1 --unit-cost "$unit" --lb-cost "$lb" --no-measured --quiet \
        $extra --out "$out" --tag "$tag" > "$out/$tag.log" 2>&1 || {
        echo "erosion_reference.sh: P = $p, N = $n, seed $sd failed; see $out/$tag.log" >&2
        exit 1
      }
    done
    std=$(seed_median std_zhai 6 "$out/P${p}_N${n}_seed")
    low=$(seed_median std_zhai 17 "$out/P${p}_N${n}_seed")
    head=$(awk -v a="$std" -v b="$low" 'BEGIN { printf "%.1f", 100 * (a - b) / a }')
    row=$(awk -v p="$p" -v n="$n" -v c="$lb" -v a="$std" -v b="$low" -v h="$head" \
      'BEGIN { printf "| %d | %d | %.2e | %.3f | %.3f | %s%%", p, n, c, a, b, h }')
    # shellcheck disable=SC2086
    row="$row$(gain_cells "$out/P${p}_N${n}_seed" "$head" $ulba_runs)"
    echo "$row |"
  done
done
