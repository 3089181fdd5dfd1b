#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# same_twice.sh NP MPIEXEC-AND-FLAGS... -- APP [APP ARGS...]
# Runs APP twice at NP ranks with --dump and requires both runs to pass
# their own checks and give the same "gid part" list: determinism for a
# given rank count, for methods whose answer depends on the rank count
# (REFINE_DISTRIBUTED=2 balances ranks, so the ranks are the problem).
. "$(dirname "$0")/../common/launcher_args.sh"
tmp=$(mktemp -d)
status=0
for k in 1 2; do
  $launcher -n "$np" "$@" --dump "$tmp/run$k" > "$tmp/run$k.log" 2>&1 ||
    { echo "FAIL: run $k at $np ranks"; cat "$tmp/run$k.log"; status=1; }
done
if [ -s "$tmp/run1" ] && cmp -s "$tmp/run1" "$tmp/run2"; then
  echo "ok: $np ranks, the same answer twice ($(wc -l < "$tmp/run1") objects)"
else
  echo "FAIL: at $np ranks two runs gave different answers"; status=1
fi
rm -rf "$tmp"
exit $status
