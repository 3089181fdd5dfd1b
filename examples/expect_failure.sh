#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# expect_failure.sh PATTERN COMMAND...: the examples' checks can fail.  Runs COMMAND (an mpiexec
# line) and passes only when it exits non-zero, its summary says FAILED and its output matches
# PATTERN (grep -E), so that a crash elsewhere does not count as the check firing.
pattern=$1
shift
out=$("$@" 2>&1)
rc=$?
echo "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: exited 0, a check should have failed"; exit 1; }
echo "$out" | grep -q ': FAILED$' || { echo "FAIL: exit status $rc but no summary line ending in FAILED"; exit 1; }
echo "$out" | grep -Eq "$pattern" || { echo "FAIL: exit status $rc but no line matches /$pattern/"; exit 1; }
echo "ok: exit status $rc and /$pattern/ found"
