#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# native_identity.sh NP MPIEXEC-AND-FLAGS... -- PLAIN LINKED LIB
# For each native method, the import/export lists of the same application
# must be identical byte for byte: without the layer, linked with it, and
# with it preloaded.
. "$(dirname "$0")/../common/launcher_args.sh"
plain=$1 linked=$2 lib=$3 here=$(dirname "$0")
status=0
tmp=$(mktemp -d)
for m in RCB RIB HSFC BLOCK RANDOM PHG GRAPH; do
  for v in plain linked preload; do
    case $v in
      plain) cmd="$plain" ;;
      linked) cmd="$linked" ;;
      preload) cmd="sh $here/preload_run.sh $lib $plain" ;;
    esac
    $launcher -n "$np" $cmd --method $m --objects 600 --lists "$tmp/$v" > "$tmp/$v.log" 2>&1 || {
      echo "FAIL: $m ($v) exited non-zero"; cat "$tmp/$v.log"; status=1; }
  done
  if [ ! -s "$tmp/plain" ]; then echo "FAIL: $m wrote no lists"; status=1; continue; fi
  for v in linked preload; do
    if cmp -s "$tmp/plain" "$tmp/$v"; then
      echo "ok: $m lists identical ($v, $(grep -c '^[IE]' "$tmp/plain") entries)"
    else
      echo "FAIL: $m lists differ with the layer ($v)"; diff "$tmp/plain" "$tmp/$v" | head -5; status=1
    fi
  done
done
rm -rf "$tmp"
exit $status
