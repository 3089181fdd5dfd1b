#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages the project needs, only those missing.
# Needs root (or sudo) and Debian's package archive; does nothing when all
# packages are present.
set -eu
pkgs="cmake make gcc pkg-config libtrilinos-zoltan-dev libopenmpi-dev openmpi-bin libscotch-dev libptscotch-dev
libcmocka-dev gnuplot-nox clang-format python3-pyzoltan python3-mpi4py ${ZP_EXTRA_PACKAGES:-}"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "deps: installing:$missing"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
