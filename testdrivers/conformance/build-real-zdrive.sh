#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds Zoltan's own test driver, zdrive, from Zoltan's sources (the
# packages/zoltan folder of Debian's trilinos source package, the release
# of the installed Zoltan) against the installed Zoltan library, as the
# baseline of the conformance runner (scripts/conformance.sh).
#
# Usage: sh build-real-zdrive.sh ZOLTAN_SRC OUT [MPICC]
#   ZOLTAN_SRC  the packages/zoltan folder (scripts/zoltan-source.sh prints it)
#   OUT         the executable to write (its folder is created)
#   MPICC       the MPI compiler wrapper of Zoltan's MPI (default mpicc.openmpi)
# Compiler flags, include and library paths come from the environment:
# ZP_ZOLTAN_CFLAGS (default -I/usr/include/trilinos) and ZP_ZOLTAN_LIBS
# (default -ltrilinos_zoltan).  Only Zoltan's public headers and the
# driver's own sources are used; Debian's Zoltan is built with zlib, so the
# driver reads gzip-compressed inputs too (ZOLTAN_GZIP).
# Idempotent: an OUT newer than this script is kept.  Exit status 0 when OUT
# exists; otherwise one line on stderr says why.
set -eu
die() { echo "build-real-zdrive: $*" >&2; exit 1; }
[ $# -ge 2 ] || die "usage: sh build-real-zdrive.sh ZOLTAN_SRC OUT [MPICC]"
src=$1 out=$2 cc=${3:-mpicc.openmpi}
if [ -x "$out" ] && [ "$out" -nt "$0" ]; then exit 0; fi
d=$src/src/driver
ch=$src/src/ch
[ -f "$d/dr_main.c" ] || die "$src holds no Zoltan driver sources (src/driver/dr_main.c)"
command -v "$cc" >/dev/null 2>&1 || die "$cc not found"
# The C driver's sources, as Zoltan's own build lists them (src/driver/Makefile.am).
files=""
for f in dr_err dr_input dr_par_util dr_util dr_elem dr_setfixed dr_output dr_chaco_io \
  dr_random_io dr_elem_util dr_eval dr_gnuplot dr_hg_io dr_hg_readfile dr_mm_readfile dr_mmio \
  dr_compress dr_main dr_exoII_io dr_loadbal dr_migrate dr_maps dr_dd dr_param_file order_test; do
  files="$files $d/$f.c"
done
for f in ch_dist_graph ch_input_assign ch_input_graph ch_init_dist ch_input_geom ch_input_read; do
  files="$files $ch/$f.c"
done
mkdir -p "$(dirname "$out")" || die "cannot create the folder of $out"
tmp="$out.partial"
# Zoltan's own code is not ours to fix: its warnings are silenced.
# shellcheck disable=SC2086
"$cc" -O2 -w -DZOLTAN_GZIP -I"$d" -I"$ch" ${ZP_ZOLTAN_CFLAGS:--I/usr/include/trilinos} -o "$tmp" \
  $files ${ZP_ZOLTAN_LIBS:--ltrilinos_zoltan} -lz -lm > "$tmp.log" 2>&1 ||
  { tail -n 5 "$tmp.log" >&2; rm -f "$tmp"; die "compiling zdrive failed (log above)"; }
rm -f "$tmp.log"
mv "$tmp" "$out"
