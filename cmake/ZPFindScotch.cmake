# SPDX-License-Identifier: BSD-3-Clause
# Finds the serial Scotch library that LB_METHOD=SCOTCH calls directly.
#
# Serial Scotch has no MPI inside, so the same library serves every MPI
# build.  The error-handling library must be libscotcherr (print and
# return), never libscotcherrexit: the plugin library may not exit.
#
# Defines:
#   ZP_SCOTCH_INCLUDE_DIR   folder of scotch.h
#   ZP_SCOTCH_LIBRARIES     libscotch and libscotcherr (absolute paths)
#   SCOTCH_ROOT (cache)     a prefix to look in first
set(SCOTCH_ROOT "" CACHE PATH "Prefix of a Scotch install (include/scotch.h, lib/libscotch); empty = system folders")
find_path(ZP_SCOTCH_INCLUDE_DIR scotch.h
          HINTS ${SCOTCH_ROOT}/include ${SCOTCH_ROOT}/include/scotch
          PATH_SUFFIXES scotch)
find_library(ZP_SCOTCH_LIBRARY NAMES scotch HINTS ${SCOTCH_ROOT}/lib ${SCOTCH_ROOT}/lib64)
find_library(ZP_SCOTCHERR_LIBRARY NAMES scotcherr HINTS ${SCOTCH_ROOT}/lib ${SCOTCH_ROOT}/lib64)
if(NOT ZP_SCOTCH_INCLUDE_DIR OR NOT ZP_SCOTCH_LIBRARY OR NOT ZP_SCOTCHERR_LIBRARY)
  message(FATAL_ERROR
    "Scotch not found (scotch.h: ${ZP_SCOTCH_INCLUDE_DIR}, libscotch: ${ZP_SCOTCH_LIBRARY}, "
    "libscotcherr: ${ZP_SCOTCHERR_LIBRARY}). LB_METHOD=SCOTCH needs it: on Debian, "
    "apt-get install libscotch-dev; elsewhere pass -DSCOTCH_ROOT=<prefix>.")
endif()
# The integer width of this Scotch, for the configure log.
file(STRINGS "${ZP_SCOTCH_INCLUDE_DIR}/scotch.h" _zp_scotch_num REGEX "typedef .* SCOTCH_Num;")
set(ZP_SCOTCH_LIBRARIES ${ZP_SCOTCH_LIBRARY} ${ZP_SCOTCHERR_LIBRARY})
find_package(Threads QUIET)
if(Threads_FOUND)
  list(APPEND ZP_SCOTCH_LIBRARIES ${CMAKE_THREAD_LIBS_INIT})
endif()
message(STATUS "Scotch: ${ZP_SCOTCH_LIBRARY} (${_zp_scotch_num})")

# PT-Scotch, for SCOTCHLB's parallel path (LB_APPROACH=PARTITION above
# SCOTCHLB_PARALLEL_MIN objects).  Optional: without it, or when it was
# built with another MPI than this build's (Debian's is built with OpenMPI,
# so the MPICH build goes without it), SCOTCHLB always gathers.
#   ZP_HAVE_PTSCOTCH        TRUE when the parallel path is built
#   ZP_PTSCOTCH_LIBRARIES   libptscotch and libptscotcherr (absolute paths)
option(ZP_WITH_PTSCOTCH "Build SCOTCHLB's PT-Scotch path when PT-Scotch matches this build's MPI" ON)
set(ZP_HAVE_PTSCOTCH FALSE)
if(ZP_WITH_PTSCOTCH)
  find_path(ZP_PTSCOTCH_INCLUDE_DIR ptscotch.h
            HINTS ${SCOTCH_ROOT}/include ${SCOTCH_ROOT}/include/scotch PATH_SUFFIXES scotch)
  find_library(ZP_PTSCOTCH_LIBRARY NAMES ptscotch HINTS ${SCOTCH_ROOT}/lib ${SCOTCH_ROOT}/lib64)
  find_library(ZP_PTSCOTCHERR_LIBRARY NAMES ptscotcherr HINTS ${SCOTCH_ROOT}/lib ${SCOTCH_ROOT}/lib64)
  set(_zp_pts_mpi unknown)
  if(ZP_PTSCOTCH_INCLUDE_DIR AND ZP_PTSCOTCH_LIBRARY AND ZP_PTSCOTCHERR_LIBRARY)
    get_filename_component(_zp_pts_real "${ZP_PTSCOTCH_LIBRARY}" REALPATH)
    find_program(ZP_OBJDUMP NAMES objdump ${CMAKE_OBJDUMP})
    execute_process(COMMAND ${ZP_OBJDUMP} -p "${_zp_pts_real}" OUTPUT_VARIABLE _zp_pts_dyn
                    ERROR_QUIET)
    if(_zp_pts_dyn MATCHES "NEEDED +libmpich")
      set(_zp_pts_mpi MPICH)
    elseif(_zp_pts_dyn MATCHES "NEEDED +libmpi\\.so")
      set(_zp_pts_mpi OpenMPI)
    endif()
  endif()
  if(_zp_pts_mpi STREQUAL ZP_MPI_FLAVOR)
    set(ZP_HAVE_PTSCOTCH TRUE)
    set(ZP_PTSCOTCH_LIBRARIES ${ZP_PTSCOTCH_LIBRARY} ${ZP_PTSCOTCHERR_LIBRARY})
    message(STATUS "PT-Scotch: ${ZP_PTSCOTCH_LIBRARY} (${_zp_pts_mpi}): SCOTCHLB's parallel path on")
  else()
    message(STATUS "PT-Scotch: ${ZP_PTSCOTCH_LIBRARY} (MPI: ${_zp_pts_mpi}, this build: "
                   "${ZP_MPI_FLAVOR}): SCOTCHLB's parallel path off, SCOTCHLB always gathers")
  endif()
endif()
