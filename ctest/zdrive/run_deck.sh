#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs one zdrive deck in a scratch directory and compares the answer files
# with Zoltan's accepted answers the way Zoltan's harness (ctest_zoltan.pl)
# does: line by line after removing blanks, tabs and CR and upper-casing,
# with the same number of lines; every rank's file must exist; a .drops
# file, when written, must match its answer too.  This is a golden-file test
# on purpose: the point is compatibility with Zoltan's own answers.
#
# usage: run_deck.sh <data folder> <deck> <nprocs> <work dir> <zdrive> <mpiexec> [mpiexec args...]
set -u
data=$1 deck=$2 np=$3 work=$4 zdrive=$5
shift 5
launcher=("$@")

if [ ! -d "$data" ]; then
  echo "SKIPPED: Zoltan test data folder $data not found"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
# One ln for every input file: a fork per file cost more than the deck's run
# (the folders hold up to 80 files and the suite runs 360 decks).
links=()
for f in "$data"/*; do
  case "${f##*/}" in answers* | zdrive_hold_tests) continue ;; esac
  links+=("$f")
done
ln -s "${links[@]}" "$work/" || exit 1
cd "$work" || exit 1

# The harness names outputs after the folder, without its ch_/hg_/nem_ prefix.
dirname=$(basename "$data")
dirname=${dirname#ch_}; dirname=${dirname#hg_}; dirname=${dirname#nem_}
case_name=${deck#zdrive.inp.}

"${launcher[@]}" "$np" "$zdrive" "$deck" > run.log 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAILED: zdrive exited with status $rc; its output:"
  tail -n 40 run.log
  exit 1
fi

# Blanks, tabs and CR removed and upper-cased, in the shell's own process.
nowhite() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line//[$' \t\r']/}
    printf '%s\n' "${line^^}"
  done <"$1"
}
failed=0
for ((r = 0; r < np; r++)); do
  if [ "$np" -lt 10 ]; then rr=$r; else rr=$(printf %02d "$r"); fi
  out="$dirname.out.$np.$rr"
  ans="$data/answers/$dirname.$case_name.$np.$rr"
  if [ ! -e "$out" ]; then echo "FAILED: missing output file $out"; exit 1; fi
  if [ ! -e "$ans" ]; then echo "FAILED: missing answer file $ans"; exit 1; fi
  if ! cmp -s <(nowhite "$out") <(nowhite "$ans"); then
    echo "DIFF in $out (against $ans):"
    diff <(nowhite "$out") <(nowhite "$ans") | head -n 20
    failed=$((failed + 1))
  fi
  drop="$dirname.drops.$np.$rr"
  dans="$data/answers/$dirname.$case_name.drops.$np.$rr"
  if [ -e "$drop" ]; then
    if [ ! -e "$dans" ] || ! cmp -s <(nowhite "$drop") <(nowhite "$dans"); then
      echo "DIFF in $drop (against $dans):"
      [ -e "$dans" ] && diff <(nowhite "$drop") <(nowhite "$dans") | head -n 20
      failed=$((failed + 1))
    fi
  fi
done
if [ $failed -ne 0 ]; then
  echo "FAILED: $failed file(s) differ from Zoltan's answers"
  exit 1
fi
echo "PASSED: $dirname:$case_name on $np ranks matches Zoltan's answers"
exit 0
