# SPDX-License-Identifier: BSD-3-Clause
# Sourced by test.sh and demo.sh: turns ZP_MPI (openmpi, the default, or
# mpich) into the packages to install and the CMake arguments of the build.
# OpenMPI uses Debian's Zoltan; MPICH uses a Zoltan built from Debian's
# source package by scripts/build-zoltan.sh into $zp_build/zoltan-mpich,
# built once and kept with the build folder.  Sets zp_mpi, zp_cmake_mpi_args
# and exports ZP_EXTRA_PACKAGES; call zp_prepare_zoltan after deps.sh.
zp_mpi=${ZP_MPI:-openmpi}
# One copy of Zoltan's sources for every build folder: the MPICH Zoltan's
# build and the conformance test (Zoltan's own harness) both read it.
ZP_ZOLTAN_SRC_CACHE=${ZP_ZOLTAN_SRC_CACHE:-$PWD/build-cache/zoltan-src}
export ZP_ZOLTAN_SRC_CACHE
zp_cmake_mpi_args=""
case $zp_mpi in
  openmpi) ;;
  mpich) ZP_EXTRA_PACKAGES="${ZP_EXTRA_PACKAGES:-} mpich libmpich-dev perl"; export ZP_EXTRA_PACKAGES ;;
  *) echo "ZP_MPI=$zp_mpi: expected openmpi or mpich" >&2; exit 2 ;;
esac
zp_prepare_zoltan() {
  # $1: the build folder (absolute).
  if [ "$zp_mpi" = mpich ]; then
    sh scripts/build-zoltan.sh mpich "$1/zoltan-mpich"
    zp_cmake_mpi_args="-DZOLTAN_ROOT=$1/zoltan-mpich -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich"
  fi
}
