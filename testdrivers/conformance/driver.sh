#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The zdrive that Zoltan's harness runs in one configuration of
# scripts/conformance.sh (its --zdrive): ZP_CONF_DRIVER with our library
# preloaded when ZP_CONF_PRELOAD names it.  The harness starts a 1-rank deck
# without mpiexec, so this script then applies the per-deck time limit that
# launch.sh applies to parallel decks.
set -u
if [ -n "${ZP_CONF_PRELOAD:-}" ]; then
  LD_PRELOAD=$ZP_CONF_PRELOAD
  export LD_PRELOAD
fi
if [ -z "${OMPI_COMM_WORLD_SIZE:-}${PMI_SIZE:-}" ]; then
  timeout -k 10 "${ZP_CONF_DECK_TIMEOUT:-120}" "$ZP_CONF_DRIVER" "$@"
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    for deck in "$@"; do :; done
    echo "$PWD $deck" >> "${ZP_CONF_TIMEOUTS:-/dev/null}"
  fi
  exit "$rc"
fi
exec "$ZP_CONF_DRIVER" "$@"
