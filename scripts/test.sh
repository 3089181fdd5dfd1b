#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The project's test command: installs missing packages, builds everything
# with -Werror and runs the whole CTest suite.  Exit status 0 only when
# every test passed.  BUILD_DIR overrides the build folder (default build-test,
# build-test-mpich with ZP_MPI=mpich).  ZP_CTEST_ARGS adds ctest arguments.  ZP_MPI=mpich tests against MPICH: it
# builds Zoltan from Debian's source package with MPICH once (about 4 minutes
# on 2 cores, kept in the build folder) and runs the same suite on it.
set -eu
cd "$(dirname "$0")/.."
. scripts/mpi-select.sh
sh scripts/deps.sh
. scripts/env.sh
if [ "$zp_mpi" = mpich ]; then
  build=${BUILD_DIR:-build-test-mpich}
else
  build=${BUILD_DIR:-build-test}
fi
case $build in /*) ;; *) build="$PWD/$build" ;; esac
mkdir -p "$build"
zp_prepare_zoltan "$build"
jobs=$(nproc 2>/dev/null || echo 2)
# The sources must be formatted as .clang-format says before anything builds.
sh scripts/format-check.sh
# shellcheck disable=SC2086
# The pyzoltan tests need Debian's OpenMPI Zoltan: required there, so that
# a missing package fails the build instead of skipping them.
py_req=OFF
[ "$zp_mpi" = mpich ] || py_req=ON
cmake -S . -B "$build" -DZP_WERROR=ON -DZP_REQUIRE_PYTHON_TESTS=$py_req $zp_cmake_mpi_args
cmake --build "$build" -j "$jobs"
cd "$build"
# ZP_CTEST_ARGS: extra ctest arguments, e.g. "-L plugin|install" (CI runs
# the MPICH build with a label subset, docs/mpi.md says why).
# shellcheck disable=SC2086
ctest --output-on-failure -j "$jobs" --timeout 600 ${ZP_CTEST_ARGS:-}
# Reliability stage (docs/reliability.md): ASan+UBSan build and tests,
# valgrind memcheck of one MPI test, 30 s of libFuzzer per parser harness.
# It adds about 8 minutes on 2 cores (sanitizer build ~3, sanitizer tests ~2,
# valgrind ~0.5, fuzz build and runs ~2); ZP_SKIP_SANITIZE=1 skips it.
# Back to the source tree (the previous directory of the cd above).
cd "$OLDPWD"
if [ "$zp_mpi" = mpich ]; then
  # The sanitizer stage builds its own tree with the default MPI and knows
  # OpenMPI's leak suppressions; it runs in the OpenMPI test command.
  echo "test.sh: the sanitizer stage runs with the default MPI only (ZP_MPI=mpich skips it)"
elif [ "${ZP_SKIP_SANITIZE:-0}" != 1 ]; then
  BUILD_DIR="$build" sh scripts/sanitize.sh
fi
