#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The project's test command: installs missing packages, builds everything
# with -Werror and runs the whole CTest suite.  Exit status 0 only when
# every test passed.  BUILD_DIR overrides the build folder (default build-test).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
. scripts/env.sh
build=${BUILD_DIR:-build-test}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$build" -DZP_WERROR=ON
cmake --build "$build" -j "$jobs"
cd "$build"
ctest --output-on-failure -j "$jobs" --timeout 600
# Reliability stage (docs/reliability.md): ASan+UBSan build and tests,
# valgrind memcheck of one MPI test, 30 s of libFuzzer per parser harness.
# It adds about 8 minutes on 2 cores (sanitizer build ~3, sanitizer tests ~2,
# valgrind ~0.5, fuzz build and runs ~2); ZP_SKIP_SANITIZE=1 skips it.
# Back to the source tree (the previous directory of the cd above).
cd "$OLDPWD"
if [ "${ZP_SKIP_SANITIZE:-0}" != 1 ]; then
  BUILD_DIR="$build" sh scripts/sanitize.sh
fi
