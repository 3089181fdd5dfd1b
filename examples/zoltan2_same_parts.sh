#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# zoltan2_same_parts.sh LIB LINKED PLAIN MPIEXEC ARGS...: native RCB through Zoltan2 must give
# the same parts with Zoltan alone (PLAIN), with LIB preloaded (PLAIN) and with the library
# linked (LINKED).  Each run writes the parts of its first partition; MPIEXEC ARGS... is the
# launch prefix (mpiexec -n N and its flags).
set -eu
lib=$1 linked=$2 plain=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$@" "$plain" RCB 0 "$dir/alone"
"$@" env LD_PRELOAD="$lib" "$plain" RCB 0 "$dir/preloaded"
"$@" "$linked" RCB 0 "$dir/linked"
for f in alone preloaded linked; do
  [ "$(wc -l < "$dir/$f")" -eq 1024 ] || { echo "FAIL: $f wrote $(wc -l < "$dir/$f") of 1024 cells"; exit 1; }
done
cmp "$dir/alone" "$dir/preloaded" && cmp "$dir/alone" "$dir/linked" || {
  echo "FAIL: RCB through Zoltan2 gives other parts with our library"; exit 1; }
echo "ok: 1024 cells in the same parts alone, preloaded and linked ($(cut -d' ' -f2 "$dir/alone" | sort -u | wc -l) parts)"
