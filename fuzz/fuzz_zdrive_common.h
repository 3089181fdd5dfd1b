/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FUZZ_ZDRIVE_COMMON_H
#define FUZZ_ZDRIVE_COMMON_H

#include <stddef.h>

#include "zdrive.h"

/* Write size bytes to path; 0 on success, -1 otherwise.  Not collective. */
int fuzz_write_file(const char *path, const unsigned char *data, size_t size);

/* A per-process base name for the harness's files, e.g. /dev/shm/zp_fuzz_deck_123. */
void fuzz_temp_base(char *buf, size_t cap, const char *tag);

#endif /* FUZZ_ZDRIVE_COMMON_H */
