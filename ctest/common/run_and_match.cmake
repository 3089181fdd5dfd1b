# SPDX-License-Identifier: BSD-3-Clause
# Runs a command and fails unless it exits with status 0 AND its output
# (stdout and stderr together) matches REGEX:
#   cmake -DREGEX=<regex> -P run_and_match.cmake -- <command> [args...]
# CTest's PASS_REGULAR_EXPRESSION alone ignores the exit status, so a
# program that prints the expected line and then fails (a check on another
# rank, a crash in MPI_Finalize) would pass; this wrapper checks both in one
# run.  The output is echoed so that a failing test shows it.  Arguments
# cannot contain a semicolon (CMake would split them into two).
if(NOT DEFINED REGEX OR REGEX STREQUAL "")
  message(FATAL_ERROR "run_and_match: give -DREGEX=<regex>")
endif()
set(_cmd "")
set(_seen_dashes FALSE)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(_i RANGE ${_last})
  if(_seen_dashes)
    list(APPEND _cmd "${CMAKE_ARGV${_i}}")
  elseif(CMAKE_ARGV${_i} STREQUAL "--")
    set(_seen_dashes TRUE)
  endif()
endforeach()
if(NOT _cmd)
  message(FATAL_ERROR "run_and_match: no command after --")
endif()
execute_process(COMMAND ${_cmd} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
message("${_out}")
if(NOT _rc STREQUAL "0")
  message(FATAL_ERROR "run_and_match: the command exited with status '${_rc}'")
endif()
if(NOT _out MATCHES "${REGEX}")
  message(FATAL_ERROR "run_and_match: the output does not match /${REGEX}/")
endif()
message(STATUS "run_and_match: exit status 0 and the output matches")
