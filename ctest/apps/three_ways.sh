#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# three_ways.sh NP MPIEXEC-AND-FLAGS... -- PLAIN LINKED LIB
# For Zoltan's own methods, an application must print the same assignment
# digest built without our library, linked with it, and with it preloaded.
. "$(dirname "$0")/../common/launcher_args.sh"
plain=$1 linked=$2 lib=$3 here=$(dirname "$0")
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for m in RCB RIB HSFC BLOCK; do
  for v in plain linked preload; do
    case $v in
      plain) cmd="$plain" ;;
      linked) cmd="$linked" ;;
      preload) cmd="sh $here/../plugin/preload_run.sh $lib $plain" ;;
    esac
    $launcher -n "$np" $cmd --method $m > "$tmp/$v" 2>&1 || { echo "FAIL: $m ($v) exited non-zero"; cat "$tmp/$v"; status=1; }
  done
  a=$(grep ' passed$' "$tmp/plain")
  if [ -z "$a" ]; then echo "FAIL: $m printed no result"; cat "$tmp/plain"; status=1; continue; fi
  for v in linked preload; do
    b=$(grep ' passed$' "$tmp/$v")
    if [ "$a" = "$b" ]; then echo "ok: $m ($v): $b"; else echo "FAIL: $m differs ($v): '$b' vs '$a'"; status=1; fi
  done
done
exit $status
