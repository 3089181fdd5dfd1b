# SPDX-License-Identifier: BSD-3-Clause
# Time of one call against the number of objects, per method, log-log, from
# bench_path's CSV (bench/bench_path.sh).  Call with:
#   gnuplot -e "csv='bench_path_np2.csv'; out='path_np2.png'; col=5" plot_path.gp
# col 4 = first call, col 5 = calls with drifting weights (seconds).
if (!exists("csv")) csv = "bench_path.csv"
if (!exists("out")) out = "bench_path.png"
if (!exists("col")) col = 5
# tag: added to the title, e.g. ", warm heap" for bench_path --warm-heap.
if (!exists("tag")) tag = ""
set terminal pngcairo size 900,620 noenhanced
set output out
set datafile separator ","
set logscale xy
set grid
set key outside right top
set xlabel "objects (whole problem)"
set ylabel (col == 4 ? "seconds, first call (median)" : "seconds, drifting calls (median)")
ranks = system("awk -F, 'NR==2{print $1}' ".csv)
set title "bench_path: one Zoltan_LB_Partition, ".ranks." ranks (wall time, max over ranks)".tag
methods = system("awk -F, 'NR>1 && !seen[$3]++ {printf \"%s \", $3}' ".csv)
set format y "%g"
# The rows of the methods are interleaved in the CSV: each line is drawn
# from its own method's rows, picked out by awk.
plot for [m in methods] "< awk -F, -v m='".m."' 'NR > 1 && $3 == m' ".csv using 2:col \
     with linespoints lw (m eq "RCB" ? 3 : 1) title m
