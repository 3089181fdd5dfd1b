#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Builds Zoltan 13.2 from Debian's trilinos source package with one MPI's
# compiler wrappers and installs it into PREFIX.
#
# Usage: sh scripts/build-zoltan.sh MPI PREFIX      (MPI = mpich | openmpi)
#
# What PREFIX gets: include/ (zoltan.h, zoltan_cpp.h and Zoltan's other
# public headers, Zoltan_config.h), lib/libzoltan.a, lib/libzoltan.so (a
# shared library made from the same objects, so that our library can stand
# in front of it at run time), bin/zdrive (Zoltan's own test driver, built
# from the same sources) and .zoltan-plugins-build (what was built).
# Only Zoltan is built, with its own autotools build.  Third-party
# partitioners: Zoltan uses Scotch only through PT-Scotch when it is built
# with MPI, and Debian's PT-Scotch is built with OpenMPI, so the MPICH
# Zoltan has no Scotch (GRAPH_PACKAGE=SCOTCH and the Scotch ordering decks
# are unavailable there); the OpenMPI Zoltan is built with Debian's PT-Scotch.
#
# Idempotent: when PREFIX already holds a complete build for the same MPI it
# does nothing.  The build happens in a scratch folder and is moved into
# PREFIX only when complete, so a failed or interrupted run leaves no
# half-installed PREFIX that a later call would trust.  Zoltan's sources are
# cached beside PREFIX (ZP_ZOLTAN_SRC_CACHE overrides where).
set -eu
die() { echo "build-zoltan: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: sh scripts/build-zoltan.sh mpich|openmpi PREFIX"
mpi=$1
prefix=$2
here=$(cd "$(dirname "$0")" && pwd)
case $mpi in
  mpich)   cc=mpicc.mpich;   cxx=mpicxx.mpich;   scotch="" ;;
  openmpi) cc=mpicc.openmpi; cxx=mpicxx.openmpi; scotch="--with-scotch --with-scotch-incdir=/usr/include/scotch --with-scotch-libdir=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)" ;;
  *) die "unknown MPI '$mpi' (expected mpich or openmpi)" ;;
esac
command -v "$cc" >/dev/null 2>&1 || die "$cc not found (apt-get install $( [ "$mpi" = mpich ] && echo 'mpich libmpich-dev' || echo 'libopenmpi-dev openmpi-bin'))"
case $prefix in /*) ;; *) prefix="$PWD/$prefix" ;; esac
stamp="$prefix/.zoltan-plugins-build"
want="zoltan-13.2 mpi=$mpi"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$prefix/lib/libzoltan.so" ] &&
   [ -f "$prefix/include/zoltan.h" ]; then
  echo "build-zoltan: $prefix already holds Zoltan built with $mpi"
  exit 0
fi
[ -e "$prefix" ] && [ ! -f "$stamp" ] && [ -n "$(ls -A "$prefix" 2>/dev/null)" ] &&
  die "$prefix exists, is not empty and was not made by this script: refusing to overwrite it"
parent=$(dirname "$prefix")
mkdir -p "$parent" 2>/dev/null || die "cannot create $parent"
[ -w "$parent" ] || die "$parent is not writable"
src=$(sh "$here/zoltan-source.sh" "${ZP_ZOLTAN_SRC_CACHE:-$parent/zoltan-src}") ||
  die "no Zoltan source available (see the line above)"
scratch="$prefix.partial"
rm -rf "$scratch" "$prefix.build"
mkdir -p "$prefix.build"
trap 'rm -rf "$scratch" "$prefix.build"' EXIT
log="$prefix.build/build.log"
echo "build-zoltan: configuring Zoltan with $cc (log: $log)"
# -fPIC: the objects also go into the shared library below.
(cd "$prefix.build" && "$src/configure" --prefix="$prefix" --enable-mpi --with-mpi-compilers=no \
   CC="$cc" CXX="$cxx" FC=false F77=false CFLAGS="-O2 -fPIC" $scotch > "$log" 2>&1) ||
  { tail -n 20 "$log" >&2; die "configure failed (log above)"; }
echo "build-zoltan: compiling (a few minutes on 2 cores)"
jobs=$(nproc 2>/dev/null || echo 2)
(cd "$prefix.build" && make -j "$jobs" install DESTDIR="$scratch" >> "$log" 2>&1) ||
  { tail -n 20 "$log" >&2; die "make failed (log above)"; }
staged="$scratch$prefix"
[ -f "$staged/lib/libzoltan.a" ] || die "the build produced no libzoltan.a"
# Zoltan's autotools build makes only a static archive.  A shared copy lets
# the plugin layer interpose Zoltan's entry points at run time (a static
# Zoltan linked into libzoltan_plugins.so would hide the real functions).
tpl=""
[ -n "$scotch" ] && tpl="-lptscotch -lptscotcherr -lscotch -lscotcherr"
"$cc" -shared -o "$staged/lib/libzoltan.so.3" -Wl,-soname,libzoltan.so.3 \
  -Wl,--whole-archive "$staged/lib/libzoltan.a" -Wl,--no-whole-archive \
  -L/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu) $tpl -lm ||
  die "cannot link libzoltan.so from libzoltan.a"
ln -sf libzoltan.so.3 "$staged/lib/libzoltan.so"
mkdir -p "$staged/bin"
cp "$prefix.build/src/driver/zdrive.exe" "$staged/bin/zdrive" 2>/dev/null ||
  cp "$prefix.build/src/zdrive.exe" "$staged/bin/zdrive" 2>/dev/null || true
echo "$want" > "$staged/.zoltan-plugins-build"
rm -rf "$prefix"
mv "$staged" "$prefix"
echo "build-zoltan: installed Zoltan ($mpi) into $prefix"
