#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# refine_distributed_same.sh 0 MPIEXEC-AND-FLAGS... -- APP [APP ARGS...]
# REFINE_DISTRIBUTED=1 gathers only the objects of the parts at or above
# their target; its answer must be the whole gather's, at every rank count:
# the dumped "gid part" lists of REFINE with and without it, at 1-4 ranks,
# must all equal REFINE's at 1 rank.  Part sizes 1:2:3 from a uniform start
# make REFINE move many objects, from some parts only.
# launcher_args.sh reads NP first; the rank counts are given per run below.
. "$(dirname "$0")/../common/launcher_args.sh"
tmp=$(mktemp -d)
status=0
for np in 1 2 3 4; do
  for d in 0 1; do
    $launcher -n $np "$@" --method REFINE --param NUM_GLOBAL_PARTS=5 --initial-part-mod 5 \
      --part-sizes --param REFINE_DISTRIBUTED=$d --param DEBUG_LEVEL=1 --dump "$tmp/$np.$d" \
      > "$tmp/$np.$d.log" 2>&1 || { echo "FAIL: run at $np ranks, REFINE_DISTRIBUTED=$d"; cat "$tmp/$np.$d.log"; status=1; }
  done
done
# The reduced gather must have left objects out, or the test proves nothing.
if ! grep -q "gathered [0-9]* of" "$tmp/4.1.log" ||
  grep "gathered" "$tmp/4.1.log" | awk '{ if ($6 == $8) bad = 1 } END { exit !bad }'; then
  echo "FAIL: REFINE_DISTRIBUTED=1 did not reduce the gather:"; grep gathered "$tmp/4.1.log"; status=1
fi
for np in 1 2 3 4; do
  for d in 0 1; do
    if [ -s "$tmp/1.0" ] && cmp -s "$tmp/1.0" "$tmp/$np.$d"; then
      echo "ok: REFINE_DISTRIBUTED=$d at $np ranks equals REFINE at 1 rank ($(wc -l < "$tmp/1.0") objects)"
    else
      echo "FAIL: REFINE_DISTRIBUTED=$d at $np ranks differs from REFINE at 1 rank"; status=1
    fi
  done
done
grep -h "gathered" "$tmp"/*.1.log | sort | uniq -c
rm -rf "$tmp"
exit $status
