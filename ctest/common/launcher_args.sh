# SPDX-License-Identifier: BSD-3-Clause
# Sourced (". launcher_args.sh") by the identity scripts, whose arguments
# start with "NP MPIEXEC-AND-FLAGS... --": sets np and launcher and shifts
# those arguments away, leaving the script's own in "$@".  A dot script
# shares the caller's positional parameters, so its shifts are the caller's.
np=$1
shift
launcher=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  launcher="$launcher $1"
  shift
done
[ $# -gt 0 ] || { echo "FAIL: no -- after the launcher"; exit 2; }
shift
