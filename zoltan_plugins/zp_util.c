/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"

/* Trim src into dst (cap bytes), upper-casing when upper is 1. */
static int zp_copy_trimmed(const char *src, char *dst, size_t cap, int upper)
{
  size_t b, e, n, i;
  if (src == NULL || dst == NULL || cap == 0) return -1;
  b = 0;
  while (src[b] != '\0' && isspace((unsigned char)src[b])) b++;
  e = strlen(src);
  while (e > b && isspace((unsigned char)src[e - 1])) e--;
  n = e - b;
  if (n + 1 > cap) return -1;
  for (i = 0; i < n; i++) dst[i] = upper ? (char)toupper((unsigned char)src[b + i]) : src[b + i];
  dst[n] = '\0';
  return 0;
}

int zp_clean_string(const char *src, char *dst, size_t cap)
{
  return zp_copy_trimmed(src, dst, cap, 1);
}

int zp_trim_string(const char *src, char *dst, size_t cap)
{
  return zp_copy_trimmed(src, dst, cap, 0);
}

int zp_parse_int(const char *clean, int *out)
{
  char *end = NULL;
  long v;
  if (clean == NULL || clean[0] == '\0') return -1;
  /* Zoltan reads any value that starts with T as true and F as false. */
  if (clean[0] == 'T') {
    *out = 1;
    return 0;
  }
  if (clean[0] == 'F') {
    *out = 0;
    return 0;
  }
  errno = 0;
  v = strtol(clean, &end, 10);
  if (errno != 0 || end == clean || *end != '\0' || v < -2147483647L - 1 || v > 2147483647L)
    return -1;
  *out = (int)v;
  return 0;
}

int zp_parse_double(const char *clean, double *out)
{
  char *end = NULL;
  double v;
  if (clean == NULL || clean[0] == '\0') return -1;
  errno = 0;
  v = strtod(clean, &end);
  if (errno != 0 || end == clean || *end != '\0' || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

void *zp_grow(void *array, size_t *cap, size_t need, size_t elem, size_t first)
{
  size_t nc = *cap ? *cap : first;
  void *grown;
  if (need <= *cap) return array;
  while (nc < need) nc *= 2;
  grown = realloc(array, nc * elem);
  if (grown != NULL) *cap = nc;
  return grown;
}

int zp_world_rank(void)
{
  int init = 0, fin = 0, r = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static void zp_vmessage(const char *kind, const char *where, const char *fmt, va_list ap)
{
  char text[1024];
  vsnprintf(text, sizeof text, fmt, ap);
  /* One fprintf per message so that lines of different ranks do not mix. */
  fprintf(stderr, "[%d] ZOLTAN %s in %s: %s\n", zp_world_rank(), kind,
          where ? where : "zoltan_plugins", text);
  fflush(stderr);
}

void zp_error(const char *where, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  zp_vmessage("ERROR", where, fmt, ap);
  va_end(ap);
}

void zp_warn(const char *where, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  zp_vmessage("WARNING", where, fmt, ap);
  va_end(ap);
}
