#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# preload_run.sh LIB PROGRAM ARGS...: run PROGRAM with LIB preloaded, as a
# user would start an unmodified application with LD_PRELOAD.  Used per rank
# under mpiexec, so that mpiexec itself is not preloaded.
lib=$1
shift
LD_PRELOAD=$lib exec "$@"
