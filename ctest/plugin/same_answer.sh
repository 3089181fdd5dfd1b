#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# same_answer.sh LAUNCH... -- APP ARGS...: runs APP ARGS... twice with the launch prefix
# LAUNCH... (mpiexec -n N and its flags) and requires the same "answer digest" line (the
# digest of every object's final part that zp_testapp prints) from both runs, and that both
# passed: the method's answer is deterministic for a given rank count and parameters.
set -eu
launch=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  launch="$launch $1"
  shift
done
[ "$#" -gt 0 ] || { echo "usage: same_answer.sh LAUNCH... -- APP ARGS..."; exit 2; }
shift
one=$($launch "$@" 2>&1) || { echo "$one"; echo "FAIL: first run"; exit 1; }
two=$($launch "$@" 2>&1) || { echo "$two"; echo "FAIL: second run"; exit 1; }
d1=$(echo "$one" | grep '^answer digest:' | tail -1)
d2=$(echo "$two" | grep '^answer digest:' | tail -1)
[ -n "$d1" ] || { echo "$one"; echo "FAIL: no answer digest printed"; exit 1; }
[ "$d1" = "$d2" ] || { echo "FAIL: two runs gave different answers ($d1 / $d2)"; exit 1; }
echo "ok: the same answer twice ($d1)"
