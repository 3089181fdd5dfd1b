#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The launcher Zoltan's harness is given by scripts/conformance.sh (its
# --mpiexec): runs the real mpiexec under a time limit, so that a deck that
# hangs is killed and the harness goes on with the next one, and records
# each time-out (folder and deck) in $ZP_CONF_TIMEOUTS.  Each job also gets
# an OpenMPI session folder of its own (see cmake/zp-mpiexec.in).
# Environment: ZP_CONF_MPIEXEC (the real launcher), ZP_CONF_DECK_TIMEOUT
# (seconds), ZP_CONF_TIMEOUTS (file), ZP_CONF_SESSIONS (folder).
set -u
base="${ZP_CONF_SESSIONS:-${TMPDIR:-/tmp}}/$$"
mkdir -p "$base"
OMPI_MCA_orte_tmpdir_base=$base
export OMPI_MCA_orte_tmpdir_base
timeout -k 10 "${ZP_CONF_DECK_TIMEOUT:-120}" "${ZP_CONF_MPIEXEC:-mpiexec}" "$@"
rc=$?
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  # The deck is the last argument.
  for deck in "$@"; do :; done
  echo "$PWD $deck" >> "${ZP_CONF_TIMEOUTS:-/dev/null}"
fi
rm -rf "$base"
exit "$rc"
