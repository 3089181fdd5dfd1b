#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scotch_parallel.sh NP MPIEXEC-AND-FLAGS... -- APP [APP ARGS...]
# SCOTCHLB's PT-Scotch path (LB_APPROACH=PARTITION, SCOTCHLB_PARALLEL_MIN=1)
# at NP ranks: the run must take that path (DEBUG_LEVEL 1 names it), pass
# the application's checks given in APP ARGS (every object once, weight
# conserved, balance bound, cut), and give the same "gid part" list when run
# twice (determinism for a given rank count; PT-Scotch's answer does depend
# on the rank count, so different counts are not compared).
. "$(dirname "$0")/../common/launcher_args.sh"
tmp=$(mktemp -d)
status=0
for k in 1 2; do
  $launcher -n "$np" "$@" --param LB_APPROACH=PARTITION --param SCOTCHLB_PARALLEL_MIN=1 \
    --param DEBUG_LEVEL=1 --dump "$tmp/run$k" > "$tmp/run$k.log" 2>&1 ||
    { echo "FAIL: run $k at $np ranks"; cat "$tmp/run$k.log"; status=1; }
done
if [ "$np" -gt 1 ]; then
  grep -q "PARTITION (PT-Scotch)" "$tmp/run1.log" ||
    { echo "FAIL: at $np ranks the call did not take the PT-Scotch path"; cat "$tmp/run1.log"; status=1; }
else
  grep -q "PARTITION (gathered)" "$tmp/run1.log" ||
    { echo "FAIL: at 1 rank the call should gather"; cat "$tmp/run1.log"; status=1; }
fi
if [ -s "$tmp/run1" ] && cmp -s "$tmp/run1" "$tmp/run2"; then
  echo "ok: $np ranks, the same answer twice ($(wc -l < "$tmp/run1") objects)"
  grep "SCOTCHLB:" "$tmp/run1.log" | head -3
else
  echo "FAIL: at $np ranks two runs gave different answers"; status=1
fi
rm -rf "$tmp"
exit $status
