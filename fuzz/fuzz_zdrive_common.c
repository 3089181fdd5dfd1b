/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the zdrive parser harnesses need besides the parsers: the error
 * recorder that zdrive_main.c defines next to main(), and a helper writing
 * fuzz input to a file (the parsers read paths, as zdrive does).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_zdrive_common.h"

void zdrive_set_error(zdrive_status *st, const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  int n;
  if (st == NULL) return;
  n = snprintf(st->text, sizeof st->text, "%s:%d: ", file ? file : "?", line);
  if (n < 0 || (size_t)n >= sizeof st->text) return;
  va_start(ap, fmt);
  vsnprintf(st->text + n, sizeof st->text - (size_t)n, fmt, ap);
  va_end(ap);
}

int fuzz_write_file(const char *path, const unsigned char *data, size_t size)
{
  FILE *f = fopen(path, "wb");
  if (f == NULL) return -1;
  if (size > 0 && fwrite(data, 1, size, f) != size) {
    fclose(f);
    return -1;
  }
  return fclose(f) == 0 ? 0 : -1;
}

void fuzz_temp_base(char *buf, size_t cap, const char *tag)
{
  /* /dev/shm keeps the per-input file writes off the disk when it exists. */
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(buf, cap, "%s/zp_fuzz_%s_%ld", dir, tag, (long)getpid());
}
