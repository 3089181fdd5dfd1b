#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# py_identity.sh NP MPIEXEC-AND-FLAGS... -- PYTHON LIB APP
# Native methods through pyzoltan give the same answer with and without our
# library preloaded: zp_py_app.py's digest of the whole assignment for RCB
# (pyzoltan's default), RIB and HSFC, and the whole output of pyzoltan's own
# example geometric_partitioner.py (Debian's file, run unmodified).
. "$(dirname "$0")/../common/launcher_args.sh"
py=$1 lib=$2 app=$3 here=$(dirname "$0")
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # run NAME CMD...: output of rank 0's lines in $tmp/NAME
  name=$1; shift
  $launcher -n "$np" "$@" > "$tmp/$name" 2>&1 || { echo "FAIL: $name exited non-zero"; cat "$tmp/$name"; status=1; }
}
for m in "" RIB HSFC; do
  args=""
  [ -n "$m" ] && args="--method $m"
  run plain "$py" "$app" $args
  run preload sh "$here/../plugin/preload_run.sh" "$lib" "$py" "$app" $args
  a=$(grep '^zp_py_app: .*passed' "$tmp/plain") b=$(grep '^zp_py_app: .*passed' "$tmp/preload")
  if [ -n "$a" ] && [ "$a" = "$b" ]; then
    echo "ok: ${m:-RCB (default)} identical with the library preloaded: $a"
  else
    echo "FAIL: ${m:-RCB (default)} differs: without '$a', preloaded '$b'"; status=1
  fi
done
geom=$("$py" -c 'import importlib.util as u, os; print(os.path.join(u.find_spec("pyzoltan").submodule_search_locations[0], "core", "tests", "geometric_partitioner.py"))')
if [ -f "$geom" ]; then
  # The example reads mesh.txt next to itself and prints the mesh's parts.
  run geom_plain "$py" "$geom"
  run geom_preload sh "$here/../plugin/preload_run.sh" "$lib" "$py" "$geom"
  if [ -s "$tmp/geom_plain" ] && cmp -s "$tmp/geom_plain" "$tmp/geom_preload"; then
    echo "ok: pyzoltan's geometric_partitioner.py prints the same $(wc -l < "$tmp/geom_plain") lines preloaded"
  else
    echo "FAIL: pyzoltan's geometric_partitioner.py differs preloaded"; diff "$tmp/geom_plain" "$tmp/geom_preload" | head; status=1
  fi
else
  echo "FAIL: pyzoltan's example $geom is missing"; status=1
fi
exit $status
