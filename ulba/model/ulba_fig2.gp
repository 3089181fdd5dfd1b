# SPDX-License-Identifier: BSD-3-Clause
# Figure 2 of the ULBA paper from ulba_model's output: distribution of the
# gap between the exact optimal LB schedule and a step every sigma-plus.
# gnuplot -e "datadir='DIR'; outdir='DIR'" ulba_fig2.gp
if (!exists("datadir")) datadir = "."
if (!exists("outdir")) outdir = datadir
if (!exists("fmt")) fmt = "png"
set datafile separator ","
stats datadir."/fig2_instances.csv" using 12 name "G" nooutput
if (fmt eq "svg") {
  set terminal svg size 720,440 dynamic font "sans,12"
  set output outdir."/ulba_fig2.svg"
} else {
  set terminal pngcairo size 720,440 font "sans,11"
  set output outdir."/ulba_fig2.png"
}
set title sprintf("sigma-plus schedule vs exact optimum (%d instances)", G_records)
set xlabel "gain of the optimum over sigma-plus, (T_{opt} - T_{sigma+}) / T_{sigma+} [%]"
set ylabel "probability"
set grid ytics
set style fill solid 0.6 border -1
set boxwidth 0.9 relative
set key top left
set label 1 sprintf("average %.2f%%\nbest %.2f%%\nworst %.2f%%", G_mean, G_max, G_min) at graph 0.03, graph 0.80 left
plot datadir."/fig2_hist.csv" using 3:5 skip 1 with boxes lc rgb "#4a7ebb" title "ours (exact dynamic programme)"
