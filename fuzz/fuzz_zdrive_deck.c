/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the zdrive input-deck parser (zdrive_read_deck in
 * testdrivers/zdrive_input.c).  The input is the deck text.  Besides the
 * sanitizers' checks it asserts that a failed parse leaves a message, that a
 * successful one gives a parameter list of the announced length, and that
 * every recorded parameter string is NUL-terminated inside its field.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_zdrive_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char path[256];
  zdrive_deck deck;
  zdrive_param *params = NULL;
  zdrive_status st;
  int rc, i;

  if (path[0] == '\0') fuzz_temp_base(path, sizeof path, "deck");
  if (fuzz_write_file(path, data, size) != 0) return 0;
  memset(&st, 0, sizeof st);
  memset(&deck, 0, sizeof deck);
  rc = zdrive_read_deck(path, &deck, &params, &st);
  if (rc != 0) {
    assert(st.text[0] != '\0');
  } else {
    assert(deck.num_params >= 0);
    assert(deck.num_params == 0 || params != NULL);
    for (i = 0; i < deck.num_params; i++) {
      assert(memchr(params[i].name, '\0', sizeof params[i].name) != NULL);
      assert(memchr(params[i].val, '\0', sizeof params[i].val) != NULL);
    }
    assert(memchr(deck.method, '\0', sizeof deck.method) != NULL);
    assert(memchr(deck.file_name, '\0', sizeof deck.file_name) != NULL);
  }
  free(params);
  unlink(path);
  return 0;
}
