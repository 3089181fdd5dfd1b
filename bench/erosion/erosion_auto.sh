#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# LB_METHOD=AUTO on the erosion application (docs/loaddb.md, issue 17's
# evaluation harness): for each rank count and number of strong rocks, the
# standard and ULBA runs beside auto_zhai (AUTO, first run, no hints) and
# auto_hints (AUTO from the hints file auto_zhai left), with the balance cost
# MEASURED per balance, so that AUTO's trials are charged to its modelled
# time.  Prints one markdown row per case: the best single method, its
# modelled time, AUTO's and AUTO-with-hints' times and their ratios to it.
#
# usage: sh erosion_auto.sh EROSION_BINARY OUT_DIR [RANKS...]
# (ranks default to "16 32"; MPIEXEC and MPIEXEC_FLAGS may be set)
set -eu
bin=$1
out=$2
shift 2
ranks=${*:-16 32}
mpiexec=${MPIEXEC:-mpiexec}
flags=${MPIEXEC_FLAGS---oversubscribe}
mkdir -p "$out"
echo "| ranks (PEs) | strong rocks | best single method | its modelled time (s) | AUTO (s) | AUTO / best | AUTO with hints (s) | hints / best |"
echo "|---|---|---|---|---|---|---|---|"
for p in $ranks; do
  for n in 1 2 3; do
    tag=auto_P${p}_N${n}
    # shellcheck disable=SC2086
    $mpiexec $flags -n "$p" "$bin" --s 128 --strong "$n" --lb-cost measured --quiet \
      --runs std_zhai,ulba_zhai,ulba_ulba,ulba_auto,auto_zhai,auto_hints \
      --out "$out" --tag "$tag" > "$out/$tag.log" 2>&1 || {
      echo "erosion_auto.sh: the run at $p ranks, N = $n failed; see $out/$tag.log" >&2
      exit 1
    }
    awk -F, -v p="$p" -v n="$n" '
      NR == 1 { next }
      $1 == "auto_zhai" { a = $6; next }
      $1 == "auto_hints" { h = $6; next }
      best == "" || $6 + 0 < bv { best = $1; bv = $6 + 0 }
      END {
        if (best == "" || a == "" || h == "") { print "erosion_auto.sh: missing runs" > "/dev/stderr"; exit 1 }
        printf "| %d | %d | %s | %.4f | %.4f | %.4f | %.4f | %.4f |\n", p, n, best, bv, a, a / bv, h, h / bv
      }' "$out/${tag}_summary.csv"
  done
done
echo
echo "(modelled time of the erosion application, balance cost measured per balance; ranks"
echo "oversubscribed on this machine, one rank per PE; $(date -u +%Y-%m-%d))"
