# SPDX-License-Identifier: BSD-3-Clause
# Test helpers: cmocka unit tests and MPI tests registered once per rank count.

# Launcher flags: OpenMPI refuses root and more ranks than cores unless told.
set(ZP_MPIEXEC_FLAGS "" CACHE STRING "Extra flags for mpiexec in tests")
if(ZP_MPI_FLAVOR STREQUAL "OpenMPI")
  set(_zp_mpi_default_flags --oversubscribe --bind-to none)
else()
  set(_zp_mpi_default_flags "")
endif()
# OpenMPI: tests and benchmarks launch through a wrapper that gives each job
# its own session folder (cmake/zp-mpiexec.in says why).  It shadows the
# cached MPIEXEC_EXECUTABLE for the rest of the configuration, so every
# test registration uses it without naming it.
if(ZP_MPI_FLAVOR STREQUAL "OpenMPI" AND MPIEXEC_EXECUTABLE)
  set(ZP_REAL_MPIEXEC ${MPIEXEC_EXECUTABLE})
  set(ZP_MPI_SESSION_ROOT ${PROJECT_BINARY_DIR}/mpi-sessions)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/zp-mpiexec.in ${PROJECT_BINARY_DIR}/zp-mpiexec @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
  set(MPIEXEC_EXECUTABLE ${PROJECT_BINARY_DIR}/zp-mpiexec)
endif()
# Every test runs on one machine, so OpenMPI needs only its shared-memory
# transport: choosing it (ob1 with self and vader, no OFI or UCX components)
# spares each launch the probing of network libraries, about a third of
# MPI_Init's time on 2 cores (0.70 s -> 0.48 s for 4 ranks), and the suite
# launches MPI about 1 500 times.  MPICH ignores these variables.
# ZOLTAN_PLUGINS_GUARD=1: every test runs with the guard of Zoltan's own
# methods on (off by default for its cost), so that the native identity
# tests, Zoltan's decks and the conformance harness check that it changes
# no answer; plugin_native_identity_unguarded checks the default.
# ZOLTAN_PLUGINS_CHECK_AGREED=1: the steps of a call that skip their
# agreement, since they return the same code on every rank (zp_step_agreed),
# are checked with a reduction in every test, bad-input and fault tests
# included, so that a code that differs between ranks fails the test
# instead of hanging a later collective.
set(ZP_TEST_ENV "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_pml=ob1;OMPI_MCA_btl=self,vader;OMPI_MCA_mtl=^ofi;OMPI_MCA_osc=^ucx;ZOLTAN_PLUGINS_GUARD=1;ZOLTAN_PLUGINS_CHECK_AGREED=1")

find_path(CMOCKA_INCLUDE_DIR cmocka.h)
find_library(CMOCKA_LIBRARY cmocka)

# zp_add_unit_test(NAME name SOURCES ... [LIBS ...])
function(zp_add_unit_test)
  cmake_parse_arguments(A "" "NAME" "SOURCES;LIBS" ${ARGN})
  if(NOT CMOCKA_INCLUDE_DIR OR NOT CMOCKA_LIBRARY)
    message(FATAL_ERROR "cmocka not found (apt-get install libcmocka-dev)")
  endif()
  add_executable(${A_NAME} ${A_SOURCES})
  target_include_directories(${A_NAME} PRIVATE ${CMOCKA_INCLUDE_DIR})
  target_link_libraries(${A_NAME} PRIVATE ${A_LIBS} ${CMOCKA_LIBRARY} m)
  add_test(NAME ${A_NAME} COMMAND ${A_NAME})
  set_tests_properties(${A_NAME} PROPERTIES LABELS "unit" TIMEOUT 120)
endfunction()

# zp_add_mpi_test(NAME base COMMAND exe [args...] RANKS 1 2 3 4 [LABELS ...] [TIMEOUT s] [ENV ...])
# Registers base_np<N> for each rank count.
function(zp_add_mpi_test)
  cmake_parse_arguments(A "" "NAME;TIMEOUT" "COMMAND;RANKS;LABELS;ENV" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  foreach(np IN LISTS A_RANKS)
    set(t ${A_NAME}_np${np})
    add_test(NAME ${t}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
                     ${_zp_mpi_default_flags} ${ZP_MPIEXEC_FLAGS} ${A_COMMAND})
    set_tests_properties(${t} PROPERTIES LABELS "mpi;${A_LABELS}" TIMEOUT ${A_TIMEOUT}
                         PROCESSORS ${np} ENVIRONMENT "${ZP_TEST_ENV};${A_ENV}")
  endforeach()
endfunction()

# zp_add_skipped_test(NAME name REASON text [LABELS ...])
# Registers a test that this configuration cannot run as one that reports
# SKIPPED with the reason (exit 77), so that every configuration lists the
# same tests and none disappears silently (the MPICH build, a Zoltan from
# ZOLTAN_ROOT, a machine without pyzoltan).
function(zp_add_skipped_test)
  cmake_parse_arguments(A "" "NAME;REASON" "LABELS" ${ARGN})
  string(REPLACE "'" "" _why "${A_REASON}")
  add_test(NAME ${A_NAME} COMMAND sh -c "echo 'SKIPPED: ${_why}'; exit 77")
  set_tests_properties(${A_NAME} PROPERTIES LABELS "${A_LABELS}" SKIP_RETURN_CODE 77)
endfunction()
