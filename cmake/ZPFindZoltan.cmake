# SPDX-License-Identifier: BSD-3-Clause
# Finds Zoltan and the MPI it was built with, and refuses a different MPI.
#
# Defines:
#   zp::zoltan            imported target (headers + library + its TPLs)
#   ZP_ZOLTAN_LIBRARY     the Zoltan library file
#   ZP_ZOLTAN_STATIC      TRUE when Zoltan is a static archive
#   ZP_MPI_FLAVOR         OpenMPI or MPICH (the MPI of the build)
#   MPIEXEC_EXECUTABLE    the matching launcher (from FindMPI)
include(CheckSymbolExists)

if(ZOLTAN_ROOT)
  find_path(ZP_ZOLTAN_INCLUDE zoltan.h PATHS ${ZOLTAN_ROOT}/include NO_DEFAULT_PATH)
  find_library(ZP_ZOLTAN_LIBRARY NAMES zoltan trilinos_zoltan
               PATHS ${ZOLTAN_ROOT}/lib ${ZOLTAN_ROOT}/lib64 NO_DEFAULT_PATH)
  if(NOT ZP_ZOLTAN_INCLUDE OR NOT ZP_ZOLTAN_LIBRARY)
    message(FATAL_ERROR "ZOLTAN_ROOT=${ZOLTAN_ROOT}: expected include/zoltan.h and lib/libzoltan.a (or .so) there")
  endif()
  set(_zp_zoltan_incs ${ZP_ZOLTAN_INCLUDE})
  set(_zp_zoltan_tpls "")
else()
  find_package(Zoltan CONFIG QUIET)
  if(NOT Zoltan_FOUND)
    message(FATAL_ERROR
      "Zoltan not found. On Debian: apt-get install libtrilinos-zoltan-dev "
      "(its CMake package is in /usr/lib/x86_64-linux-gnu/cmake/Zoltan), "
      "or set ZOLTAN_ROOT to a standalone Zoltan install.")
  endif()
  set(_zp_zoltan_incs ${Zoltan_INCLUDE_DIRS} ${Zoltan_TPL_INCLUDE_DIRS})
  find_library(ZP_ZOLTAN_LIBRARY NAMES ${Zoltan_LIBRARIES} PATHS ${Zoltan_LIBRARY_DIRS} NO_DEFAULT_PATH)
  if(NOT ZP_ZOLTAN_LIBRARY)
    message(FATAL_ERROR "Zoltan's CMake package names ${Zoltan_LIBRARIES} in ${Zoltan_LIBRARY_DIRS}, but no such library is there")
  endif()
  set(_zp_zoltan_tpls ${Zoltan_TPL_LIBRARIES})
endif()
get_filename_component(_zp_zoltan_real "${ZP_ZOLTAN_LIBRARY}" REALPATH)
if(_zp_zoltan_real MATCHES "\\.a$")
  set(ZP_ZOLTAN_STATIC TRUE)
else()
  set(ZP_ZOLTAN_STATIC FALSE)
endif()

find_package(MPI REQUIRED COMPONENTS C)

# Which MPI do our compile flags give?
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
check_symbol_exists(OPEN_MPI "mpi.h" ZP_HAVE_OPEN_MPI)
check_symbol_exists(MPICH "mpi.h" ZP_HAVE_MPICH)
unset(CMAKE_REQUIRED_LIBRARIES)
if(ZP_HAVE_OPEN_MPI)
  set(ZP_MPI_FLAVOR OpenMPI)
elseif(ZP_HAVE_MPICH)
  set(ZP_MPI_FLAVOR MPICH)
else()
  set(ZP_MPI_FLAVOR unknown)
endif()

# Which MPI was Zoltan built with?  A shared Zoltan names its MPI library in
# its dynamic section; a static one references OpenMPI's ompi_* symbols or not.
set(_zp_zoltan_mpi unknown)
if(NOT ZP_ZOLTAN_STATIC)
  find_program(ZP_OBJDUMP NAMES objdump ${CMAKE_OBJDUMP})
  execute_process(COMMAND ${ZP_OBJDUMP} -p "${_zp_zoltan_real}"
                  OUTPUT_VARIABLE _zp_dyn ERROR_QUIET)
  if(_zp_dyn MATCHES "NEEDED +libmpich")
    set(_zp_zoltan_mpi MPICH)
  elseif(_zp_dyn MATCHES "NEEDED +libmpi\\.so")
    set(_zp_zoltan_mpi OpenMPI)
  endif()
else()
  find_program(ZP_NM NAMES nm ${CMAKE_NM})
  execute_process(COMMAND ${ZP_NM} -u "${_zp_zoltan_real}" OUTPUT_VARIABLE _zp_undef ERROR_QUIET)
  if(_zp_undef MATCHES "ompi_")
    set(_zp_zoltan_mpi OpenMPI)
  elseif(_zp_undef MATCHES "MPI_")
    set(_zp_zoltan_mpi MPICH)
  endif()
endif()
if(NOT _zp_zoltan_mpi STREQUAL "unknown" AND NOT _zp_zoltan_mpi STREQUAL ZP_MPI_FLAVOR)
  message(FATAL_ERROR
    "MPI mismatch: Zoltan (${_zp_zoltan_real}) was built with ${_zp_zoltan_mpi}, "
    "but this build would use ${ZP_MPI_FLAVOR} (${MPI_C_LIBRARIES}). Mixing two MPIs in one "
    "binary crashes at run time. Configure with the MPI Zoltan uses, e.g. "
    "-DMPI_C_COMPILER=/usr/bin/mpicc.openmpi (OpenMPI) or /usr/bin/mpicc.mpich (MPICH).")
endif()
# The launcher must be the build MPI's own: on a machine with both MPIs,
# FindMPI may pick the system default `mpiexec` (an alternative that points
# at OpenMPI on Debian) for an MPICH build.  Hydra (MPICH) and ORTE (OpenMPI)
# say who they are in --version.
if(MPIEXEC_EXECUTABLE AND NOT ZP_MPI_FLAVOR STREQUAL "unknown")
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _zp_launcher_v
                  ERROR_VARIABLE _zp_launcher_v TIMEOUT 20)
  set(_zp_launcher_ok TRUE)
  if(ZP_MPI_FLAVOR STREQUAL "MPICH" AND NOT _zp_launcher_v MATCHES "HYDRA")
    set(_zp_launcher_ok FALSE)
    set(_zp_launcher_name mpiexec.mpich)
  elseif(ZP_MPI_FLAVOR STREQUAL "OpenMPI" AND NOT _zp_launcher_v MATCHES "Open MPI|OpenRTE")
    set(_zp_launcher_ok FALSE)
    set(_zp_launcher_name mpiexec.openmpi)
  endif()
  if(NOT _zp_launcher_ok)
    find_program(_zp_launcher NAMES ${_zp_launcher_name} NO_CACHE)
    if(NOT _zp_launcher)
      message(FATAL_ERROR "MPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE} is not ${ZP_MPI_FLAVOR}'s launcher "
                          "and ${_zp_launcher_name} was not found: pass -DMPIEXEC_EXECUTABLE=<${ZP_MPI_FLAVOR}'s mpiexec>")
    endif()
    message(STATUS "MPI launcher: ${MPIEXEC_EXECUTABLE} is not ${ZP_MPI_FLAVOR}'s; using ${_zp_launcher}")
    set(MPIEXEC_EXECUTABLE ${_zp_launcher} CACHE FILEPATH "MPI launcher" FORCE)
  endif()
endif()
message(STATUS "Zoltan: ${_zp_zoltan_real} (MPI: ${_zp_zoltan_mpi}); build MPI: ${ZP_MPI_FLAVOR}")

add_library(zp::zoltan INTERFACE IMPORTED)
target_include_directories(zp::zoltan INTERFACE ${_zp_zoltan_incs})
target_link_libraries(zp::zoltan INTERFACE ${ZP_ZOLTAN_LIBRARY} ${_zp_zoltan_tpls} MPI::MPI_C m)
