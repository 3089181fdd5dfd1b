#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Plots of the heterogeneous-machine benchmarks (docs/capacity.md) from the
# --steps-csv files that bench_hetero and bench_competitor wrote into DIR:
#   hetero_watts.csv        -> hetero_watts.png      Watts et al. figure 3 (10 machines)
#   hetero_watts9.csv       -> hetero_watts9.png     Watts et al. figure 4 (without the slowest)
#   hetero_stellner1.csv    -> hetero_stellner1.png  Stellner and Trinitis, one competitor (emulated)
#   hetero_stellner2.csv    -> hetero_stellner2.png  Stellner and Trinitis, two competitors (emulated)
#   competitor1.csv         -> competitor1.png       Stellner and Trinitis, one real competitor (wall time)
#   competitor2.csv         -> competitor2.png       Stellner and Trinitis, two real competitors (wall time)
# bench_hetero's times are MODELLED (time units); bench_competitor's are
# measured wall times of this machine.  Missing files are skipped.
# Usage: hetero_plots.sh DIR
set -eu
dir=${1:?usage: hetero_plots.sh DIR}
command -v gnuplot >/dev/null 2>&1 || { echo "hetero_plots: gnuplot not found, no plots"; exit 0; }
cd "$dir"

# plot CSV PNG TITLE YLABEL LOGY RUN-NAMES... : one line per run (column 1),
# balances marked where the CSV has a balance column.
plot() {
  csv=$1 png=$2 title=$3 ylabel=$4 logy=$5
  shift 5
  [ -f "$csv" ] || return 0
  cmd=""
  i=0
  for name in "$@"; do
    cmd="$cmd '$csv' using (\$1 == $i ? \$2 : 1/0):3 with lines lw 2 lc $((i + 1)) title '$name',"
    i=$((i + 1))
  done
  if head -1 "$csv" | grep -q ideal; then
    cmd="$cmd '$csv' using (\$1 == 0 ? \$2 : 1/0):5 with lines dt 2 lc rgb 'black' title 'ideal (work / sum of speeds)',"
    i=0
    for name in "$@"; do
      cmd="$cmd '$csv' using (\$1 == $i && \$4 > 0 ? \$2 : 1/0):3 with points pt 9 ps 1.3 lc $((i + 1)) notitle,"
      i=$((i + 1))
    done
  fi
  gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output '$png'
set datafile separator ','
set key autotitle columnhead
set title '$title'
set xlabel 'step'
set ylabel '$ylabel'
$( [ "$logy" = 1 ] && echo 'set logscale y' )
set key top right
set grid
plot ${cmd%,}
GP
  echo "hetero_plots: $dir/$png"
}

w="no balancing" h="homogeneous LB on time" st="static capacities" dy="dynamic capacities"
plot hetero_watts.csv hetero_watts.png \
  'Watts et al. figure 3, 10 emulated machines (speeds 1-39): step time (MODELLED), triangles = balances' \
  'step time (time units, log)' 1 "$w" "$h" "$st" "$dy"
plot hetero_watts9.csv hetero_watts9.png \
  'Watts et al. figure 4, the same without the slowest: step time (MODELLED), triangles = balances' \
  'step time (time units, log)' 1 "$w" "$h" "$st" "$dy"
for c in 1 2; do
  plot hetero_stellner$c.csv hetero_stellner$c.png \
    "Stellner and Trinitis, 4 emulated machines, $c competitor(s) from step 10: step time (MODELLED)" \
    'step time (time units)' 0 "no competitor" "competitors, no balancing" "THRESHOLD + LOADAVG"
  plot competitor$c.csv competitor$c.png \
    "Stellner and Trinitis with $c real competitor process(es) on rank 0 from step 10, 2 ranks on 2 cores: WALL time" \
    'slowest rank computation per step (s)' 0 "no competitor" "competitor, no balancing" \
    "competitor, THRESHOLD + MEASURED"
done
