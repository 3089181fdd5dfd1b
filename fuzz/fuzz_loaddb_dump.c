/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the load dump reader (loaddb/loaddb_dump.c), which
 * zp_lbsim runs on files a user hands it.
 *
 * The input is the file text.  Besides the sanitizers' checks it asserts
 * that a failed read leaves a message and that a successful one is
 * consistent (counts, ranges, increasing IDs, neighbours that exist) and
 * survives a write and a second read unchanged.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaddb_dump.h"

/* The invariants loaddb_dump_parse promises for a dump it accepted. */
static void check(const loaddb_dump *d)
{
  size_t i, k;
  assert(d->parts >= 1 && d->ranks >= 1 && d->ngid >= 1 && d->wdim >= 1);
  assert(d->adj_start[0] == 0 && d->adj_start[d->nobj] == d->nedges);
  for (i = 0; i < d->nobj; i++) {
    assert(d->procs[i] >= 0 && d->procs[i] < d->ranks);
    assert(d->cur_part[i] >= -1 && d->cur_part[i] < d->parts);
    assert(d->adj_start[i] <= d->adj_start[i + 1]);
    for (k = 0; k < (size_t)d->wdim; k++) assert(isfinite(d->wgts[i * (size_t)d->wdim + k]));
    if (i > 0) {
      /* Strictly increasing IDs, compared entry by entry. */
      const unsigned long *a = d->gids + (i - 1) * (size_t)d->ngid, *b = a + d->ngid;
      for (k = 0; k < (size_t)d->ngid && a[k] == b[k]; k++) continue;
      assert(k < (size_t)d->ngid && a[k] < b[k]);
    }
  }
  for (k = 0; k < (size_t)d->wdim; k++) assert(d->tol[k] >= 1.0);
}

/* Writes d to memory and reads it back: the same dump. */
static void round_trip(const loaddb_dump *d)
{
  char *text, msg[256];
  size_t len, pos = 0;
  long end;
  loaddb_dump b;
  FILE *f = tmpfile();
  assert(f != NULL);
  assert(loaddb_dump_write(f, d) == 0);
  end = ftell(f);
  assert(end > 0);
  len = (size_t)end;
  text = malloc(len);
  assert(text != NULL);
  rewind(f);
  assert(fread(text, 1, len, f) == len);
  fclose(f);
  assert(loaddb_dump_parse(text, len, &pos, &b, msg, sizeof msg) == LOADDB_DUMP_OK);
  assert(b.nobj == d->nobj && b.nedges == d->nedges && b.nparams == d->nparams);
  assert(memcmp(b.gids, d->gids, d->nobj * (size_t)d->ngid * sizeof *d->gids) == 0);
  assert(memcmp(b.wgts, d->wgts, d->nobj * (size_t)d->wdim * sizeof *d->wgts) == 0);
  assert(memcmp(b.adj_start, d->adj_start, (d->nobj + 1) * sizeof *d->adj_start) == 0);
  loaddb_dump_free(&b);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t pos = 0;
  int dumps;
  /* At most a few dumps per input, as a sequence in one file. */
  for (dumps = 0; dumps < 4; dumps++) {
    char msg[256];
    loaddb_dump d;
    size_t before = pos;
    int rc = loaddb_dump_parse((const char *)data, size, &pos, &d, msg, sizeof msg);
    if (rc == LOADDB_DUMP_OK) {
      assert(pos > before && pos <= size);
      check(&d);
      round_trip(&d);
    } else if (rc == LOADDB_DUMP_EINVAL) {
      assert(msg[0] != '\0');
    }
    loaddb_dump_free(&d);
    if (rc != LOADDB_DUMP_OK) break;
  }
  return 0;
}
