/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the hints-file reader of LB_METHOD=AUTO
 * (advisor/advisor_core.c), which reads LB_HINTS_FILE at a run's first
 * balance.
 *
 * The input is the file text.  Besides the sanitizers' checks it asserts
 * that a failed read leaves a message, and that an accepted file has its
 * numbers in range and names that are words, and survives a write and a
 * second read unchanged.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advisor_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  advisor_hints h, back;
  advisor_traits now;
  char msg[256], note[512], *text;
  FILE *f;
  long n;
  if (advisor_hints_parse((const char *)data, size, &h, msg, sizeof msg) != 0) {
    assert(msg[0] != '\0');
    return 0;
  }
  assert(h.traits.parts >= 1 && h.traits.ranks >= 1 && isfinite(h.traits.objects));
  assert(h.method[0] != '\0' && h.policy[0] != '\0');
  f = tmpfile();
  assert(f != NULL);
  assert(advisor_hints_write(f, &h) == 0);
  n = ftell(f);
  assert(n > 0);
  text = malloc((size_t)n);
  assert(text != NULL);
  rewind(f);
  assert(fread(text, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  assert(advisor_hints_parse(text, (size_t)n, &back, msg, sizeof msg) == 0);
  assert(memcmp(&back.traits, &h.traits, sizeof h.traits) == 0);
  assert(strcmp(back.method, h.method) == 0 && strcmp(back.policy, h.policy) == 0);
  /* Applying never fails to explain itself. */
  memset(&now, 0, sizeof now);
  now.parts = 1;
  now.ranks = 1;
  (void)advisor_hints_apply(&h, &now, note, sizeof note);
  assert(note[0] != '\0');
  free(text);
  return 0;
}
