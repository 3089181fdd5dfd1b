#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# determinism.sh METHOD MPIEXEC-AND-FLAGS... -- APP [APP ARGS...]
# The same global input must give the same assignment at 1, 2, 3 and 4
# ranks (fixed NUM_GLOBAL_PARTS): compare the dumped "gid part" lists.
method=$1; shift
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
tmp=$(mktemp -d)
status=0
for np in 1 2 3 4; do
  $launcher -n $np "$@" --method "$method" --param NUM_GLOBAL_PARTS=5 --initial-part-mod 5 --dump "$tmp/$np" > "$tmp/$np.log" 2>&1 || {
    echo "FAIL: run at $np ranks"; cat "$tmp/$np.log"; status=1; }
done
for np in 2 3 4; do
  if [ -s "$tmp/1" ] && cmp -s "$tmp/1" "$tmp/$np"; then echo "ok: $method at $np ranks equals 1 rank ($(wc -l < "$tmp/1") objects)"
  else echo "FAIL: $method at $np ranks differs from 1 rank"; status=1; fi
done
rm -rf "$tmp"
exit $status
