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
