# SPDX-License-Identifier: BSD-3-Clause
# Plots of the bench target.  Call with: gnuplot -e "dir='<bench build dir>'" plot_balance_migration.gp
# One PNG per case from bench_zoltan's scatter_*.dat files (method, moved %,
# max/avg), and time vs N from bench_cores.csv when it exists.
if (!exists("dir")) dir = "."
set terminal pngcairo size 800,560 noenhanced
files = system("ls ".dir."/scatter_*.dat 2>/dev/null")
do for [f in files] {
  out = f[1:strlen(f)-4].".png"
  set output out
  set title f[strlen(dir)+2:strlen(f)-4]
  set xlabel "objects migrated (%)"
  set ylabel "max/avg load"
  set grid
  set key off
  set offsets 2, 8, 0.01, 0.01
  plot f using 2:3 with points pt 7 ps 1.5, \
       f using 2:3:1 with labels offset 1,0.6 left font ",9"
}
if (system("test -f ".dir."/bench_cores.csv && echo y") eq "y") {
  set output dir."/cores_time_vs_n.png"
  set title "strategy cores, 10^3 parts: time vs N"
  set datafile separator ","
  set logscale xy
  set xlabel "objects"
  set ylabel "seconds (best of 3)"
  set key top left
  set offsets 0, 0, 0, 0
  # Rows with other part counts are the parts sweep at 10^6 objects.
  plot dir."/bench_cores.csv" using ($2==1000?$1:NaN):3 skip 1 with linespoints title "GREEDY", \
       dir."/bench_cores.csv" using ($2==1000?$1:NaN):4 skip 1 with linespoints title "REFINE (20% parts +30%)", \
       dir."/bench_cores.csv" using ($2==1000?$1:NaN):5 skip 1 with linespoints title "qsort of the weights", \
       dir."/bench_cores.csv" using ($2==1000?$1:NaN):($1*log($1)*1e-8) skip 1 with lines dt 2 title "N log N (scaled)"
}
