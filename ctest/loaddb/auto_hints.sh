#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Usage: auto_hints.sh NP MPIEXEC [FLAGS...] -- APP
# LB_METHOD=AUTO and LB_HINTS_FILE: the first run tries the candidates and
# writes the hints; the second reads them, uses their method without trying
# the others and gives the same assignment; a corrupt hints file is a
# warning naming the line, after which the candidates are tried and the
# balance is the same; a hints file whose method needs coordinates the
# problem has not is not used, and says so; a trigger attached with
# ADAPTIVE_POLICY=AUTO takes the policy of the decision or of the hints,
# one with another policy keeps it.
set -eu
. "$(dirname "$0")/../common/launcher_args.sh"
app=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/zp_auto_hints.XXXXXX")
trap 'rm -rf "$dir"' EXIT
run() { # run NAME ARGS...: the application on np ranks, output in $dir/NAME.log
  name=$1
  shift
  # shellcheck disable=SC2086
  $launcher -n "$np" "$app" --method AUTO --source MEASURED --expect-max 1.1 \
    --param "LB_HINTS_FILE=$dir/run.hints" --param DEBUG_LEVEL=1 "$@" > "$dir/$name.log" 2>&1 ||
    { cat "$dir/$name.log"; echo "FAIL: run $name"; exit 1; }
}
fail() { echo "FAIL: $*"; exit 1; }
run first --assign "$dir/first.txt"
grep -q "does not exist yet: the candidates are tried" "$dir/first.log" || fail "first run: no note"
# One line per rule that fired, in order (the application has coordinates
# and a chain graph).
rules=$(sed -n 's/^ZOLTAN AUTO: \(R[0-9]\) .*/\1/p' "$dir/first.log" | tr '\n' ' ')
[ "$rules" = "R2 R3 R4 R5 R6 " ] || { cat "$dir/first.log"; fail "first run: rules '$rules'"; }
grep -q "ZOLTAN AUTO: R3 coordinates: RCB, HSFC" "$dir/first.log" || fail "first run: no R3 line"
grep -q '^ZPHINTS 1$' "$dir/run.hints" || fail "no hints written"
method=$(sed -n 's/^method //p' "$dir/run.hints")
[ -n "$method" ] || fail "hints without a method"
policy=$(sed -n 's/^policy //p' "$dir/run.hints")
[ -n "$policy" ] || fail "hints without a policy"
grep -q "^zp_loaddb_app: trigger policy ZHAI$" "$dir/first.log" || {
  cat "$dir/first.log"; fail "ADAPTIVE_POLICY left at ZHAI changed"; }
# ADAPTIVE_POLICY=AUTO follows the policy of the decision: ULBA when a
# twentieth of the objects grows by half a step (rule R6).
cp "$dir/run.hints" "$dir/keep.hints"
rm -f "$dir/run.hints"
run firstauto --trigger-param ADAPTIVE_POLICY=AUTO --steps 4 --grow 0.5 --expect-max 100
grep -q "^zp_loaddb_app: trigger policy ULBA$" "$dir/firstauto.log" || {
  cat "$dir/firstauto.log"; fail "ADAPTIVE_POLICY=AUTO did not follow the decision (ULBA)"; }
grep -q "^policy ULBA$" "$dir/run.hints" || fail "the growing run's hints do not say ULBA"
# ... and the policy of a hints file (ULBA written into it): the trigger
# switches, while a trigger given ZHAI keeps it.
sed 's/^policy .*/policy ULBA/' "$dir/keep.hints" > "$dir/run.hints"
run hintauto --trigger-param ADAPTIVE_POLICY=AUTO --trigger-param ADAPTIVE_DEBUG_LEVEL=1
grep -q "^zp_loaddb_app: trigger policy ULBA$" "$dir/hintauto.log" || {
  cat "$dir/hintauto.log"; fail "ADAPTIVE_POLICY=AUTO did not follow the hinted ULBA"; }
grep -q "^ADAPTIVE policy ULBA, as LB_METHOD=AUTO advised" "$dir/hintauto.log" || {
  cat "$dir/hintauto.log"; fail "no line for the switch"; }
run hintzhai --trigger-param ADAPTIVE_POLICY=ZHAI
grep -q "^zp_loaddb_app: trigger policy ZHAI$" "$dir/hintzhai.log" || {
  cat "$dir/hintzhai.log"; fail "ADAPTIVE_POLICY=ZHAI followed the hints"; }
cp "$dir/keep.hints" "$dir/run.hints"
run second --assign "$dir/second.txt"
grep -q "hints from the same problem size: method $method" "$dir/second.log" || {
  cat "$dir/second.log"; fail "second run did not use the hints"; }
if grep -q "ZOLTAN AUTO: R5 " "$dir/second.log"; then fail "second run tried the candidates"; fi
cmp -s "$dir/first.txt" "$dir/second.txt" || fail "the hinted run gave another assignment"
# Corrupt: the version line changed.
sed 's/^ZPHINTS 1$/ZPHINTS 2/' "$dir/run.hints" > "$dir/bad" && mv "$dir/bad" "$dir/run.hints"
run corrupt --assign "$dir/corrupt.txt"
grep -q "WARNING.*LB_HINTS_FILE '$dir/run.hints': line 1: version" "$dir/corrupt.log" || {
  cat "$dir/corrupt.log"; fail "no warning for a corrupt hints file"; }
grep -q "ZOLTAN AUTO: R5 " "$dir/corrupt.log" || fail "corrupt hints: candidates not tried"
cmp -s "$dir/first.txt" "$dir/corrupt.txt" || fail "corrupt hints changed the assignment"
# A method that needs coordinates, for a problem without them.
sed "s/^method .*/method RCB/; s/^geometry .*/geometry 1/" "$dir/run.hints" |
  sed 's/^ZPHINTS 2$/ZPHINTS 1/' > "$dir/bad" && mv "$dir/bad" "$dir/run.hints"
run nogeom --no-geom
grep -q "hints: RCB needs coordinates, which this problem has not; not used" "$dir/nogeom.log" || {
  cat "$dir/nogeom.log"; fail "RCB hints used without coordinates"; }
echo "PASS: AUTO hints on $np ranks (method $method)"
