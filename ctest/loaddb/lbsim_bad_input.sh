#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Usage: lbsim_bad_input.sh LBSIM
# zp_lbsim refuses bad files and options with exit status 2 and a message
# that names the line or the value, and never reports a result for them.
set -eu
lbsim=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/zp_lbsim_bad.XXXXXX")
trap 'rm -rf "$dir"' EXIT
good='ZPDUMP 1
balance 1 method RCB ranks 1 parts 2 ngid 1 wdim 1 gdim 0 edim 0 objects 2 edges 0
tol 1.1
sizes 0 0.5 0.5
o 1 0 0 1 0
o 2 0 0 3 0
end'
printf '%s\n' "$good" > "$dir/good.dump"
fails=0
# The weights 1 and 3 on two parts: the best answer has max/avg 3 / 2.
# expect NAME STATUS REGEX ARGS...: run zp_lbsim with ARGS, require STATUS and REGEX in its output.
expect() {
  name=$1 want=$2 regex=$3
  shift 3
  set +e
  "$lbsim" "$@" > "$dir/out" 2>&1
  got=$?
  set -e
  if [ "$got" -ne "$want" ] || ! grep -Eq -e "$regex" "$dir/out"; then
    echo "FAIL: $name: status $got (want $want), output:"
    cat "$dir/out"
    fails=$((fails + 1))
  else
    echo "ok: $name"
  fi
}
expect good 0 "GREEDY +1\\.5000 +1 " "$dir/good.dump" --methods GREEDY
printf '%s\n' "$good" | sed 's/ZPDUMP 1/ZPDUMP 2/' > "$dir/v2.dump"
expect version 2 'line 1: version 2' "$dir/v2.dump"
printf '%s\n' "$good" | sed 's/^o 2 0 0 3 0/o 1 0 0 3 0/' > "$dir/dup.dump"
expect duplicate_gid 2 'line 6: global IDs must increase' "$dir/dup.dump"
printf '%s\n' "$good" | sed 's/^o 2 0 0 3 0/o 2 0 0 nan 0/' > "$dir/nan.dump"
expect nan_weight 2 "line 6: weight = 'nan'" "$dir/nan.dump"
printf '%s\n' "$good" | sed '$d' > "$dir/cut.dump"
expect truncated 2 "'end' missing" "$dir/cut.dump"
expect missing_file 2 "cannot open '$dir/none.dump'" "$dir/none.dump"
expect bad_parts 2 "--parts 'x' is not a number" "$dir/good.dump" --parts x
expect zero_parts 2 "--parts '0' is not a number in \[1," "$dir/good.dump" --parts 0
expect negative_cost 2 "--comm-cost '-1' is not a number" "$dir/good.dump" --comm-cost -1
expect unknown_method 1 "UNKNOWN_METHOD_X" "$dir/good.dump" --methods UNKNOWN_METHOD_X
[ "$fails" -eq 0 ] || exit 1
echo "PASS: zp_lbsim refuses every bad input"
