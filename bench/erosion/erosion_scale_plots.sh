#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Plots of an erosion_scale.sh folder (docs/erosion.md, the paper's figure
# 4a at 32-256 PEs): for each N, the MODELLED time of every method and the
# lower bound against P (PEs simulated as Zoltan parts), seed SEED.
#   erosion_scale_N<n>.png
# Usage: erosion_scale_plots.sh DIR [SEED] [TITLE]
set -eu
dir=${1:?usage: erosion_scale_plots.sh DIR [SEED] [TITLE]}
sd=${2:-1}
title=${3:-}
command -v gnuplot >/dev/null 2>&1 || { echo "erosion_scale_plots: gnuplot not found, no plots"; exit 0; }
cd "$dir"
for n in 1 2 3; do
  out=scale_N$n.dat
  : > "$out"
  for p in 32 64 128 256; do
    s=P${p}_N${n}_seed${sd}_summary.csv
    [ -f "$s" ] || continue
    awk -F, -v p="$p" '$1 == "std_zhai" { std = $6; low = $17 } $1 == "ulba_zhai" { uz = $6 }
         $1 == "ulba_ulba" { uu = $6 } $1 == "ulba_auto" { ua = $6 }
         END { print p, std, uz, uu, ua, low }' "$s" >> "$out"
  done
  [ -s "$out" ] || continue
  gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output 'erosion_scale_N$n.png'
set title "Erosion, $n strong rock(s), s = 256: MODELLED time vs P\\n(P PEs simulated as Zoltan parts on 2 ranks$title)"
set xlabel 'P (PEs)'
set ylabel 'modelled time (s)'
set logscale x 2
set xtics (32, 64, 128, 256)
set xrange [28:290]
set key outside below horizontal
set grid
plot '$out' using 1:2 with linespoints lw 2 title 'standard + ZHAI', \
     '' using 1:3 with linespoints lw 2 title 'ULBA + ZHAI', \
     '' using 1:4 with linespoints lw 2 title 'ULBA + ULBA policy', \
     '' using 1:5 with linespoints lw 2 title 'ULBA_ALPHA=AUTO', \
     '' using 1:6 with lines dt 2 lc 'black' title 'lower bound (perfect balance, no cost)'
GP
  echo "erosion_scale_plots: $dir/erosion_scale_N$n.png"
done
