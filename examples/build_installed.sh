#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# build_installed.sh BUILD_DIR EXAMPLES_DIR MPIEXEC [FLAGS...]
# What examples/README.md tells a user: the library installed (here into a scratch prefix),
# this folder configured on its own with find_package(ZoltanPlugins), built, and ulba_loop run
# at 2 ranks; it must exit 0 (its own checks) and print its summary line.
set -eu
build=$1 src=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
cmake -S "$src" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/cfg.log" 2>&1 ||
  { cat "$tmp/cfg.log"; echo "FAIL: cmake -S examples with find_package(ZoltanPlugins)"; exit 1; }
cmake --build "$tmp/ex" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; echo "FAIL: build"; exit 1; }
export LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
"$@" -n 2 "$tmp/ex/ulba_loop" > "$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; echo "FAIL: ulba_loop"; exit 1; }
cat "$tmp/run.log"
grep -q '^ulba_loop: 2 ranks, .*: OK$' "$tmp/run.log" || { echo "FAIL: no summary line"; exit 1; }
echo "ok: examples/ built against the installed package and ulba_loop passed at 2 ranks"
