#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The summary of scripts/conformance.sh.
# Usage: sh report.sh RESULTS TIMEOUTS WORK KNOWN CONFIGS
#   RESULTS   rows "config folder np package test verdict [reason]"
#   TIMEOUTS  rows "folder-path deck" of decks killed by the time limit
#   WORK      the work folder (cfgC/npN/FOLDER/output/*.outerr are read)
#   KNOWN     decks our driver deliberately fails: rows "folder test reason"
#   CONFIGS   the configurations that ran
# Prints pass/total per configuration, then every test that passes in 1
# and not in 2 or 3 (and any that passes in 2 but not in 1) with its reason:
# timeout, crash (a signal in the output), missing output, or diff.
# Exit status 0 when 2 passes exactly the tests 1 passes and 3 passes every
# test 1 passes apart from KNOWN; 1 otherwise.
set -eu
results=$1 timeouts=$2 work=$3 known=$4 configs=$5
awk -v work="$work" -v configs="$configs" -v timeouts="$timeouts" -v known="$known" '
  function reason_of(c, f, np, name, r,   dir, t, outerr, line, crashed) {
    dir = work "/cfg" c "/np" np "/" f
    t = name; sub(/^[^:]*:/, "", t)
    if ((dir " zdrive.inp." t) in timed_out) return "timeout"
    outerr = dir "/output/" substr(name, 1, index(name, ":") - 1) "." t "." np ".outerr"
    crashed = 0
    while ((getline line < outerr) > 0)
      if (line ~ /signal|Segmentation|core dumped|[Aa]bort/) crashed = 1
    close(outerr)
    if (crashed) return "crash"
    if (r ~ /Missing output/) return "missing output"
    if (r ~ /Diff failed/) return "diff"
    return r
  }
  BEGIN {
    while ((getline line < timeouts) > 0) timed_out[line] = 1
    while ((getline line < known) > 0) {
      if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
      split(line, k, " "); kw = line; sub(/^[^ ]+ [^ ]+ /, "", kw)
      is_known[k[1] " " k[2]] = kw
    }
    nc = split(configs, cs, " ")
  }
  {
    c = $1; key = $2 " " $3 " " $4 " " $5
    verdict[c, key] = $6
    r = ""; for (i = 7; i <= NF; i++) r = r (i > 7 ? " " : "") $i
    why[c, key] = r
    keys[key] = 1; folder[key] = $2; np[key] = $3; test[key] = $5
    total[c]++; if ($6 == "PASSED") pass[c]++
  }
  END {
    names[1] = "Zoltan'"'"'s zdrive"; names[2] = "Zoltan'"'"'s zdrive + our library preloaded"
    names[3] = "our driver"
    for (i = 1; i <= nc; i++)
      printf "configuration %d (%s): %d of %d passed\n", cs[i], names[cs[i]], pass[cs[i]] + 0, total[cs[i]] + 0
    bad = 0
    for (key in keys) {
      if (verdict[1, key] != "PASSED") {
        if (verdict[2, key] == "PASSED") { printf "  passes in 2 but not in 1: %s\n", key; bad = 1 }
        continue
      }
      for (c = 2; c <= 3; c++) {
        if (!((c, key) in verdict) || verdict[c, key] == "PASSED") continue
        t = test[key]; sub(/^[^:]*:/, "", t)
        r = reason_of(c, folder[key], np[key], test[key], why[c, key])
        if (c == 3 && ((folder[key] " " t) in is_known)) {
          printf "  known difference (3): %s: %s [%s]\n", key, r, is_known[folder[key] " " t]
          continue
        }
        printf "  passes in 1, not in %d: %s: %s\n", c, key, r
        bad = 1
      }
    }
    exit bad
  }' "$results"
