#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Where the headroom of the erosion benchmark goes (docs/erosion.md): for
# each P and N of an erosion_scale.sh output folder (seed 1), the standard
# method's distance to the lower bound split into what no method can win
# back (the imbalance before the first balance, when no method has a model
# yet, and one balance, which every method needs) and the rest, and the
# best ULBA gain as a share of each.  All times are MODELLED.
# Usage: erosion_headroom.sh DIR [SEED]
set -eu
dir=${1:?usage: erosion_headroom.sh DIR [SEED]}
sd=${2:-1}
echo "| P | N | std+ZHAI (s) | headroom | before 1st balance | one balance | reachable | best ULBA gain | of headroom | of reachable |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for sum in "$dir"/P*_N*_seed${sd}_summary.csv; do
  tag=$(basename "$sum" _summary.csv)
  p=$(echo "$tag" | sed 's/^P\([0-9]*\)_.*/\1/')
  n=$(echo "$tag" | sed 's/^P[0-9]*_N\([0-9]*\)_.*/\1/')
  std=$(awk -F, 'NR > 1 && $1 == "std_zhai" { print $6 }' "$sum")
  low=$(awk -F, 'NR > 1 && $1 == "std_zhai" { print $17 }' "$sum")
  best=$(awk -F, 'NR > 1 && $1 ~ /^ulba/ { if ($11 > b) b = $11 } END { print b + 0 }' "$sum")
  # Imbalance before the first balance and the cost of that balance, from
  # the standard run's rows (model_max_s - model_avg_s per step).
  set -- $(awk -F, '!/^#/ && $1 != "step" { if (!seen && $2 > 0) { seen = 1; c = $10 } if (!seen) pre += $7 - $8 } END { print pre + 0, c + 0 }' "$dir/${tag}_std_zhai.csv")
  pre=$1 c=$2
  awk -v p="$p" -v n="$n" -v s="$std" -v l="$low" -v pre="$pre" -v c="$c" -v g="$best" 'BEGIN {
    h = s - l; r = h - pre - c; gain = g * s
    ofh = (h > 0) ? 100 * gain / h : 0
    ofr = (r > 0) ? sprintf("%.0f%%", 100 * gain / r) : "-"
    printf "| %d | %d | %.4f | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %+.1f%% | %.0f%% | %s |\n", p, n, s, 100 * h / s, 100 * pre / s, 100 * c / s, 100 * r / s, 100 * g, ofh, ofr }'
done | sort -t'|' -k2,2n -k3,3n
