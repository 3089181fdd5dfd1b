#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ULBA at the paper's scale (figure 4a), by simulation: P PEs as P Zoltan
# parts (--parts) on RANKS ranks, for every P and N, SEEDS seeds each; the
# standard method, ULBA + ZHAI, ULBA + ULBA policy and ULBA_ALPHA=AUTO.
# Prints a markdown row per (P, N) with the medians over the seeds: the
# standard method's modelled time, the lower bound, the headroom (standard
# minus bound, in % of the standard), each ULBA run's gain over the standard,
# and the share of the headroom the best ULBA run captures.
#
# usage: sh erosion_scale.sh EROSION_BINARY OUT_DIR
# environment: PES ("32 64 128 256"), NS ("1 2 3"), SEEDS ("1 2 3 4 5"),
#   S (256), STEPS (S), RANKS (2), MPIEXEC (mpiexec), MPIEXEC_FLAGS
#   (--oversubscribe), EXTRA (more erosion options)
set -eu
bin=$1
out=$2
pes=${PES:-32 64 128 256}
ns=${NS:-1 2 3}
seeds=${SEEDS:-1 2 3 4 5}
s=${S:-256}
steps=${STEPS:-$s}
ranks=${RANKS:-2}
mpiexec=${MPIEXEC:-mpiexec}
flags=${MPIEXEC_FLAGS---oversubscribe}
extra=${EXTRA:-}
mkdir -p "$out"
# median and field: the summary CSV's helpers.
# shellcheck source=bench/erosion/summary_fns.sh
. "$(dirname "$0")/summary_fns.sh"
echo "| P (parts as PEs) | N | std+ZHAI (s) | lower bound (s) | headroom | ULBA+ZHAI | ULBA+ULBA | ULBA AUTO | best ULBA captures |"
echo "|---|---|---|---|---|---|---|---|---|"
for p in $pes; do
  for n in $ns; do
    for sd in $seeds; do
      tag=P${p}_N${n}_seed${sd}
      [ -f "$out/${tag}_summary.csv" ] && continue
      # shellcheck disable=SC2086
      $mpiexec $flags -n "$ranks" "$bin" --parts "$p" --s "$s" --steps "$steps" --strong "$n" \
        --seed "$sd" --sweeps 1 --calib-sweeps 20 --no-measured --quiet $extra \
        --runs none,std_zhai,ulba_zhai,ulba_ulba,ulba_auto --out "$out" --tag "$tag" \
        > "$out/$tag.log" 2>&1 || {
        echo "erosion_scale.sh: P = $p, N = $n, seed $sd failed; see $out/$tag.log" >&2
        exit 1
      }
    done
    std=$(seed_median std_zhai 6 "$out/P${p}_N${n}_seed")
    low=$(seed_median std_zhai 17 "$out/P${p}_N${n}_seed")
    row=$(awk -v p="$p" -v n="$n" -v a="$std" -v b="$low" 'BEGIN { printf "| %d | %d | %.4f | %.4f", p, n, a, b }')
    head=$(awk -v a="$std" -v b="$low" 'BEGIN { printf "%.1f", 100 * (a - b) / a }')
    row="$row | ${head}%$(gain_cells "$out/P${p}_N${n}_seed" "$head" ulba_zhai ulba_ulba ulba_auto)"
    echo "$row |"
  done
done
echo
echo "(medians over seeds $seeds; s = $s, $steps steps, 1 sweep per unit with u calibrated at"
echo "20 sweeps, balance cost C calibrated per invocation; P PEs simulated as Zoltan parts on"
echo "$ranks ranks of this 2-core machine; $(date -u +%Y-%m-%d))"
