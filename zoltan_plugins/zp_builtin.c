/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of the methods shipped with the library, generated from the
 * zp_add_builtin_method() calls; the registry registers them
 * (zp_registry.c), so that this file calls nothing. */
#include <stddef.h>

#include "zp_internal.h"
#include "zp_builtin.h"

/* The generated rows, then a terminator, so that a build without any
 * built-in method still compiles. */
static const zp_builtin zp_builtins[] = {ZP_BUILTIN_ROWS{NULL, NULL, NULL}};

const zp_builtin *zp_builtin_table(void) { return zp_builtins; }
