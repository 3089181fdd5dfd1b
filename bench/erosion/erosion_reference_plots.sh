#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Plots of an erosion_reference.sh folder (docs/erosion.md, "The reference
# experiment"): for each N, the median gain over std+ZHAI of every ULBA run
# against P (PEs simulated as Zoltan parts), with the headroom (std+ZHAI
# above the perfect-balance bound) and half of it.
#   erosion_reference_N<n>.png
# Usage: erosion_reference_plots.sh DIR [SEEDS]
set -eu
dir=${1:?usage: erosion_reference_plots.sh DIR [SEEDS]}
seeds=${2:-1 2 3 4 5}
command -v gnuplot >/dev/null 2>&1 || { echo "erosion_reference_plots: gnuplot not found, no plots"; exit 0; }
# shellcheck source=bench/erosion/summary_fns.sh
. "$(dirname "$0")/summary_fns.sh"
cd "$dir"
runs="ulba_part_a0.3 ulba_part_a0.4 ulba_part_aAUTO ulba_object_a0.3 ulba_object_a0.4 ulba_object_aAUTO"
for n in 1 2 3; do
  out=reference_N$n.dat
  : > "$out"
  for p in 32 64 128 256; do
    [ -f "P${p}_N${n}_seed1_summary.csv" ] || continue
    std=$(seed_median std_zhai 6 "P${p}_N${n}_seed")
    low=$(seed_median std_zhai 17 "P${p}_N${n}_seed")
    line="$p $(awk -v a="$std" -v b="$low" 'BEGIN { print 100 * (a - b) / a }')"
    for r in $runs; do line="$line $(seed_median "$r" 11 "P${p}_N${n}_seed" | awk '{ print 100 * $1 }')"; done
    echo "$line" >> "$out"
  done
  [ -s "$out" ] || continue
  gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output 'erosion_reference_N$n.png'
set title "Reference experiment, N = $n loader(s): gain over std+ZHAI vs P\\n(P PEs simulated as Zoltan parts on 2 ranks, s = 64, medians of the seeds $seeds)"
set xlabel 'P (PEs)'
set ylabel 'gain over std+ZHAI (%)'
set logscale x 2
set xtics (32, 64, 128, 256)
set xrange [28:300]
set key left top
set grid
plot '$out' u 1:2 w l lw 2 lc rgb 'black' t 'headroom (bound)', \\
     '' u 1:(\$2/2) w l dt 2 lc rgb 'black' t 'half the headroom', \\
     '' u 1:3 w lp pt 4 lc rgb '#8fb3d9' t 'PART 0.3', '' u 1:4 w lp pt 6 lc rgb '#5b8cc0' t 'PART 0.4', \\
     '' u 1:5 w lp pt 8 lw 3 lc rgb '#1f4e9a' t 'PART AUTO', \\
     '' u 1:6 w lp pt 5 lc rgb '#f2a6a0' t 'OBJECT 0.3', '' u 1:7 w lp pt 7 lc rgb '#e06b60' t 'OBJECT 0.4', \\
     '' u 1:8 w lp pt 9 lw 3 lc rgb '#b01c10' t 'OBJECT AUTO'
GP
  echo "erosion_reference_plots: $dir/erosion_reference_N$n.png"
done
