#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench_path_ab.sh NP BENCH_PATH_ARGS...: an A/B of two builds of the library with one
# bench_path binary, the builds alternating, 3 rounds; then the median of each (size, method,
# build) over the rounds, first and drift call, with the ratio to the row's reference (RCB, or
# the base of ULBA/X, or the unguarded X of X+GUARD) of the same build.
#   OLD_LIB, NEW_LIB  folders holding libzoltan_plugins.so.0 (default build-old/zoltan_plugins
#                     and build/zoltan_plugins); BENCH: the bench_path binary (build/bench/...).
# As root, OpenMPI wants OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.  The output
# of each run goes to ab_NP_{old,new}_ROUND.txt in the current folder.
set -eu
[ $# -ge 1 ] || { echo "usage: bench_path_ab.sh NP BENCH_PATH_ARGS..." >&2; exit 2; }
np=$1
shift
old=${OLD_LIB:-build-old/zoltan_plugins} new=${NEW_LIB:-build/zoltan_plugins}
bench=${BENCH:-build/bench/bench_path}
flags=""
mpiexec --version 2>&1 | grep -q "Open MPI\|OpenRTE" && flags="--oversubscribe"
for round in 1 2 3; do
  for v in old new; do
    [ $v = old ] && lp=$old || lp=$new
    # shellcheck disable=SC2086
    mpiexec $flags -n "$np" env LD_LIBRARY_PATH="$lp" "$bench" "$@" > "ab_${np}_${v}_$round.txt" 2>&1
  done
done
awk '
  FNR == 1 { split(FILENAME, f, "_"); v = f[3] }
  /^[0-9]+ objects/ { size = $1; next }
  NF >= 5 && $1 ~ /^[A-Z]/ && $1 != "method" && $2 ~ /^[0-9.]+$/ {
    k = size SUBSEP $1 SUBSEP v; n[k]++; first[k, n[k]] = $2; drift[k, n[k]] = $4
    if (!((size, $1) in seen)) { seen[size, $1] = 1; order[++no] = size SUBSEP $1 }
  }
  function med(a, k, m,   i, j, t, x) {
    for (i = 1; i <= m; i++) x[i] = a[k, i]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
    return m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
  }
  function ref(m) { if (m ~ /^ULBA\//) return substr(m, 6); if (m ~ /\+GUARD$/) return substr(m, 1, length(m) - 6); return "RCB" }
  END {
    printf "%-10s %-18s %24s %24s\n", "objects", "method", "before: first / drift ms", "after: first / drift ms"
    for (i = 1; i <= no; i++) {
      split(order[i], p, SUBSEP); s = p[1]; m = p[2]; line = sprintf("%-10s %-18s", s, m)
      for (w = 0; w < 2; w++) {
        v = w ? "new" : "old"; k = s SUBSEP m SUBSEP v; r = s SUBSEP ref(m) SUBSEP v
        if (!(k in n) || !(r in n)) { line = line sprintf(" %24s", "-"); continue }
        a = med(first, k, n[k]); b = med(drift, k, n[k]); ra = med(first, r, n[r]); rb = med(drift, r, n[r])
        line = line sprintf(" %7.2f (%4.2f) %6.2f (%4.2f)", a, ra > 0 ? a / ra : 0, b, rb > 0 ? b / rb : 0)
      }
      print line
    }
  }' ab_"${np}"_*_*.txt
