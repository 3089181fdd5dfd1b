#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs Zoltan's own test harness (ctest_zoltan.pl, unmodified) over Zoltan's
# Chaco and hypergraph test folders in three configurations and compares them
# (docs/zdrive.md, "Zoltan's own harness"):
#   1  Zoltan's real zdrive, built from the installed Zoltan's sources against
#      the installed library: what Zoltan itself passes on this machine;
#   2  the same zdrive with libzoltan_plugins.so preloaded: native methods
#      must behave exactly as in 1;
#   3  our zdrive-compatible driver (testdrivers/).
# Each folder runs at its own ZOLTANNUMPROCS and at 1 rank, for the packages
# Debian's Zoltan has (Zoltan, Scotch).
#
# Usage: sh scripts/conformance.sh [options]
#   --folders "A B"  test folders (default: every ch_* and hg_* folder)
#   --configs "1 2 3" configurations to run (default all three)
#   --no-one-rank    skip the 1-rank runs
#   --timeout S      per-deck time limit in seconds (default 180)
#   --sweep          also rerun every partitioning deck with each of our
#                    methods (see testdrivers/conformance/sweep.sh)
# Environment: BUILD_DIR (default build-test; configured and built as
# scripts/test.sh does when it holds no build), ZP_CONF_WORK (the work folder,
# default BUILD_DIR/conformance), ZP_ZOLTAN_SRC_CACHE (where Zoltan's sources
# are fetched and kept, default BUILD_DIR/zoltan-src).
# Prints pass/total per configuration and the tests that pass in 1 but not in
# 2 or 3, with the reason (missing output, diff, crash, timeout).  Exit
# status: 0 when 2 passes exactly what 1 passes and 3 passes everything 1
# passes except the decks listed in testdrivers/conformance/known-differences.txt;
# 1 otherwise; 77 (CTest's skip code) when Zoltan's sources cannot be had.
set -eu
cd "$(dirname "$0")/.."
top=$PWD
folders="" configs="1 2 3" one_rank=1 deck_timeout=180 sweep=0
while [ $# -gt 0 ]; do
  case $1 in
    --folders) folders=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --no-one-rank) one_rank=0; shift ;;
    --timeout) deck_timeout=$2; shift 2 ;;
    --sweep) sweep=1; shift ;;
    *) echo "conformance: unknown option '$1' (see the head of scripts/conformance.sh)" >&2; exit 2 ;;
  esac
done
case $deck_timeout in '' | *[!0-9]*) echo "conformance: --timeout $deck_timeout: give whole seconds" >&2; exit 2 ;; esac
for c in $configs; do
  case $c in 1 | 2 | 3) ;; *) echo "conformance: configuration '$c' is not 1, 2 or 3" >&2; exit 2 ;; esac
done

. scripts/env.sh
build=${BUILD_DIR:-build-test}
case $build in /*) ;; *) build="$top/$build" ;; esac
if [ ! -x "$build/testdrivers/zdrive" ] || [ ! -f "$build/zoltan_plugins/libzoltan_plugins.so" ]; then
  sh scripts/deps.sh
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DZP_WERROR=ON
  cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
fi
work=${ZP_CONF_WORK:-$build/conformance}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# Zoltan's sources: the test folders, the harness and the driver's sources.
if ! zsrc=$(sh scripts/zoltan-source.sh "${ZP_ZOLTAN_SRC_CACHE:-$build/zoltan-src}"); then
  echo "conformance: SKIPPED: Zoltan's test suite is not available (the line above says why)"
  exit 77
fi
tests=$zsrc/test
[ -f "$tests/ctest_zoltan.pl" ] || { echo "conformance: SKIPPED: $tests/ctest_zoltan.pl is missing"; exit 77; }
command -v perl >/dev/null 2>&1 || ZP_EXTRA_PACKAGES=perl sh scripts/deps.sh
real=$work/zdrive-real
sh testdrivers/conformance/build-real-zdrive.sh "$zsrc" "$real"
[ -n "$folders" ] || folders=$(cd "$tests" && ls -d ch_* hg_* 2>/dev/null | tr '\n' ' ')

export ZP_CONF_MPIEXEC=$(command -v mpiexec.openmpi || command -v mpiexec)
export ZP_CONF_DECK_TIMEOUT=$deck_timeout
export ZP_CONF_SESSIONS=$work/sessions
export ZP_CONF_TIMEOUTS=$work/timeouts.txt
launch=$top/testdrivers/conformance/launch.sh
mkdir -p "$ZP_CONF_SESSIONS"
: > "$ZP_CONF_TIMEOUTS"
results=$work/results.txt
: > "$results"

# run_folder CONFIG FOLDER NP: one harness run per package in a fresh copy
# of the folder; appends "config folder np package test verdict reason" rows.
run_folder() {
  cfg=$1 f=$2 np=$3
  dir=$work/cfg$cfg/np$np
  mkdir -p "$dir"
  cp "$tests/ctest_zoltan.pl" "$dir/"
  rm -rf "${dir:?}/$f"
  cp -R "$tests/$f" "$dir/$f"
  # Debian's Zoltan has 32-bit IDs; the harness would take this folder's
  # answers whenever it exists (Zoltan's CMake copies it only for 64-bit IDs).
  rm -rf "$dir/$f/answersZOLTANID64"
  if [ ! -d "$dir/$f/answers" ]; then
    echo "conformance: $f has no answers folder: skipped"
    return 0
  fi
  case $cfg in
    1) ZP_CONF_DRIVER=$real ZP_CONF_PRELOAD="" ;;
    2) ZP_CONF_DRIVER=$real ZP_CONF_PRELOAD=$build/zoltan_plugins/libzoltan_plugins.so ;;
    3) ZP_CONF_DRIVER=$build/testdrivers/zdrive ZP_CONF_PRELOAD="" ;;
  esac
  export ZP_CONF_DRIVER ZP_CONF_PRELOAD
  for pkg in Zoltan Scotch; do
    log=$dir/$f.$pkg.harness.log
    (cd "$dir/$f" && perl ../ctest_zoltan.pl --np "$np" --pkg "$pkg" --mpiexec "$launch" \
      --mpiexecarg -np --zdrive "$top/testdrivers/conformance/driver.sh") > "$log" 2>&1 < /dev/null || true
    sed -n 's/^Test \([^ ]*\) \(PASSED\|FAILED\)\(.*\)$/\1 \2\3/p' "$log" |
      while read -r name verdict reason; do
        echo "$cfg $f $np $pkg $name $verdict ${reason:-}"
      done >> "$results"
  done
}

start=$(date +%s)
for cfg in $configs; do
  for f in $folders; do
    if [ ! -d "$tests/$f" ]; then
      echo "conformance: no test folder $f in $tests: skipped"
      continue
    fi
    np=$(sed -n 's/^[[:space:]]*SET(ZOLTANNUMPROCS[[:space:]]*\([0-9][0-9]*\)).*/\1/Ip' "$tests/$f/CMakeLists.txt" 2>/dev/null | head -n 1)
    [ -n "$np" ] || np=1
    echo "conformance: configuration $cfg, $f at $np rank(s)"
    run_folder "$cfg" "$f" "$np"
    if [ "$one_rank" = 1 ] && [ "$np" != 1 ]; then run_folder "$cfg" "$f" 1; fi
  done
done
secs=$(($(date +%s) - start))

if sh testdrivers/conformance/report.sh "$results" "$ZP_CONF_TIMEOUTS" "$work" \
  testdrivers/conformance/known-differences.txt "$configs"; then
  status=0
else
  status=1
fi
echo "conformance: $secs s for configurations $configs over: $folders"
if [ "$sweep" = 1 ]; then
  sh testdrivers/conformance/sweep.sh "$build" "$work" "$real" "$tests" "$folders" || status=1
fi
exit "$status"
