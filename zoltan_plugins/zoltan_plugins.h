/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZOLTAN_PLUGINS_H
#define ZOLTAN_PLUGINS_H

/*
 * Umbrella header of libzoltan_plugins.
 *
 * Applications need no header at all: linking with -lzoltan_plugins ahead of
 * Zoltan, or LD_PRELOAD=libzoltan_plugins.so, is enough to use
 * LB_METHOD=GREEDY, REFINE, GREEDYREFINE, ULBA, ... through Zoltan's API.
 * This header is for code that registers its own method (zp_method.h),
 * writes a distributed method (zp_context.h), observes balancing calls
 * (zp_hooks.h) or provides or reads the measured load history of a struct
 * (zp_history.h).
 */

#include "zp_context.h"
#include "zp_history.h"
#include "zp_hooks.h"
#include "zp_method.h"

#define ZOLTAN_PLUGINS_VERSION_MAJOR 0
#define ZOLTAN_PLUGINS_VERSION_MINOR 1
#define ZOLTAN_PLUGINS_VERSION_PATCH 0

#endif /* ZOLTAN_PLUGINS_H */
