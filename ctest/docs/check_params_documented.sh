#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_params_documented.sh ZP_METHODS DOC: every registered method and
# parameter name (from the code) must appear in the parameter reference.
status=0
for n in $("$1" --names); do
  grep -q "\`$n\`\|LB_METHOD=$n" "$2" || { echo "not documented in $2: $n"; status=1; }
done
[ $status -eq 0 ] && echo "all $("$1" --names | wc -l) method and parameter names are documented"
exit $status
