#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# capacity_identity.sh NP MPIEXEC [FLAGS...] -- APP
# CAPACITY=UNIFORM (the default) must change nothing: for native and plugin
# methods the import/export lists with the parameter set explicitly are
# identical, byte for byte, to those of a run that never mentions it.
np=$1; shift
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
app=$1
status=0
tmp=$(mktemp -d)
for m in RCB HSFC BLOCK PHG GREEDY REFINE ULBA; do
  $launcher -n "$np" "$app" --method $m --objects 600 --rounds 2 --lists "$tmp/unset" \
    > "$tmp/unset.log" 2>&1 || { echo "FAIL: $m without CAPACITY"; cat "$tmp/unset.log"; status=1; }
  $launcher -n "$np" "$app" --method $m --objects 600 --rounds 2 --lists "$tmp/uniform" \
    --param CAPACITY=UNIFORM --param CAPACITY_FILE=/nonexistent \
    > "$tmp/uniform.log" 2>&1 || { echo "FAIL: $m with CAPACITY=UNIFORM"; cat "$tmp/uniform.log"; status=1; }
  if [ -s "$tmp/unset" ] && cmp -s "$tmp/unset" "$tmp/uniform"; then
    echo "ok: $m lists identical ($(grep -c '^[IE]' "$tmp/unset") entries)"
  else
    echo "FAIL: $m lists differ with CAPACITY=UNIFORM"; status=1
  fi
done
rm -rf "$tmp"
exit $status
