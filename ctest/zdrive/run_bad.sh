#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs zdrive on a bad deck or bad input file.  The test passes only if
# zdrive exits non-zero, without hanging, and every rank printed the error
# message, which must match the expected pattern (naming file and line).
#
# usage: run_bad.sh <input dir> <deck> <nprocs> <pattern> <work dir> <zdrive> <mpiexec> [args...]
set -u
in=$1 deck=$2 np=$3 pattern=$4 work=$5 zdrive=$6
shift 6
launcher=("$@")
rm -rf "$work" && mkdir -p "$work" && cp -r "$in"/. "$work"/ || exit 1
cd "$work" || exit 1
"${launcher[@]}" "$np" "$zdrive" "$deck" > run.log 2>&1
rc=$?
if [ $rc -eq 0 ]; then
  echo "FAILED: zdrive accepted the bad input (exit 0)"
  exit 1
fi
n=$(grep -cE "zdrive: error \(rank [0-9]+\): .*$pattern" run.log)
if [ "$n" -ne "$np" ]; then
  echo "FAILED: expected the message /$pattern/ from all $np ranks, found $n; output:"
  tail -n 20 run.log
  exit 1
fi
echo "PASSED: exit status $rc, message on all $np ranks:"
grep -m1 -E "zdrive: error" run.log
