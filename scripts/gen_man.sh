#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# gen_man.sh ZP_METHODS SOURCE_DIR OUT_DIR
# Writes the man pages into OUT_DIR, each from the one source that also
# feeds the rest of the documentation:
#  - zp_methods.1 and the methods section of zp_zdrive.1: the method and
#    parameter registry, through zp_methods --man / --man-section (the same
#    registry prints docs/parameters.md);
#  - zp_zdrive.1: docs/man/zp_zdrive.1.in around that section;
#  - zp-check.1, zp-plot.1: the scripts' own header comments (what --help
#    prints).
set -eu
methods=$1 src=$2 out=$3
mkdir -p "$out"
version=$("$methods" --version | sed 's/.* //')
"$methods" --man > "$out/zp_methods.1"
"$methods" --man-section > "$out/methods.section"
sed -e "s/@VERSION@/$version/" -e "/^@METHODS@\$/{
r $out/methods.section
d
}" "$src/docs/man/zp_zdrive.1.in" > "$out/zp_zdrive.1"
rm -f "$out/methods.section"

# A script's header: the comment lines from line 2 up to 'set -u', without
# the SPDX line.  Its first line is the synopsis; the rest, the description.
script_page() { # script_page NAME SUMMARY
  name=$1 summary=$2 file=$src/tools/$1
  upper=$(echo "$name" | tr 'a-z-' 'A-Z_')
  {
    printf '.TH %s 1 "" "zoltan_plugins %s" "zoltan_plugins"\n' "$upper" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$(echo "$name" | sed 's/-/\\-/g')" "$summary"
    printf '.SH SYNOPSIS\n'
    sed -n '3p' "$file" | sed -e 's/^# \{0,1\}//' -e 's/\\/\\e/g' -e 's/-/\\-/g'
    printf '.SH DESCRIPTION\n'
    sed -n '4,/^set -u/p' "$file" | sed -e '/^set -u/d' -e 's/^#//' -e 's/^ *//' -e 's/\\/\\e/g' \
      -e 's/^\([.'"'"']\)/\\\&\1/' -e 's/^$/.PP/' -e 's/^- /.IP \\(bu 2\n/'
    printf '.SH SEE ALSO\n.BR zp_methods (1),\n.BR zp_zdrive (1)\n'
  } > "$out/$name.1"
}
script_page zp-check "tell whether a program would get the methods of zoltan_plugins"
script_page zp-plot "draw what the balancer did from the CSV files of zoltan_plugins"
