#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# capacity_value_env.sh MPIEXEC [FLAGS...] -- APP [ARGS...]
# Starts three ranks as one MPMD job in which each rank gets its own
# ZOLTAN_PLUGINS_CAPACITY_VALUE (1, 2 and 4), as a launcher that sets a
# rank's speed through the environment would, and runs APP ARGS on each.
launcher=""
while [ "$1" != "--" ]; do launcher="$launcher $1"; shift; done
shift
exec $launcher -n 1 env ZOLTAN_PLUGINS_CAPACITY_VALUE=1 "$@" : \
  -n 1 env ZOLTAN_PLUGINS_CAPACITY_VALUE=2 "$@" : \
  -n 1 env ZOLTAN_PLUGINS_CAPACITY_VALUE=4 "$@"
