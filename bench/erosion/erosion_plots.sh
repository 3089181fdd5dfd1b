#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Plots of the erosion benchmark (docs/erosion.md) from the CSV files that
# `erosion` wrote into DIR with tags P<ranks>_N<strong>.  All times plotted
# are MODELLED times (work units x calibrated cost per unit + balance cost).
#   erosion_usage_P<r>.png    average PE usage per iteration, balances marked
#                             (the paper's figure 4b), N = 1
#   erosion_methods_P<r>.png  total modelled time per method, N = 1, 2, 3
#   erosion_alpha.png         modelled time vs ULBA_ALPHA (figure 5), N = 1,
#                             relative to standard + ZHAI of the same run set
# Usage: erosion_plots.sh DIR   (EROSION_RANKS="16 32" selects rank counts)
set -eu
dir=${1:?usage: erosion_plots.sh DIR}
ranks=$(echo "${EROSION_RANKS:-16 32}" | tr ';"' '  ')
command -v gnuplot >/dev/null 2>&1 || { echo "erosion_plots: gnuplot not found, no plots"; exit 0; }
cd "$dir"

# The column of a field in a CSV header (the first line not starting with #).
col() { grep -v '^#' "$1" | head -1 | tr ',' '\n' | grep -n "^$2\$" | cut -d: -f1; }

for r in $ranks; do
  base=P${r}_N1
  [ -f "${base}_std_zhai.csv" ] || continue
  cu=$(col "${base}_std_zhai.csv" usage_model)
  cl=$(col "${base}_std_zhai.csv" lb)
  plot=""
  y=0.42
  c=1
  for run in std_zhai ulba_zhai ulba_ulba ulba_auto; do
    f=${base}_${run}.csv
    [ -f "$f" ] || continue
    plot="$plot '$f' using 1:$cu with lines lw 2 lc $c title '$run',"
    # Balance events as a row of marks under the curves, one row per run,
    # in the colour of its curve.
    plot="$plot '$f' using 1:(\$$cl > 0 ? $y : 1/0) with points pt 9 ps 1.4 lc $c notitle,"
    y=$(awk -v y="$y" 'BEGIN { print y + 0.03 }')
    c=$((c + 1))
  done
  gnuplot <<EOF
set terminal pngcairo size 900,500 noenhanced
set output 'erosion_usage_P$r.png'
set datafile separator ','
set title 'Erosion, $r ranks, 1 strong rock: average PE usage (modelled step time avg/max); triangles = balances'
set xlabel 'iteration'
set ylabel 'average PE usage'
set yrange [0.4:1.02]
set key bottom left
set grid
plot ${plot%,}
EOF
done

# Total modelled time per method, grouped by number of strong rocks (the N
# that have a summary file; the paper-size set has N = 1 only).
for r in $ranks; do
  out=methods_P$r.dat
  : > "$out"
  cols=""
  for n in 1 2 3; do
    [ -f "P${r}_N${n}_summary.csv" ] && cols="$cols $n"
  done
  [ -n "$cols" ] || continue
  for run in none periodic std_zhai ulba_zhai ulba_ulba ulba_auto; do
    line="$run"
    for n in $cols; do
      v=$(awk -F, -v k="$run" '$1 == k { print $6 }' "P${r}_N${n}_summary.csv")
      line="$line ${v:-NaN}"
    done
    echo "$line" >> "$out"
  done
  plot=""
  k=2
  for n in $cols; do
    if [ "$k" = 2 ]; then plot="'$out' using $k:xtic(1) title 'N = $n strong rock(s)'"
    else plot="$plot, '' using $k title 'N = $n'"; fi
    k=$((k + 1))
  done
  gnuplot <<EOF
set terminal pngcairo size 900,500 noenhanced
set output 'erosion_methods_P$r.png'
set title "Erosion, $r ranks: total MODELLED time per method\n(each N is its own invocation with its own calibration of u and C)"
set ylabel 'modelled time (s)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key outside below horizontal
set grid ytics
set yrange [0:*]
plot $plot
EOF
done

# Modelled time against alpha, relative to standard + ZHAI.
plot=""
for r in $ranks; do
  s=P${r}_N1_summary.csv
  [ -f "$s" ] || continue
  awk -F, 'NR > 1 && $1 ~ /^sweep_a/ { print $4, $6 } $1 == "std_zhai" { print "# std", $6 }
           $1 == "ulba_auto" { print "# auto", $6 }' "$s" > alpha_P$r.dat
  std=$(awk '$2 == "std" { print $3 }' alpha_P$r.dat)
  auto=$(awk '$2 == "auto" { print $3 }' alpha_P$r.dat)
  [ -n "$std" ] || continue
  plot="$plot 'alpha_P$r.dat' using 1:(\$2/$std) with linespoints lw 2 title 'ULBA + ULBA policy, $r ranks',"
  [ -n "$auto" ] && plot="$plot ($auto/$std) with lines dt 2 title 'ULBA_ALPHA=AUTO, $r ranks',"
done
if [ -n "$plot" ]; then
  gnuplot <<EOF
set terminal pngcairo size 900,500 noenhanced
set output 'erosion_alpha.png'
set title 'Erosion, 1 strong rock: MODELLED time vs alpha, relative to standard + ZHAI (1 = same)'
set xlabel 'ULBA_ALPHA'
set ylabel 'modelled time / (standard + ZHAI)'
set xrange [-0.02:0.92]
set key outside below horizontal
set grid
plot ${plot%,}, 1 with lines lc 'black' dt 3 title 'standard + ZHAI'
EOF
fi
ls -1 "$dir"/erosion_*.png 2>/dev/null || true
