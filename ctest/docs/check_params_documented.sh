#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_params_documented.sh ZP_METHODS DOC: every registered method and
# parameter name (from the code) must appear in the parameter reference.
# A failing or silent zp_methods fails the check: an empty list would
# otherwise pass as "everything documented".
names=$("$1" --names) || { echo "$1 --names exited with status $?"; exit 1; }
[ -n "$names" ] || { echo "$1 --names printed no name"; exit 1; }
status=0
for n in $names; do
  grep -q "\`$n\`\|LB_METHOD=$n" "$2" || { echo "not documented in $2: $n"; status=1; }
done
[ $status -eq 0 ] && echo "all $(echo "$names" | wc -l) method and parameter names are documented"
exit $status
