# SPDX-License-Identifier: BSD-3-Clause
# Figure 3 of the ULBA paper from ulba_model's output: gain of ULBA with its
# best alpha over the standard method, by percentage of overloading PEs.
# gnuplot -e "datadir='DIR'; outdir='DIR'" ulba_fig3.gp
if (!exists("datadir")) datadir = "."
if (!exists("outdir")) outdir = datadir
if (!exists("fmt")) fmt = "png"
set datafile separator ","
if (fmt eq "svg") {
  set terminal svg size 760,460 dynamic font "sans,12"
  set output outdir."/ulba_fig3.svg"
} else {
  set terminal pngcairo size 760,460 font "sans,11"
  set output outdir."/ulba_fig3.png"
}
set title "ULBA (best of 100 alphas) vs standard method, sigma-plus schedules"
set xlabel "overloading PEs [% of P]"
set ylabel "gain over the standard method [%]"
set y2label "mean best alpha"
set xrange [0:21]
set xtics 1
set yrange [0:*]
set y2range [0:1]
set y2tics 0.1
set ytics nomirror
set grid ytics
set key top right
set boxwidth 0.5
set style fill solid 0.4 border -1
# columns: pct,min,q1,median,q3,max,mean,mean_best_alpha,...
plot datadir."/fig3_summary.csv" using 1:3:2:6:5 skip 1 with candlesticks whiskerbars lc rgb "#4a7ebb" title "gain: min, quartiles, max", \
     "" using 1:4:4:4:4 skip 1 with candlesticks lc rgb "#000000" lw 2 notitle, \
     "" using 1:7 skip 1 with points pt 7 ps 0.6 lc rgb "#c0392b" title "mean gain", \
     "" using 1:8 skip 1 axes x1y2 with linespoints pt 6 lc rgb "#e67e22" title "mean best alpha (right axis)"
