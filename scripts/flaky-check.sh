#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs the whole CTest suite several times in a row while busy processes
# load the CPU, to find tests whose verdict depends on wall-clock time or on
# the machine's load (docs/reliability.md).  A test that passes on an idle
# machine and fails here either asserts something about time or has a
# TIMEOUT too tight for a busy machine.
# Environment:
#   FLAKY_RUNS  number of runs of the suite (default 5)
#   FLAKY_HOGS  number of busy processes beside it (default 4; 0 = none)
#   BUILD_DIR   build folder (default build-flaky); configured as
#               scripts/test.sh does when it holds no CTestTestfile.cmake,
#               brought up to date (cmake --build) in any case
#   CTEST_ARGS  extra ctest arguments (e.g. "-R adaptive" or "-L unit")
# Prints each run's pass/fail counts and the names of the tests that failed
# in any run; the ctest output of run N is kept in BUILD_DIR/flaky-check/runN.log.
# Exit status 0 only when every run passed.  The busy processes are killed
# on every exit path, interrupts included.
set -eu
cd "$(dirname "$0")/.."
runs=${FLAKY_RUNS:-5}
hogs=${FLAKY_HOGS:-4}
build=${BUILD_DIR:-build-flaky}
jobs=$(nproc 2>/dev/null || echo 2)
case $runs in '' | *[!0-9]*) echo "flaky-check: FLAKY_RUNS=$runs: give a whole number" >&2; exit 2 ;; esac
case $hogs in '' | *[!0-9]*) echo "flaky-check: FLAKY_HOGS=$hogs: give a whole number" >&2; exit 2 ;; esac
[ "$runs" -ge 1 ] || { echo "flaky-check: FLAKY_RUNS must be at least 1" >&2; exit 2; }

. scripts/env.sh
if [ ! -f "$build/CTestTestfile.cmake" ]; then
  sh scripts/deps.sh
  cmake -S . -B "$build" -DZP_WERROR=ON
fi
cmake --build "$build" -j "$jobs"
case $build in /*) ;; *) build="$PWD/$build" ;; esac
logs="$build/flaky-check"
rm -rf "$logs" && mkdir -p "$logs"

own_group=""
command -v setsid > /dev/null 2>&1 && own_group=setsid
hog_pids=""
ctest_pid=""
# Stops exactly the processes this script started (the busy processes and a
# running ctest, by their ids); runs on normal exit, on error and on
# interrupt.
cleanup() {
  # dash's kill takes no process group: the external one does.
  [ -z "$ctest_pid" ] || [ -z "$own_group" ] || env kill -s TERM -- "-$ctest_pid" 2>/dev/null || true
  for p in $ctest_pid $hog_pids; do kill "$p" 2>/dev/null || true; done
  for p in $ctest_pid $hog_pids; do wait "$p" 2>/dev/null || true; done
  ctest_pid=""
  hog_pids=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

i=0
while [ "$i" -lt "$hogs" ]; do
  sh -c 'while :; do :; done' &
  hog_pids="$hog_pids $!"
  i=$((i + 1))
done
echo "flaky-check: $runs run(s) of the suite in $build beside $hogs busy process(es)"

failed_runs=0
run=1
while [ "$run" -le "$runs" ]; do
  log="$logs/run$run.log"
  start=$(date +%s)
  # In the background, so that a signal to this script interrupts the wait
  # at once (a foreground command would delay the trap until it ends), and
  # in a process group of its own where setsid exists, so that the cleanup
  # stops the running tests with ctest.  No input: mpiexec forwards stdin.
  # shellcheck disable=SC2086
  $own_group ctest --test-dir "$build" -j "$jobs" --timeout 600 ${CTEST_ARGS:-} \
    < /dev/null > "$log" 2>&1 &
  ctest_pid=$!
  if wait "$ctest_pid"; then rc=0; else rc=$?; fi
  ctest_pid=""
  secs=$(($(date +%s) - start))
  passed=$(grep -c ' Passed ' "$log" || true)
  skipped=$(grep -c '\*\*\*Skipped ' "$log" || true)
  # ctest lists every test that did not pass (failed, timed out, not run,
  # crashed) after this line; skipped tests come in another list.
  sed -n '/^The following tests FAILED:/,$s/^[[:space:]]*[0-9][0-9]* - \([^ ]*\) (.*/\1/p' "$log" \
    > "$logs/run$run.failed"
  nfail=$(wc -l < "$logs/run$run.failed" | tr -d ' ')
  if [ "$rc" -ne 0 ] && [ "$nfail" -eq 0 ]; then
    # ctest itself failed (no test list, bad arguments): show why.
    tail -n 20 "$log"
    nfail=1
    echo "(ctest exited with status $rc)" > "$logs/run$run.failed"
  fi
  echo "run $run/$runs: $passed passed, $nfail failed, $skipped skipped ($secs s)"
  [ "$nfail" -eq 0 ] || failed_runs=$((failed_runs + 1))
  run=$((run + 1))
done

if [ "$failed_runs" -eq 0 ]; then
  echo "flaky-check: every run passed"
  exit 0
fi
echo "flaky-check: $failed_runs of $runs run(s) failed; tests that failed (number of runs):"
cat "$logs"/run*.failed | sort | uniq -c | sort -rn | sed 's/^ */  /'
echo "ctest output of each run: $logs/run<N>.log"
exit 1
