# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the erosion study scripts (erosion_scale.sh, erosion_reference.sh),
# sourced by them: reading the summary CSV that erosion writes per invocation.

# The median of the numbers on stdin ("nan" when there are none).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# field RUN COLUMN FILE: a column of a run's row in a summary CSV.
field() { awk -F, -v r="$1" -v c="$2" 'NR > 1 && $1 == r { print $c }' "$3"; }

# seed_median RUN COLUMN PREFIX: the median over the seeds in $seeds of a
# column of RUN's row in PREFIX<seed>_summary.csv.
seed_median() {
  for sd in $seeds; do field "$1" "$2" "$3${sd}_summary.csv"; done | median
}
