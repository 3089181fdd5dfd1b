#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_exported_symbols.sh ARCHIVE SHARED_LIB PREFIXES WRAPPED CC
# Every global symbol the libraries define must belong to the public API:
# a name with one of PREFIXES (comma-separated, ZP_SYMBOL_PREFIXES), or one
# of the WRAPPED Zoltan entry points (comma-separated, ZP_WRAPPED_SYMBOLS),
# as __wrap_X in the static archive and as X in the shared library.  An
# internal name (greedy_assign, refine_run, ...) left global in the archive
# would clash with an application's own symbol of that name.  The two
# libraries must also export the same interface.  CC builds a stray symbol
# first, to show that the check can fail.
set -eu
archive=$1 shared=$2 prefixes=$3 wrapped=$4 cc=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# defined_globals FILE [nm options]: the names of the global symbols FILE
# defines, one a line (archive member headers have fewer fields).
defined_globals() {
  f=$1
  shift
  nm "$@" --defined-only "$f" | awk 'NF == 3 { print $3 }' | sort -u
}

# strays KIND < names: the names that are not allowed for KIND (static or
# shared).
strays() {
  awk -v kind="$1" -v prefixes="$prefixes" -v wrapped="$wrapped" '
    BEGIN { np = split(prefixes, p, ","); nw = split(wrapped, w, ",")
            for (i = 1; i <= nw; i++) ok[(kind == "static" ? "__wrap_" : "") w[i]] = 1 }
    { allowed = ($0 in ok)
      for (i = 1; i <= np && !allowed; i++) allowed = index($0, p[i]) == 1
      if (!allowed) print }'
}

status=0
report() {
  if [ -s "$2" ]; then
    echo "FAIL: $1 defines global symbols without an allowed prefix ($prefixes) or wrapped name:"
    sed 's/^/  /' "$2"
    status=1
  else
    echo "ok: every global symbol of $1 is public API ($(wc -l < "$3") symbols)"
  fi
}

# The check itself must see a stray name.
printf 'int greedy_stray_for_the_check(void) { return 0; }\n' > "$tmp/stray.c"
"$cc" -c -o "$tmp/stray.o" "$tmp/stray.c"
ar rc "$tmp/libstray.a" "$tmp/stray.o"
if [ -z "$(defined_globals "$tmp/libstray.a" -g | strays static)" ]; then
  echo "FAIL: the check does not see a stray global symbol"
  exit 1
fi

defined_globals "$archive" -g > "$tmp/static.txt"
strays static < "$tmp/static.txt" > "$tmp/static_bad.txt"
report "$(basename "$archive")" "$tmp/static_bad.txt" "$tmp/static.txt"

# The dynamic table is what other objects can bind to; the full symbol
# table, while the library is not stripped, must not show more.
{ defined_globals "$shared" -D; defined_globals "$shared" -g; } | sort -u > "$tmp/shared.txt"
strays shared < "$tmp/shared.txt" > "$tmp/shared_bad.txt"
report "$(basename "$shared")" "$tmp/shared_bad.txt" "$tmp/shared.txt"

# Hiding too much is a failure too: the archive must keep the shared
# library's whole interface (entry points renamed __wrap_X).
sed 's/^__wrap_//' "$tmp/static.txt" | sort -u > "$tmp/static_api.txt"
if ! cmp -s "$tmp/static_api.txt" "$tmp/shared.txt"; then
  echo "FAIL: the archive and the shared library export different interfaces (< archive, > shared):"
  diff "$tmp/static_api.txt" "$tmp/shared.txt" | grep '^[<>]' | sed 's/^/  /'
  status=1
fi
exit $status
