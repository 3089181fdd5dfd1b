/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the Chaco readers of zdrive (zdrive_read_chaco in
 * testdrivers/zdrive_chaco.c: .graph, .coords and .assign files), run on
 * MPI_COMM_SELF after a singleton MPI_Init.
 *
 * Input layout: byte 0 picks the initial distribution (bit 0: read the
 * .assign file) and whether a .coords file exists (bit 1); the rest is the
 * .graph text, then after the first NUL byte the .coords text, then after
 * the next NUL byte the .assign text.
 *
 * Besides the sanitizers' checks it asserts that a failed read leaves a
 * message and that a successful one gives a consistent mesh: gnvtx objects
 * with GIDs 1..gnvtx, neighbours in range, dimensions within their limits.
 */
#include <assert.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_zdrive_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  MPI_Init(argc, argv);
  return 0;
}

/* Next NUL-separated piece of [*p, end). */
static const uint8_t *piece(const uint8_t **p, const uint8_t *end, size_t *len)
{
  const uint8_t *start = *p, *z = start < end ? memchr(start, 0, (size_t)(end - start)) : NULL;
  *len = (size_t)((z ? z : end) - start);
  *p = z ? z + 1 : end;
  return start;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char base[256];
  char path[300];
  const uint8_t *p, *end = data + size, *g, *c, *a;
  size_t gl, cl, al;
  zdrive_deck deck;
  zdrive_mesh mesh;
  zdrive_status st;
  int rc, i, j;

  if (size < 1) return 0;
  if (base[0] == '\0') fuzz_temp_base(base, sizeof base, "chaco");
  p = data + 1;
  g = piece(&p, end, &gl);
  c = piece(&p, end, &cl);
  a = piece(&p, end, &al);
  snprintf(path, sizeof path, "%s.graph", base);
  if (fuzz_write_file(path, g, gl) != 0) return 0;
  snprintf(path, sizeof path, "%s.coords", base);
  if (data[0] & 2) {
    if (fuzz_write_file(path, c, cl) != 0) return 0;
  } else {
    unlink(path);
  }
  snprintf(path, sizeof path, "%s.assign", base);
  if (fuzz_write_file(path, a, al) != 0) return 0;

  memset(&deck, 0, sizeof deck);
  memset(&mesh, 0, sizeof mesh);
  memset(&st, 0, sizeof st);
  snprintf(deck.file_name, sizeof deck.file_name, "%s", base);
  deck.file_type = ZDRIVE_FILE_CHACO;
  deck.init_dist = (data[0] & 1) ? ZDRIVE_DIST_FILE : ZDRIVE_DIST_LINEAR;
  rc = zdrive_read_chaco(&deck, &mesh, MPI_COMM_SELF, &st);
  if (rc != 0) {
    assert(st.text[0] != '\0');
  } else {
    assert(mesh.num_elems == mesh.gnvtx);
    assert(mesh.num_dims >= 0 && mesh.num_dims <= 3);
    assert(mesh.vwgt_dim >= 0 && mesh.vwgt_dim <= ZDRIVE_MAX_WGTS);
    for (i = 0; i < mesh.num_elems; i++) {
      const zdrive_elem *e = &mesh.elems[i];
      assert(e->gid == (ZOLTAN_ID_TYPE)(i + 1));
      assert(e->nadj >= 0);
      for (j = 0; j < e->nadj; j++)
        assert(e->adj[j] >= 1 && e->adj[j] <= (ZOLTAN_ID_TYPE)mesh.gnvtx);
    }
  }
  zdrive_free_mesh(&mesh);
  return 0;
}
