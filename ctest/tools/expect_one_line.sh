#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# expect_one_line.sh RC REGEX CMD [ARGS...]
# Runs CMD and fails unless it exits with status RC and prints exactly one
# line (stdout and stderr together) that matches REGEX (grep -E).  The
# loader's own "ERROR: ld.so: ... from LD_PRELOAD cannot be preloaded"
# lines are left out: they come from the shell that starts CMD when the
# test gives a bad LD_PRELOAD on purpose, not from CMD.
want=$1 regex=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
lines=$(printf '%s\n' "$out" | grep -v '^ERROR: ld.so: object .* from LD_PRELOAD cannot be preloaded')
[ "$rc" -eq "$want" ] || { echo "FAIL: exit status $rc, expected $want"; exit 1; }
[ "$(printf '%s\n' "$lines" | wc -l)" -eq 1 ] && [ -n "$lines" ] || { echo "FAIL: expected one line of output"; exit 1; }
printf '%s\n' "$lines" | grep -q -E -- "$regex" || { echo "FAIL: the line does not match: $regex"; exit 1; }
echo "ok: exit $rc, one line matching $regex"
