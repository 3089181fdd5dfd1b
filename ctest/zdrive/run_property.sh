#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Property test of one of our methods on a Zoltan test folder.  The deck is
# made from the folder's RCB deck with the decomposition method replaced and
# zdrive's geometric test keys dropped.  The run must succeed, every object
# must be assigned exactly once (count conserved), parts must be in range,
# balance within the bound that zdrive_check states, and a second run must
# give byte-identical answer files (determinism).
#
# usage: run_property.sh <data folder> <method> <nprocs> <max imbalance> <work dir> <zdrive> <zdrive_check> <mpiexec> [args...]
set -u
data=$1 method=$2 np=$3 maximb=$4 work=$5 zdrive=$6 check=$7
shift 7
launcher=("$@")
if [ ! -d "$data" ]; then
  echo "SKIPPED: Zoltan test data folder $data not found"
  exit 77
fi
# The folder's RCB deck (or its first RCB variant) gives file name and type;
# ZDRIVE_FROM_DECK names another deck of the folder to start from (its
# parameters are kept, only the method is replaced).
if [ -n "${ZDRIVE_FROM_DECK:-}" ]; then
  src="$data/$ZDRIVE_FROM_DECK"
else
  src="$data/zdrive.inp.rcb"
  [ -e "$src" ] || src=$(ls "$data"/zdrive.inp.rcb* 2>/dev/null | head -1)
fi
[ -n "$src" ] && [ -e "$src" ] || { echo "FAILED: no RCB deck in $data to derive the deck from"; exit 1; }
name=$(sed -n 's/^[Ff]ile [Nn]ame[ \t]*=[ \t]*\([^ \t]*\).*/\1/p' "$src" | head -1)
weights=unit
grep -qi 'obj_weight_dim *= *[1-9]' "$src" && weights=file

for run in 1 2; do
  dir="$work/run$run"
  rm -rf "$dir" && mkdir -p "$dir" || exit 1
  for f in "$data"/*; do
    case "$(basename "$f")" in answers*|zdrive.inp*|zdrive_hold_tests) continue ;; esac
    ln -s "$f" "$dir/" || exit 1
  done
  grep -viE '^[ \t]*(decomposition method|test drops|test rcb box|test ddirectory)' "$src" > "$dir/zdrive.inp.$method"
  echo "Decomposition Method = $method" >> "$dir/zdrive.inp.$method"
  # Optional extra deck lines (e.g. the dynamic mode) from the environment.
  [ -n "${ZDRIVE_EXTRA:-}" ] && printf '%b\n' "$ZDRIVE_EXTRA" >> "$dir/zdrive.inp.$method"
  (cd "$dir" && "${launcher[@]}" "$np" "$zdrive" "zdrive.inp.$method" > run.log 2>&1)
  rc=$?
  # ZDRIVE_EXPECT_ERROR: the run must refuse the deck with a message
  # matching it (and not crash); nothing else is checked.
  if [ -n "${ZDRIVE_EXPECT_ERROR:-}" ]; then
    if grep -qE 'signal|Segmentation' "$dir/run.log" || ! grep -qE "$ZDRIVE_EXPECT_ERROR" "$dir/run.log"; then
      echo "FAILED: expected an error matching /$ZDRIVE_EXPECT_ERROR/ (status $rc); the output:"
      tail -n 30 "$dir/run.log"
      exit 1
    fi
    echo "PASSED: $method on $(basename "$data") refused with: $(grep -m1 -E "$ZDRIVE_EXPECT_ERROR" "$dir/run.log")"
    exit 0
  fi
  if [ $rc -ne 0 ]; then
    echo "FAILED: zdrive exited with status $rc (run $run); its output:"
    tail -n 30 "$dir/run.log"
    exit 1
  fi
done
outs=()
for ((r = 0; r < np; r++)); do
  if [ "$np" -lt 10 ]; then rr=$r; else rr=$(printf %02d "$r"); fi
  f="$name.out.$np.$rr"
  [ -e "$work/run1/$f" ] || { echo "FAILED: missing $f"; exit 1; }
  if ! cmp -s "$work/run1/$f" "$work/run2/$f"; then
    echo "FAILED: two runs of the same deck differ in $f (not deterministic)"
    exit 1
  fi
  outs+=("$work/run1/$f")
done
if [ -n "${ZDRIVE_EXPECT:-}" ] && ! grep -qE "$ZDRIVE_EXPECT" "$work/run1/run.log"; then
  echo "FAILED: the run printed nothing matching /$ZDRIVE_EXPECT/"
  exit 1
fi
if [ -e "$data/$name.graph" ]; then
  "$check" "$data/$name.graph" "$np" "$maximb" "$weights" "${outs[@]}" || exit 1
else
  # A hypergraph (MatrixMarket) input: no Chaco graph to check against, so
  # the driver's own object count, each GID once, parts in range, and the
  # object counts per part within the bound (the vertices weigh 1).
  total=$(sed -n 's/^DRIVER STATS (before): objects total \([0-9]*\).*/\1/p' "$work/run1/run.log" | head -1)
  awk -v total="${total:--1}" -v np="$np" -v maximb="$maximb" '
    FNR == 1 { table = 0 }
    table && $1 ~ /^[0-9]+$/ { n++; if (seen[$1]++) { printf "FAIL: GID %s twice\n", $1; bad = 1 }
                               if ($2 < 0 || $2 >= np) { printf "FAIL: GID %s in part %s\n", $1, $2; bad = 1 }
                               cnt[$2]++ }
    /^GID/ { table = 1 }
    END { if (n != total) { printf "FAIL: %d objects in the answers, the driver read %d\n", n, total; bad = 1 }
          mean = n / np; mx = 0; for (p in cnt) if (cnt[p] > mx) mx = cnt[p]
          bound = 1 + 1 / mean; if (maximb > bound) bound = maximb
          printf "zdrive property: %d objects, %d parts, max/mean count %.4f (bound %.4f)\n", n, np, mx / mean, bound
          if (mx / mean > bound) { print "FAIL: count imbalance above the bound"; bad = 1 }
          exit bad }' "${outs[@]}" || exit 1
fi
echo "PASSED: $method on $(basename "$data")${ZDRIVE_FROM_DECK:+ from $ZDRIVE_FROM_DECK} ($np ranks): assignment valid, balanced, deterministic"
