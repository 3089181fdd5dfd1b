#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The plugin-method sweep of scripts/conformance.sh (--sweep): every deck of
# the harness's "Zoltan" families that runs a partitioning method is rerun
# with each of our methods, two ways:
#   ours     our driver, the deck's decomposition method replaced;
#   preload  Zoltan's real zdrive, our library preloaded and
#            ZOLTAN_PLUGINS_LB_METHOD naming the method (the deck unchanged).
# The keys that probe a method's cuts (test drops, test rcb box) are dropped
# from the deck in both, since our methods keep no cuts.  A run passes when it
# exits 0 within the time limit and its answer files assign every object of
# the deck's native run (Zoltan's zdrive, same deck) exactly once, to a part
# >= 0.  For Chaco folders zdrive_check also checks the balance bound of
# docs/zdrive.md (max/mean part weight <= max(1.1, 1 + heaviest/mean); with
# several vertex weights, of the combined load; for ULBA on an RCB deck, no
# worse than the deck's own RCB run, which ULBA's first call returns), except
# on decks whose parts the driver sets per rank (test local partitions).
#
# Usage: sh sweep.sh BUILD WORK REAL_ZDRIVE TESTS "FOLDERS"
# Environment: ZP_SWEEP_METHODS (default "GREEDY REFINE GREEDYREFINE ULBA"),
# ZP_SWEEP_NP (run every deck at this rank count instead of its folder's),
# ZP_CONF_DECK_TIMEOUT, ZP_CONF_MPIEXEC (from scripts/conformance.sh).
# Prints one line per failure and a count per method and way; exit status 0
# when every run passed.
set -u
build=$1 work=$2 real=$3 tests=$4 folders=$5
methods=${ZP_SWEEP_METHODS:-GREEDY REFINE GREEDYREFINE ULBA}
limit=${ZP_CONF_DECK_TIMEOUT:-180}
mpiexec=${ZP_CONF_MPIEXEC:-mpiexec}
lib=$build/zoltan_plugins/libzoltan_plugins.so
ours=$build/testdrivers/zdrive
check=$build/testdrivers/zdrive_check
out=$work/sweep
rm -rf "$out"
mkdir -p "$out"
tally=$out/tally.txt
: > "$tally"

# gids FILES...: the GID column of answer files, one a line.
gids() { awk 'FNR == 1 { seen = 0 } seen && $1 ~ /^[0-9]+$/ { print $1 } /^GID/ { seen = 1 }' "$@"; }

# run_deck DIR NP DRIVER DECK [ENV...]: runs one deck; returns its status
# (124 for a time-out).
run_deck() {
  d=$1 np=$2 drv=$3 deck=$4
  shift 4
  # A session folder per run: see cmake/zp-mpiexec.in.
  mkdir -p "$d/session"
  (cd "$d" && timeout -k 10 "$limit" env OMPI_MCA_orte_tmpdir_base="$d/session" "$@" "$mpiexec" \
    -np "$np" "$drv" "$deck" > run.log 2>&1 < /dev/null)
}

for f in $folders; do
  src=$tests/$f
  [ -d "$src" ] || continue
  np=$(sed -n 's/^[[:space:]]*SET(ZOLTANNUMPROCS[[:space:]]*\([0-9][0-9]*\)).*/\1/Ip' "$src/CMakeLists.txt" 2>/dev/null | head -n 1)
  [ -n "$np" ] || np=1
  # ZP_SWEEP_NP runs every deck at that rank count instead (1: the harness's
  # second rank count).
  np=${ZP_SWEEP_NP:-$np}
  for deckpath in "$src"/zdrive.inp.rcb* "$src"/zdrive.inp.rib* "$src"/zdrive.inp.hsfc* \
    "$src"/zdrive.inp.phg* "$src"/zdrive.inp.block* "$src"/zdrive.inp.random* \
    "$src"/zdrive.inp.graph-partit* "$src"/zdrive.inp.graph-repartit*; do
    [ -f "$deckpath" ] || continue
    deck=$(basename "$deckpath")
    name=$(sed -n 's/^[Ff]ile [Nn]ame[ \t]*=[ \t]*\([^ \t]*\).*/\1/p' "$deckpath" | head -n 1)
    base=$out/$f/$deck
    # The deck's native run gives the objects every method must assign.
    mkdir -p "$base/native"
    for x in "$src"/*; do
      case $(basename "$x") in answers* | zdrive.inp*) ;; *) ln -s "$x" "$base/native/" ;; esac
    done
    grep -viE '^[ \t]*(test drops|test rcb box)' "$deckpath" > "$base/native/$deck"
    if ! run_deck "$base/native" "$np" "$real" "$deck"; then
      echo "sweep: $f $deck: the native run failed; deck skipped"
      continue
    fi
    gids "$base/native/$name".out."$np".* | sort -n > "$base/native.gids"
    # The balance check (Chaco folders): the vertex weights the deck uses
    # (with several, the combined load our methods balance), the parts the
    # deck asks for (num_global_parts, or Zoltan's older spelling
    # num_global_partitions).  Decks that give each rank its own number of
    # parts and sizes (test local partitions) are checked for conservation
    # only: the driver decides their parts at run time.
    weights="" native_imb=""
    nparts=$(sed -n 's/.*num_global_part\(s\|itions\) *= *\([0-9][0-9]*\).*/\2/Ip' "$deckpath" | tail -n 1)
    nparts=${nparts:-$np}
    if [ -f "$src/$name.graph" ] && [ -x "$check" ] &&
      ! grep -qi '^[ \t]*test local partitions' "$deckpath"; then
      weights=unit
      wd=$(sed -n 's/.*obj_weight_dim *= *\([0-9][0-9]*\).*/\1/Ip' "$deckpath" | tail -n 1)
      [ -n "$wd" ] && [ "$wd" -ge 1 ] && weights=combined=$wd
      case $deck in
        zdrive.inp.rcb*)
          native_imb=$("$check" "$src/$name.graph" "$nparts" 1e30 "$weights" \
            "$base/native/$name".out."$np".* 2> /dev/null |
            sed -n 's/.*, imbalance \([0-9.]*\) (bound.*/\1/p')
          ;;
      esac
    fi
    for m in $methods; do
      for how in ours preload; do
        d=$base/$how-$m
        mkdir -p "$d"
        for x in "$src"/*; do
          case $(basename "$x") in answers* | zdrive.inp*) ;; *) ln -s "$x" "$d/" ;; esac
        done
        # ULBA's default base is RCB; an input without coordinates (the
        # MatrixMarket hypergraph folders) runs it over PHG instead.
        extra=""
        [ "$m" = ULBA ] && [ ! -f "$src/$name.coords" ] && extra=ULBA_BASE_METHOD=PHG
        if [ "$how" = ours ]; then
          grep -viE '^[ \t]*(decomposition method|test drops|test rcb box)' "$deckpath" > "$d/$deck"
          echo "Decomposition Method = $(echo "$m" | tr 'A-Z' 'a-z')" >> "$d/$deck"
          [ -n "$extra" ] && echo "Zoltan Parameters = $extra" >> "$d/$deck"
          run_deck "$d" "$np" "$ours" "$deck"
        else
          cp "$base/native/$deck" "$d/$deck"
          run_deck "$d" "$np" "$real" "$deck" LD_PRELOAD="$lib" ZOLTAN_PLUGINS_LB_METHOD="$m" \
            ZOLTAN_PLUGINS_PARAMS="$extra"
        fi
        rc=$?
        why=""
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
          why="timeout"
        elif grep -qE 'signal|Segmentation|core dumped' "$d/run.log"; then
          why="crash"
        elif [ "$rc" -ne 0 ]; then
          why="exit status $rc: $(grep -m1 -iE 'error' "$d/run.log" | cut -c1-120)"
        elif ! ls "$d/$name".out."$np".* > /dev/null 2>&1; then
          why="no answer files"
        else
          gids "$d/$name".out."$np".* | sort -n > "$d/gids"
          if ! cmp -s "$d/gids" "$base/native.gids"; then
            why="objects lost or duplicated ($(wc -l < "$d/gids") assigned, $(wc -l < "$base/native.gids") objects)"
          elif awk 'FNR == 1 { seen = 0 } seen && $1 ~ /^[0-9]+$/ && $2 < 0 { bad = 1 } /^GID/ { seen = 1 }
                    END { exit !bad }' "$d/$name".out."$np".*; then
            why="negative part"
          elif [ -n "$weights" ]; then
            bound=1.1
            # ULBA's first call is its base method's answer (RCB unless
            # ULBA_BASE_METHOD says otherwise): on an RCB deck, the deck's
            # own RCB run is the balance it promises.
            [ "$m" = ULBA ] && [ -n "$native_imb" ] &&
              bound=$(awk -v a="$native_imb" 'BEGIN { print (a > 1.1 ? a : 1.1) }')
            "$check" "$src/$name.graph" "$nparts" "$bound" "$weights" "$d/$name".out."$np".* \
              > "$d/check.log" 2>&1 || why="zdrive_check: $(tail -n 1 "$d/check.log" | cut -c1-120)"
          fi
        fi
        if [ -n "$why" ]; then
          echo "sweep: FAIL $how $m $f $deck: $why"
          echo "$how $m fail" >> "$tally"
        else
          echo "$how $m pass" >> "$tally"
        fi
      done
    done
  done
done
echo "sweep: runs per method and way (passed / run):"
sort "$tally" | uniq -c | awk '{ k = $2 " " $3; n[k] += $1; if ($4 == "pass") p[k] += $1 }
  END { for (k in n) printf "  %-22s %d / %d\n", k, p[k], n[k] }' | sort
! grep -q ' fail$' "$tally"
