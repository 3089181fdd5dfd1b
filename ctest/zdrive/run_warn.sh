#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs zdrive on an input that Zoltan's own driver accepts with a warning.
# The test passes only if zdrive exits 0, prints a warning matching the
# pattern (naming file and line), and writes an answer file for every rank.
#
# usage: run_warn.sh <input dir> <deck> <nprocs> <pattern> <work dir> <zdrive> <mpiexec> [args...]
set -u
in=$1 deck=$2 np=$3 pattern=$4 work=$5 zdrive=$6
shift 6
launcher=("$@")
rm -rf "$work" && mkdir -p "$work" && cp -r "$in"/. "$work"/ || exit 1
cd "$work" || exit 1
"${launcher[@]}" "$np" "$zdrive" "$deck" > run.log 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAILED: zdrive refused an input that Zoltan accepts (exit $rc); output:"
  tail -n 20 run.log
  exit 1
fi
if ! grep -qE "zdrive: warning: .*$pattern" run.log; then
  echo "FAILED: no warning matching /$pattern/; output:"
  tail -n 20 run.log
  exit 1
fi
n=$(ls ./*.out."$np".* 2>/dev/null | wc -l)
if [ "$n" -ne "$np" ]; then
  echo "FAILED: expected $np answer files, found $n"
  exit 1
fi
echo "PASSED: exit status 0, warning:"
grep -m1 -E "zdrive: warning" run.log
