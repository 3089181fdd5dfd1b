/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zp_version: the version string, in a file of its own because it includes
 * the generated zp_version.h; sources that other builds compile on their
 * own (the fuzz harnesses take zp_util.c) stay free of generated headers.
 */
#include "zp_method.h"
#include "zp_version.h"

const char *zp_version(void) { return ZP_VERSION_STRING; }
