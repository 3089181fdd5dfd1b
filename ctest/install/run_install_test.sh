#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_install_test.sh BUILD_DIR SOURCE_DIR MPIEXEC [FLAGS...]
# Installs the build into a scratch prefix and checks the header layout
# (everything under include/zoltan_plugins/, nothing generic directly in
# include/, every header compiles on its own).  Then builds consumers with
# find_package(ZoltanPlugins) and with pkg-config: the test application runs
# with LB_METHOD=GREEDY at 2 ranks (it checks conservation), and a program
# that includes every installed header runs at 1 rank.
set -eu
build=$1 src=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# ZP_INSTALLED_PREFIX: check an install made otherwise (the Debian package,
# unpacked by deb_test.sh) instead of installing the build here.
if [ -n "${ZP_INSTALLED_PREFIX:-}" ]; then
  prefix=$ZP_INSTALLED_PREFIX
else
  prefix=$tmp/prefix
  cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
fi
inc=$prefix/include

# The layout: the headers of the build tree's mirror, all installed under
# include/zoltan_plugins/; only the umbrella's forwarding header at the top.
for h in "$build"/include/zoltan_plugins/*.h; do
  test -f "$inc/zoltan_plugins/$(basename "$h")" || { echo "FAIL: $(basename "$h") not installed in include/zoltan_plugins/"; exit 1; }
done
flat=$(cd "$inc" && find . -maxdepth 1 -type f | sed 's|^\./||' | sort | tr '\n' ' ')
[ "$flat" = "zoltan_plugins.h " ] || { echo "FAIL: headers directly in include/: $flat(expected only zoltan_plugins.h)"; exit 1; }
echo "ok: headers installed under include/zoltan_plugins/: $(cd "$inc/zoltan_plugins" && ls | tr '\n' ' ')"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig"
cflags=$(pkg-config --cflags zoltan_plugins) || { echo "FAIL: pkg-config"; exit 1; }
flags=$(pkg-config --cflags --libs zoltan_plugins)
# Each header on its own, as the only include, with the package's flags.
for h in "$inc"/zoltan_plugins/*.h "$inc/zoltan_plugins.h"; do
  name=${h#"$inc"/}
  printf '#include <%s>\nint zp_header_test;\n' "$name" > "$tmp/one.c"
  cc -std=c99 -Wall -Wextra -Werror -fsyntax-only $cflags "$tmp/one.c" > "$tmp/one.log" 2>&1 ||
    { cat "$tmp/one.log"; echo "FAIL: <$name> does not compile on its own with: $cflags"; exit 1; }
done
echo "ok: every installed header compiles on its own with pkg-config's flags"

cmake -S "$src/ctest/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/cfg.log" 2>&1 ||
  { cat "$tmp/cfg.log"; echo "FAIL: find_package(ZoltanPlugins)"; exit 1; }
cmake --build "$tmp/consumer" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; echo "FAIL: consumer build"; exit 1; }
cc -o "$tmp/consumer_pc" "$src/ctest/plugin/zp_testapp.c" "$src/ctest/common/zpt_app.c" "$src/ctest/common/zpt_check.c" \
  "$src/util/zp_rng.c" -I"$src/ctest/common" -I"$src/util" $flags -lm -Wl,-rpath,"$prefix/lib" ||
  { echo "FAIL: pkg-config build with: $flags"; exit 1; }
cc -std=c99 -o "$tmp/headers_pc" "$src/ctest/install/consumer/headers_consumer.c" $flags -Wl,-rpath,"$prefix/lib" ||
  { echo "FAIL: pkg-config build of headers_consumer.c with: $flags"; exit 1; }
export LD_LIBRARY_PATH="$prefix/lib:$prefix/lib/x86_64-linux-gnu"
for exe in "$tmp/consumer/consumer_shared" "$tmp/consumer/consumer_static" "$tmp/consumer_pc"; do
  "$@" -n 2 "$exe" --method GREEDY --migrate --bound 1.01 \
    > "$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; echo "FAIL: $exe"; exit 1; }
  echo "ok: $(basename "$exe") balanced with GREEDY through the installed package"
done
for exe in "$tmp/consumer/headers_shared" "$tmp/consumer/headers_static" "$tmp/headers_pc"; do
  "$@" -n 1 "$exe" > "$tmp/run.log" 2>&1 || { cat "$tmp/run.log"; echo "FAIL: $exe"; exit 1; }
  echo "ok: $(basename "$exe") used every installed header: $(grep headers_consumer "$tmp/run.log")"
done
