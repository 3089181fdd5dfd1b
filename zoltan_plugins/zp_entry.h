/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_ENTRY_H
#define ZP_ENTRY_H

/*
 * The naming convention of the layer's interposed Zoltan entry points,
 * shared by the files that define them (zp_interpose.c, zp_queries.c).
 *
 * Shared build: an entry point has Zoltan's own name, so that the dynamic
 * linker (LD_PRELOAD or link order) finds ours first.  Static build
 * (ZP_STATIC_WRAP): it is named __wrap_X, for a link with -Wl,--wrap=X.
 * Either way the real functions are reached through zp_real.c.
 */
#ifdef ZP_STATIC_WRAP
#define ZP_ENTRY(name) __wrap_##name
#else
#define ZP_ENTRY(name) name
#endif

#include "zp_internal.h"

/* Short name of Zoltan's struct for the entry points' signatures. */
typedef struct Zoltan_Struct ZZ;

#endif
