#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_install_test.sh BUILD_DIR SOURCE_DIR MPIEXEC [FLAGS...]
# Installs the build into a scratch prefix, then builds a consumer with
# find_package(ZoltanPlugins) and another with pkg-config, and runs each with
# LB_METHOD=GREEDY at 2 ranks (the application checks conservation).
set -eu
build=$1 src=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
test -f "$tmp/prefix/include/zoltan_plugins.h" || { echo "FAIL: header not installed"; exit 1; }
cmake -S "$src/ctest/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/cfg.log" 2>&1 ||
  { cat "$tmp/cfg.log"; echo "FAIL: find_package(ZoltanPlugins)"; exit 1; }
cmake --build "$tmp/consumer" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; echo "FAIL: consumer build"; exit 1; }
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig:$tmp/prefix/lib/x86_64-linux-gnu/pkgconfig"
flags=$(pkg-config --cflags --libs zoltan_plugins) || { echo "FAIL: pkg-config"; exit 1; }
cc -o "$tmp/consumer_pc" "$src/ctest/plugin/zp_testapp.c" "$src/ctest/common/zpt_app.c" -I"$src/ctest/common" $flags -lm -Wl,-rpath,"$tmp/prefix/lib" ||
  { echo "FAIL: pkg-config build with: $flags"; exit 1; }
for exe in "$tmp/consumer/consumer_shared" "$tmp/consumer/consumer_static" "$tmp/consumer_pc"; do
  LD_LIBRARY_PATH="$tmp/prefix/lib:$tmp/prefix/lib/x86_64-linux-gnu" "$@" -n 2 "$exe" --method GREEDY --migrate --bound 1.01 \
    > "$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; echo "FAIL: $exe"; exit 1; }
  echo "ok: $(basename "$exe") balanced with GREEDY through the installed package"
done
