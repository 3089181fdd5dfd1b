#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Checks that every tracked C source and header is formatted as .clang-format
# says (clang-format 14, Debian 12).  FIX=1 reformats them instead.  Exit
# status 0 when all are formatted; otherwise the files that are not.
set -eu
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null 2>&1 || ZP_EXTRA_PACKAGES="${ZP_EXTRA_PACKAGES:-} clang-format" sh scripts/deps.sh
files=$(git ls-files '*.c' '*.h' '*.cpp' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
if [ "${FIX:-0}" = 1 ]; then
  # shellcheck disable=SC2086
  clang-format -i $files
  exit 0
fi
bad=""
for f in $files; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
if [ -n "$bad" ]; then
  echo "format-check: not formatted as .clang-format says (run FIX=1 sh scripts/format-check.sh):"
  for f in $bad; do echo "  $f"; done
  exit 1
fi
echo "format-check: $(echo "$files" | wc -w) files formatted"
