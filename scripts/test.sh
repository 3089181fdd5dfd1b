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
