#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages the project needs, only those missing.
# Needs root (or sudo) and Debian's package archive; does nothing when all
# packages are present.  The Trilinos packages after g++ serve the Zoltan2
# example only (examples/zoltan2_loop.cpp): about 10 MB to download, seconds
# to install.
set -eu
pkgs="cmake make gcc pkg-config libtrilinos-zoltan-dev libopenmpi-dev openmpi-bin libscotch-dev libptscotch-dev
libcmocka-dev gnuplot-nox clang-format python3-pyzoltan python3-mpi4py g++
libtrilinos-zoltan2-dev libtrilinos-teuchos-dev libtrilinos-tpetra-dev libtrilinos-xpetra-dev
libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libtrilinos-epetra-dev ${ZP_EXTRA_PACKAGES:-}"
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
