#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The reliability stage (docs/reliability.md): three checks that the normal
# build cannot make, each bounded in time.
#   asan      a second build with -DZP_SANITIZE=ON (ASan+UBSan) running the
#             unit, plugin, soak and bad-input tests;
#   valgrind  memcheck of one representative MPI test (GREEDYREFINE with
#             AUTO_MIGRATE at 2 ranks) on the normal build;
#   fuzz      libFuzzer harnesses (clang) replaying their regressions and
#             fuzzing FUZZ_SECONDS each from the seed corpus in fuzz/corpus.
# Environment: STAGES (default "asan valgrind fuzz"), BUILD_DIR (normal build,
# default build-test; built here if missing), SAN_BUILD_DIR (build-sanitize),
# FUZZ_BUILD_DIR (build-fuzz), FUZZ_SECONDS (30).  Exit status 0 only when
# every selected stage passed.  About 8 minutes on 2 cores with the defaults.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
ZP_EXTRA_PACKAGES="${ZP_EXTRA_PACKAGES:-} clang libclang-rt-14-dev valgrind" sh scripts/deps.sh
. scripts/env.sh
stages=${STAGES:-asan valgrind fuzz}
build=${BUILD_DIR:-build-test}
san_build=${SAN_BUILD_DIR:-build-sanitize}
fuzz_build=${FUZZ_BUILD_DIR:-build-fuzz}
fuzz_seconds=${FUZZ_SECONDS:-60}
# CI fuzzes a fixed number of inputs from a fixed seed, so that a run is
# reproducible and a green CI stays green; FUZZ_RUNS=0 fuzzes by time only
# (the developers' long runs, with a random seed).
fuzz_runs=${FUZZ_RUNS:-60000}
fuzz_seed=${FUZZ_SEED:-1}
jobs=$(nproc 2>/dev/null || echo 2)
status=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Leak checking under MPI: OpenMPI keeps some start-up allocations until
# exit, and its libraries have no frame pointers, so LeakSanitizer needs the
# slow unwinder to name them (scripts/lsan.supp names only OpenMPI's
# libraries) and its plugins must stay loaded after MPI_Finalize.  The slow
# unwinder makes every malloc ~5x dearer, so the CTest run of the MPI tests
# has detect_leaks=0 (ASan's memory errors and UBSan stay on), the unit tests
# (no MPI) check leaks, and the leak check of MPI runs is a separate step on
# three representative programs below.
export OMPI_MCA_mca_base_component_disable_dlclose=1
# verify_asan_link_order=0: the LD_PRELOAD test puts our (instrumented)
# library before the program, whose own link already brings the ASan runtime.
asan_base="abort_on_error=0:verify_asan_link_order=0"
export ASAN_OPTIONS="detect_leaks=0:$asan_base"
lsan_slow="suppressions=$root/scripts/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

stamp() { date +%s; }
t0=$(stamp)

for stage in $stages; do
  ts=$(stamp)
  case $stage in
  asan)
    echo "== sanitize: ASan+UBSan build in $san_build"
    cmake -S . -B "$san_build" -DZP_SANITIZE=ON -DZP_WERROR=ON -DZP_ZOLTAN2_EXAMPLE=OFF >/dev/null
    cmake --build "$san_build" -j "$jobs" >/dev/null
    (cd "$san_build" && ASAN_OPTIONS="detect_leaks=1:$asan_base" ctest --output-on-failure -j "$jobs" -L unit --timeout 300) ||
      status=1
    # Known open finding (docs/reliability.md, finding 4): Zoltan serialises
    # an LB field the layer leaves uninitialised, which ASan's non-zeroed
    # malloc turns into an abort.  Set KNOWN_OPEN="" once it is fixed.
    # The MPI tests run here at 1 and 3 ranks: one rank covers the serial
    # paths and 3 ranks the uneven multi-rank ones (a root, ranks that send,
    # remainders of divisions).  The other rank counts run without sanitizers
    # in the suite above; under ASan they doubled this stage's time on 2 cores.
    # SAN_ALL_RANKS=1 runs every rank count.
    # The capacity cases and the native-identity sweep also skip 3 ranks:
    # they drive the same multi-rank paths as the method cases with other
    # parameter values (the capacity ones keep a 3-rank leak check below),
    # and they were a quarter of this stage's time.
    skip_np='_np(2|4|8|16)$|^plugin_(capacity|native_identity).*_np3$'
    [ "${SAN_ALL_RANKS:-0}" = 1 ] && skip_np=''
    known_open=${KNOWN_OPEN-}
    exclude=$skip_np
    [ -n "$known_open" ] && exclude="${exclude:+$exclude|}$known_open"
    (cd "$san_build" && ctest --output-on-failure -j "$jobs" -L 'plugin|soak|badinput' ${exclude:+-E "$exclude"} \
       --timeout 300) || status=1
    # Leak check of MPI runs: the plugin path with migration, the soak (every
    # method, empty ranks, part sizes), the bad-input corpus (error paths),
    # DIFFUSION's neighbour protocol, REFINE's reduced gather, the
    # hypergraph read as a graph, the guard's error paths (every query
    # and migration callback failing on one rank, zp_fault), and HIERARCHY's
    # runs by groups (tokens, edges within groups, two levels).
    for run in "2 ctest/plugin/zp_testapp --method GREEDYREFINE --migrate --copy --rounds 2" \
               "2 ctest/soak/zp_soak --rounds 60 --methods GREEDY,REFINE,GREEDYREFINE" \
               "3 ctest/badinput/zp_badinput --case all --method ALL" \
               "3 ctest/plugin/zp_testapp --method DIFFUSION --migrate --rounds 3 --empty-rank0" \
               "2 ctest/plugin/zp_testapp --method REFINE --param REFINE_DISTRIBUTED=1 --part-sizes --migrate --rounds 2" \
               "2 ctest/plugin/zp_testapp --method SCOTCHLB --hypergraph --migrate --rounds 2" \
               "3 ctest/plugin/zp_testapp --method REFINE --param REFINE_DISTRIBUTED=2 --empty-rank0 --migrate --rounds 2" \
               "3 ctest/plugin/zp_testapp --method SCOTCHLB --param LB_APPROACH=PARTITION --param SCOTCHLB_PARALLEL_MIN=1 --sizes --migrate --rounds 2" \
               "3 ctest/plugin/zp_testapp --method DIFFUSION --param DIFFUSION_SCHEME=HIERARCHICAL --empty-rank0 --migrate --rounds 2" \
               "3 ctest/plugin/zp_testapp --method SCOTCHLB --param SCOTCHLB_REPART_CUT_TOL=1.3 --param SCOTCHLB_COMM_COST=0.05 --empty-rank0 --migrate --rounds 3" \
               "3 ctest/plugin/zp_testapp --method REFINE --param CAPACITY=STATIC --param CAPACITY_FILE=$root/ctest/plugin/capacity/memory_124.txt --param CAPACITY_MEMORY_DIM=1 --param IMBALANCE_TOL=1.0 --memory 0,0,600 --objects 600 --migrate" \
               "3 ctest/plugin/zp_testapp --method RCB --param CAPACITY_FILE=$root/ctest/plugin/capacity/memory_tight.txt --param CAPACITY_MEMORY_DIM=1 --memory 0 --objects 600 --expect-warn --migrate" \
               "3 ctest/fault/zp_fault --method RCB --param ZOLTAN_PLUGINS_GUARD=1" \
               "3 ctest/fault/zp_fault --method GREEDY --multi --param ZOLTAN_PLUGINS_GUARD=1" \
               "3 ctest/plugin/zp_testapp --method REFINE --param HIERARCHY=1 --param REFINE_COMM_AWARE=1 --empty-rank0 --migrate --rounds 2" \
               "3 ctest/plugin/zp_testapp --method GREEDY --param HIERARCHY=1,2 --part-sizes --migrate --rounds 2"; do
      np=${run%% *}
      # shellcheck disable=SC2086
      if (cd "$san_build" && ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:$asan_base" LSAN_OPTIONS="$lsan_slow" \
            mpiexec --oversubscribe --bind-to none -n $np ${run#* } >leak.log 2>&1); then
        echo "leak check: no leak in ${run#* } at $np ranks"
      else
        echo "leak check: FAILED for ${run#* } at $np ranks"
        grep -E -A12 'ERROR: (Leak|Address)Sanitizer|runtime error' "$san_build/leak.log" | head -60
        status=1
      fi
    done
    ;;
  valgrind)
    echo "== sanitize: valgrind memcheck on $build"
    if [ ! -x "$build/ctest/plugin/zp_testapp" ]; then
      cmake -S . -B "$build" -DZP_WERROR=ON >/dev/null
      cmake --build "$build" -j "$jobs" --target zp_testapp >/dev/null
    fi
    # ASan's options mean nothing to an uninstrumented build under valgrind.
    if env -u ASAN_OPTIONS -u LSAN_OPTIONS mpiexec --oversubscribe --bind-to none -n 2 \
         valgrind -q --error-exitcode=9 --leak-check=no \
         --suppressions=/usr/share/openmpi/openmpi-valgrind.supp \
         --suppressions="$root/scripts/valgrind-openmpi.supp" \
         "$build/ctest/plugin/zp_testapp" --method GREEDYREFINE --migrate --objects 300 --rounds 2; then
      echo "valgrind: no memcheck error"
    else
      echo "valgrind: FAILED"
      status=1
    fi
    ;;
  fuzz)
    echo "== sanitize: libFuzzer harnesses in $fuzz_build, ${fuzz_runs} runs from seed ${fuzz_seed} (at most ${fuzz_seconds}s) each"
    fuzz_limits="-max_total_time=$fuzz_seconds"
    [ "$fuzz_runs" -gt 0 ] && fuzz_limits="$fuzz_limits -runs=$fuzz_runs -seed=$fuzz_seed"
    harnesses="fuzz_param_value fuzz_zdrive_deck fuzz_chaco fuzz_mtx fuzz_loaddb_dump fuzz_advisor_hints"
    CC=clang cmake -S . -B "$fuzz_build" -DZP_FUZZ=ON -DZP_BUILD_TESTS=OFF >/dev/null
    # shellcheck disable=SC2086
    cmake --build "$fuzz_build" -j "$jobs" --target $harnesses >/dev/null
    mkdir -p "$fuzz_build/artifacts"
    for h in $harnesses; do
      bin="$fuzz_build/fuzz/$h"
      skip=""
      # Every crash ever found stays a regression input.  Files named
      # open-* are findings not fixed yet: reported, and the harness is not
      # fuzzed further (it would only find them again) until they pass.
      for f in fuzz/regressions/"$h"/*; do
        [ -f "$f" ] || continue
        if "$bin" -rss_limit_mb=2048 "$f" >"$fuzz_build/artifacts/replay.log" 2>&1; then
          case $(basename "$f") in
          open-*) echo "$h: $f passes now: rename it without open-"; status=1 ;;
          esac
        else
          case $(basename "$f") in
          open-*) echo "$h: known open finding $f still fails (see docs/reliability.md)"; skip=1 ;;
          *) echo "$h: regression $f FAILED"; tail -20 "$fuzz_build/artifacts/replay.log"; status=1; skip=1 ;;
          esac
        fi
      done
      if [ -n "$skip" ]; then
        echo "$h: not fuzzed while a regression fails"
        continue
      fi
      work=$(mktemp -d)
      # shellcheck disable=SC2086
      if "$bin" $fuzz_limits -rss_limit_mb=2048 -print_final_stats=1 \
           -artifact_prefix="$fuzz_build/artifacts/$h-" "$work" "fuzz/corpus/$h" \
           >"$fuzz_build/artifacts/$h.log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$fuzz_build/artifacts/$h.log")
        echo "$h: ${runs:-?} executions, no crash"
      else
        echo "$h: FAILED (reproducer in $fuzz_build/artifacts/$h-*)"
        grep -E 'ERROR|SUMMARY|#[0-9]+ ' "$fuzz_build/artifacts/$h.log" | head -30
        status=1
      fi
      rm -rf "$work"
    done
    ;;
  *)
    echo "sanitize: unknown stage $stage"
    status=1
    ;;
  esac
  echo "== sanitize: stage $stage took $(( $(stamp) - ts ))s"
done
echo "== sanitize: all stages took $(( $(stamp) - t0 ))s, $( [ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
