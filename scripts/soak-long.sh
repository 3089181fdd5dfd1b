#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The long soak (docs/reliability.md, "Long soak"): ctest -L soak_long, that
# is zp_soak with every method of ours at 1, 2, 3, 4, 8 and 16 ranks, one
# rank count after the other, each checking every round and its resident
# memory between two rounds.  About 20 minutes on 2 cores.
# Environment:
#   BUILD_DIR    build folder (default build-soak-long); configured with
#                -DZP_LONG_TESTS=ON when that is not on yet, then brought up
#                to date (only zp_soak is built)
#   SOAK_ROUNDS  rounds per rank count (default 10000)
#   SOAK_RSS     --rss-check A,B (default: a tenth of the rounds, and the
#                rounds: 1000,10000)
#   SOAK_RANKS   rank counts to run (default "1 2 3 4 8 16")
#   ZP_MPI       openmpi (default) or mpich, as for scripts/test.sh
# Prints, per rank count, the soak's summary, its memory figures (maximum
# over ranks and each rank's pair) and the wall time.  Exit status 0 only
# when every rank count passed.
set -eu
cd "$(dirname "$0")/.."
. scripts/mpi-select.sh
. scripts/env.sh
build=${BUILD_DIR:-build-soak-long}
rounds=${SOAK_ROUNDS:-10000}
ranks=${SOAK_RANKS:-1 2 3 4 8 16}
jobs=$(nproc 2>/dev/null || echo 2)
case $rounds in '' | *[!0-9]*) echo "soak-long: SOAK_ROUNDS=$rounds: give a whole number" >&2; exit 2 ;; esac
[ "$rounds" -ge 10 ] || { echo "soak-long: SOAK_ROUNDS must be at least 10" >&2; exit 2; }
rss=${SOAK_RSS:-$((rounds / 10)),$rounds}
case $rss in *[0-9],[0-9]*) ;; *) echo "soak-long: SOAK_RSS=$rss: give A,B" >&2; exit 2 ;; esac
case $build in /*) ;; *) build="$PWD/$build" ;; esac
mkdir -p "$build"
if ! grep -q '^ZP_LONG_TESTS:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  sh scripts/deps.sh
  zp_prepare_zoltan "$build"
  # shellcheck disable=SC2086
  cmake -S . -B "$build" -DZP_WERROR=ON -DZP_LONG_TESTS=ON $zp_cmake_mpi_args > /dev/null
fi
# The rounds and the memory rounds are cache entries: set them every time.
cmake -S . -B "$build" -DZP_SOAK_LONG_ROUNDS="$rounds" -DZP_SOAK_LONG_RSS="$rss" > /dev/null
cmake --build "$build" -j "$jobs" --target zp_soak
sel=$(echo "$ranks" | tr ' ' '\n' | sed '/^$/d' | paste -sd '|' -)
echo "soak-long: $rounds rounds, --rss-check $rss, at $ranks ranks, in $build ($jobs cores)"
rc=0
# One test at a time: every test uses all the cores.  No input: mpiexec
# forwards stdin.
ctest --test-dir "$build" -L soak_long -R "^soak_long_every_method_np($sel)\$" \
  --output-on-failure < /dev/null || rc=$?
# The figures, from the output ctest kept of each test.
log="$build/Testing/Temporary/LastTest.log"
if [ -f "$log" ]; then
  echo "soak-long: figures (KiB of VmRSS after rounds A and B; per rank and the maximum over ranks)"
  awk '/^[0-9]+\/[0-9]+ Test: / { name = $3 }
       /^zp_soak: / && name != "" { print name ": " $0 }
       /^Test time = / && name != "" { print name ": wall time " $4 " s"; name = "" }' "$log"
fi
[ "$rc" -eq 0 ] && echo "soak-long: every rank count passed" || echo "soak-long: FAILED (above)"
exit "$rc"
