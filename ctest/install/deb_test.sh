#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# deb_test.sh BUILD_DIR SOURCE_DIR PLAIN_APP MPIEXEC [FLAGS...]
# Builds the Debian package (cpack -G DEB) of a built tree, checks its
# control data, unpacks it into a throwaway root (dpkg -x) and uses it as a
# user would, from that root only:
#  - the relink routes: run_install_test.sh's consumers (CMake package,
#    pkg-config, every header on its own) built against <root>/usr;
#  - the preload route: an application built without our library, started
#    with LD_PRELOAD=<root>/usr/lib/libzoltan_plugins.so, balances with
#    GREEDY, and the packaged zp-check says so;
#  - the programs: zp_methods --version is the project's version, zp_zdrive
#    balances the shipped mesh deck, the man pages render without warnings.
# As root it also asks dpkg whether the package would install here
# (--dry-run: nothing changes).
set -eu
build=$1 src=$2 plain=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$tmp/pkg" > "$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/pkg/*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack wrote no .deb"
echo "ok: $(basename "$deb") built ($(wc -c < "$deb") bytes)"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ "$(dpkg-deb -f "$deb" Package)" = zoltan-plugins ] || fail "package name"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "version $(dpkg-deb -f "$deb" Version), project $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "$depends" | grep -q -e libtrilinos-zoltan -e libmpich || fail "Depends names no Zoltan or MPI: $depends"
echo "ok: control: zoltan-plugins $version, Depends: $depends"
if [ "$(id -u)" -eq 0 ]; then
  dpkg --dry-run -i "$deb" > "$tmp/dry.log" 2>&1 || { cat "$tmp/dry.log"; fail "dpkg --dry-run -i: the package would not install here"; }
  echo "ok: dpkg --dry-run -i accepts it (its dependencies are installed)"
fi

root=$tmp/root
dpkg -x "$deb" "$root"
usr=$root/usr
for f in lib/libzoltan_plugins.so.0 lib/libzoltan_plugins.a lib/pkgconfig/zoltan_plugins.pc \
  lib/cmake/ZoltanPlugins/ZoltanPluginsConfig.cmake include/zoltan_plugins/zoltan_plugins.h \
  bin/zp_methods bin/zp_zdrive bin/zp-check bin/zp-plot \
  share/man/man1/zp_methods.1 share/man/man1/zp_zdrive.1 share/man/man1/zp-check.1 share/man/man1/zp-plot.1; do
  [ -e "$usr/$f" ] || fail "/usr/$f is not in the package"
done
echo "ok: library, headers, CMake and pkg-config files, programs and man pages are in it"

# Relink routes, with the package's files only.
ZP_INSTALLED_PREFIX=$usr sh "$src/ctest/install/run_install_test.sh" "$build" "$src" "$@" > "$tmp/consumers.log" 2>&1 ||
  { cat "$tmp/consumers.log"; fail "consumers built against the package"; }
sed 's/^/  /' "$tmp/consumers.log"

# Programs, with the package's library.
v=$(LD_LIBRARY_PATH=$usr/lib "$usr/bin/zp_methods" --version)
[ "$v" = "zp_methods (zoltan_plugins) $version" ] || fail "zp_methods --version printed '$v'"
LD_LIBRARY_PATH=$usr/lib "$usr/bin/zp_methods" --names | grep -qx GREEDY || fail "zp_methods lists no GREEDY"
echo "ok: $v"
mkdir "$tmp/deck"
cp "$src"/testdrivers/examples/* "$tmp/deck/"
(cd "$tmp/deck" && LD_LIBRARY_PATH=$usr/lib "$@" -n 2 "$usr/bin/zp_zdrive" zdrive.inp.greedy > run.log 2>&1) ||
  { cat "$tmp/deck/run.log"; fail "zp_zdrive on the shipped deck"; }
after=$(sed -n 's/^DRIVER STATS (after): part imbalance (max\/avg weight) //p' "$tmp/deck/run.log")
[ -n "$after" ] || fail "zp_zdrive printed no balance"
echo "ok: zp_zdrive balanced the shipped 48x48 mesh with GREEDY at 2 ranks: max/avg $after"

# Preload route: a program that never linked us.
out=$(LD_PRELOAD=$usr/lib/libzoltan_plugins.so sh "$usr/bin/zp-check" "$plain") || fail "zp-check: $out"
echo "$out" | grep -q "(preloaded, $usr/lib/libzoltan_plugins.so" || fail "zp-check: $out"
echo "ok: $out"
"$@" -n 2 env LD_PRELOAD="$usr/lib/libzoltan_plugins.so" ZOLTAN_PLUGINS_VERBOSE=1 "$plain" --method GREEDY --migrate --bound 1.01 \
  > "$tmp/preload.log" 2>&1 || { cat "$tmp/preload.log"; fail "preloaded GREEDY"; }
grep -q "runs LB_METHOD=GREEDY (zoltan_plugins method)" "$tmp/preload.log" || { cat "$tmp/preload.log"; fail "no verbose line"; }
echo "ok: an application built without us balanced with GREEDY, preloaded from the package"

# Man pages.
if command -v groff > /dev/null 2>&1; then
  for m in "$usr"/share/man/man1/*.1; do
    w=$(groff -man -ww -z "$m" 2>&1)
    [ -z "$w" ] || fail "$(basename "$m"): $w"
    grep -q '^\.SH SYNOPSIS' "$m" || fail "$(basename "$m") has no SYNOPSIS"
  done
  echo "ok: the man pages render without warnings: $(cd "$usr/share/man/man1" && ls | tr '\n' ' ')"
fi
grep -q '^\.B REFINE_TOLERANCE' "$usr/share/man/man1/zp_methods.1" || fail "zp_methods.1 lacks REFINE_TOLERANCE"
grep -q '^\.B REFINE_TOLERANCE' "$usr/share/man/man1/zp_zdrive.1" || fail "zp_zdrive.1 lacks the parameter section"
echo "ok: both pages carry the parameter reference"
