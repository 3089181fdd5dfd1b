# shellcheck shell=sh
# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the erosion study scripts (erosion_scale.sh, erosion_reference.sh),
# sourced by them: reading the summary CSV that erosion writes per invocation.

# The median of the numbers on stdin ("nan" when there are none).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# field RUN COLUMN FILE: a column of a run's row in a summary CSV.
field() { awk -F, -v r="$1" -v c="$2" 'NR > 1 && $1 == r { print $c }' "$3"; }

# seed_median RUN COLUMN PREFIX: the median over the seeds in $seeds of a
# column of RUN's row in PREFIX<seed>_summary.csv.
# shellcheck disable=SC2154
seed_median() {
  for sd in $seeds; do field "$1" "$2" "$3${sd}_summary.csv"; done | median
}

# gain_cells PREFIX HEADROOM RUN...: the markdown cells " | +g% ..." of each
# RUN's median gain over the standard run of its seed (summary column 11),
# then " | c%": the share of HEADROOM (in %) that the best of them captures.
gain_cells() {
  prefix=$1
  headroom=$2
  shift 2
  cells=""
  best=-1
  for r in "$@"; do
    g=$(seed_median "$r" 11 "$prefix")
    cells="$cells | $(awk -v g="$g" 'BEGIN { printf "%+.1f%%", 100 * g }')"
    best=$(awk -v a="$best" -v g="$g" 'BEGIN { print (g > a ? g : a) }')
  done
  cap=$(awk -v g="$best" -v h="$headroom" 'BEGIN { if (h > 0 && g >= 0) printf "%.0f%%", 100 * 100 * g / h; else if (h > 0) print "0%"; else print "-" }')
  echo "$cells | $cap"
}
