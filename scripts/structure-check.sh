#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Checks the size and dependency rules the library keeps (docs/plugin_layer.md,
# "Code layout"):
#  - no source file of the layer (zoltan_plugins/*.c) over 600 lines, and no
#    source file of the library over 800;
#  - no function anywhere in the tree (tests, benchmarks, drivers included)
#    over 150 lines;
#  - no function of the library over 120 lines (the library: the layer and
#    every folder whose CMakeLists.txt adds code to it with
#    zp_add_builtin_method or zp_add_to_library; example programs excluded);
#  - the layer's private header zp_internal.h is included only inside
#    zoltan_plugins/: method folders, the driver and the benchmarks use its
#    documented public headers.  White-box harnesses that compile the
#    layer's sources themselves (fuzz/) are the one exception.
# A function is counted from its opening brace in column 0 to the closing
# one, which is how .clang-format lays functions out.
# Exit status 0 when every rule holds; otherwise each offence on a line.
set -eu
cd "$(dirname "$0")/.."
max_file=${ZP_MAX_FILE_LINES:-600}
max_fn=${ZP_MAX_FUNCTION_LINES:-120}
max_lib_file=${ZP_MAX_LIBRARY_FILE_LINES:-800}
max_tree_fn=${ZP_MAX_TREE_FUNCTION_LINES:-150}
bad=0
for f in zoltan_plugins/*.c; do
  n=$(wc -l < "$f")
  if [ "$n" -gt "$max_file" ]; then
    echo "structure-check: $f has $n lines (at most $max_file)"
    bad=1
  fi
done
dirs=zoltan_plugins
for cm in */CMakeLists.txt; do
  d=${cm%/CMakeLists.txt}
  [ "$d" = zoltan_plugins ] && continue
  grep -Eq '^[[:space:]]*zp_add_(builtin_method|to_library)[[:space:]]*\(' "$cm" && dirs="$dirs $d"
done
for d in $dirs; do
  for f in "$d"/*.c; do
    [ -f "$f" ] || continue
    case $(basename "$f") in example_*) continue ;; esac
    n=$(wc -l < "$f")
    [ "$n" -gt "$max_lib_file" ] && echo "structure-check: $f has $n lines (at most $max_lib_file)"
    awk -v file="$f" -v max="$max_fn" '
      /^\{/ { start = NR; name = prev }
      /^\}/ { if (start) { n = NR - start + 1; if (n > max) printf "structure-check: %s:%d: %s is %d lines (at most %d)\n", file, start, name, n, max; start = 0 } }
      { prev = $0 }' "$f"
  done
done > structure-check.out.$$ || true
if [ -s structure-check.out.$$ ]; then
  cat structure-check.out.$$
  bad=1
fi
rm -f structure-check.out.$$
find . -name '*.c' -not -path './build*' -not -path './.git/*' | LC_ALL=C sort | while read -r f; do
  awk -v file="$f" -v max="$max_tree_fn" '
    /^\{/ { start = NR; name = prev }
    /^\}/ { if (start) { n = NR - start + 1; if (n > max) printf "structure-check: %s:%d: %s is %d lines (at most %d anywhere in the tree)\n", file, start, name, n, max; start = 0 } }
    { prev = $0 }' "$f"
done > structure-check.out.$$ || true
if [ -s structure-check.out.$$ ]; then
  cat structure-check.out.$$
  bad=1
fi
rm -f structure-check.out.$$
users=$(grep -rl --include='*.c' --include='*.h' '#include[[:space:]]*"zp_internal.h"' . 2>/dev/null |
  grep -Ev '^\./(zoltan_plugins|fuzz)/' | grep -v '^\./build' || true)
if [ -n "$users" ]; then
  for u in $users; do echo "structure-check: $u includes the layer's private zp_internal.h"; done
  bad=1
fi
[ "$bad" -eq 0 ] && echo "structure-check: library folders: $dirs; every rule holds"
exit "$bad"
