#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Regenerates docs/parameters.md from the code: the fixed head
# (docs/parameters_head.md), the tables zp_methods prints, and the tail
# (docs/parameters_tail.md).  Usage: sh scripts/gen_params_doc.sh BUILD_DIR
set -eu
cd "$(dirname "$0")/.."
b=${1:-build-test}
{ cat docs/parameters_head.md; "$b/zoltan_plugins/zp_methods" --markdown; cat docs/parameters_tail.md; } > docs/parameters.md
