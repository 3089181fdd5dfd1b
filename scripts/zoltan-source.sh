#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Fetches Zoltan's sources from Debian's trilinos source package (the same
# release as libtrilinos-zoltan-dev) and extracts packages/zoltan into a cache.
#
# Usage: sh scripts/zoltan-source.sh CACHE_DIR
# Prints the path of the extracted packages/zoltan folder on stdout and exits 0,
# or prints one line saying why on stderr and exits 1.  Idempotent: a second call
# with the same CACHE_DIR prints the path without fetching anything.
#
# It adds a deb-src entry for the suites of the machine's own Debian sources
# (deb822 file /etc/apt/sources.list.d/zoltan-plugins-src.sources) when none
# exists, runs apt-get update once, and downloads the package with
# `apt-get source --download-only` (the tarball is about 170 MB); only
# packages/zoltan is extracted (about 220 MB).
set -eu
cache=${1:?usage: sh scripts/zoltan-source.sh CACHE_DIR}
die() { echo "zoltan-source: $*" >&2; exit 1; }
mkdir -p "$cache" 2>/dev/null || die "cannot create $cache"
cache=$(cd "$cache" && pwd)
done_mark="$cache/.zoltan-source-complete"
if [ -f "$done_mark" ]; then
  cat "$done_mark"
  exit 0
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this needs a Debian machine (or set the cache by hand)"
# Debian's trilinos version, so that the sources match the installed Zoltan.
want=$(dpkg-query -W -f='${source:Version}' libtrilinos-zoltan-dev 2>/dev/null || true)
if ! apt-get source --print-uris trilinos >/dev/null 2>&1 ||
   [ -z "$(apt-get source --print-uris trilinos 2>/dev/null | grep -m1 orig)" ]; then
  # No deb-src entry yet: add one for the suites the binary packages come from.
  suites=$(grep -h '^Suites:' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1 | sed 's/^Suites:[[:space:]]*//')
  uris=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -m1 debian/\\?$ | sed 's/^URIs:[[:space:]]*//')
  if [ -z "$suites" ]; then
    line=$(grep -hE '^deb[[:space:]]' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
    [ -n "$line" ] || die "no Debian package source found in /etc/apt to derive a deb-src entry from"
    uris=$(echo "$line" | awk '{print $2}')
    suites=$(echo "$line" | awk '{print $3}')
  fi
  [ -n "$uris" ] || uris=http://deb.debian.org/debian
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uris" "$suites" | $sudo tee /etc/apt/sources.list.d/zoltan-plugins-src.sources >/dev/null ||
    die "cannot write /etc/apt/sources.list.d/zoltan-plugins-src.sources (need root)"
  $sudo apt-get update -qq >/dev/null 2>&1 || die "apt-get update failed (no access to Debian's archive?)"
fi
spec=trilinos
[ -n "$want" ] && spec="trilinos=$want"
dl="$cache/download"
mkdir -p "$dl"
if ! ls "$dl"/trilinos_*.orig.tar.* >/dev/null 2>&1; then
  (cd "$dl" && apt-get source --download-only -qq "$spec" >/dev/null 2>&1) ||
    (cd "$dl" && apt-get source --download-only -qq trilinos >/dev/null 2>&1) ||
    die "apt-get source trilinos failed (no deb-src access to Debian's archive?)"
fi
tarball=$(ls "$dl"/trilinos_*.orig.tar.* | head -n 1)
top=$(tar tzf "$tarball" 2>/dev/null | head -n 1 | cut -d/ -f1) || die "cannot read $tarball"
[ -n "$top" ] || die "$tarball is empty or corrupt"
rm -rf "$cache/src.partial"
mkdir -p "$cache/src.partial"
tar xzf "$tarball" -C "$cache/src.partial" "$top/packages/zoltan/" || die "cannot extract packages/zoltan from $tarball"
rm -rf "$cache/src"
mv "$cache/src.partial" "$cache/src"
zdir="$cache/src/$top/packages/zoltan"
[ -f "$zdir/test/ctest_zoltan.pl" ] || die "$tarball has no packages/zoltan/test/ctest_zoltan.pl"
echo "$zdir" > "$done_mark"
# The tarball is no longer needed once extracted.
rm -f "$dl"/trilinos_*
echo "$zdir"
