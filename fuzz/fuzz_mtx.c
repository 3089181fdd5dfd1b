/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the hypergraph readers of zdrive (testdrivers/
 * zdrive_mm.c): zdrive_read_hypergraph on MatrixMarket (.mtx) and hypergraph
 * (.hg) files, zdrive_read_mtxp on MatrixMarket+ (.mtxp) files, run on
 * MPI_COMM_SELF after a singleton MPI_Init.
 *
 * Input layout: byte 0 picks the options, the rest is the file text.
 *   bits 0-1  format: 0 and 3 .mtx, 1 .hg, 2 .mtxp
 *   bits 2-3  initial distribution: linear, cyclic, file, owner
 *   bit  4    objects = rows (else columns)
 *   bits 5-7  initial pins of .mtxp (value modulo 6: rows, columns, linear,
 *             cyclic, file, zero)
 * Options the readers refuse (file distribution for .mtx/.hg, owner or
 * objects = rows for .mtxp) are kept: their error path is fuzzed too.
 *
 * Besides the sanitizers' checks it asserts that a failed read leaves a
 * message and that a successful one gives a consistent hypergraph: on one
 * rank every vertex is local with IDs base..base+n-1, the lists' offsets
 * rise from 0, and every pin names an existing vertex (edge-compressed) or
 * every list does (vertex-compressed).
 */
#include <assert.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_zdrive_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  MPI_Init(argc, argv);
  return 0;
}

/* True when id names one of the mesh's vertices. */
static int is_vertex(const zdrive_mesh *m, ZOLTAN_ID_TYPE id)
{
  return id >= (ZOLTAN_ID_TYPE)m->gid_base &&
         id < (ZOLTAN_ID_TYPE)m->gid_base + (ZOLTAN_ID_TYPE)m->gnvtx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static const char *ext[4] = {"mtx", "hg", "mtxp", "mtx"};
  static const int ftype[4] = {ZDRIVE_FILE_MM, ZDRIVE_FILE_HG, ZDRIVE_FILE_MMPLUS, ZDRIVE_FILE_MM};
  static char base[256];
  char path[300];
  zdrive_deck deck;
  zdrive_mesh mesh;
  zdrive_status st;
  int rc, i, k, fmt;

  if (size < 1) return 0;
  if (base[0] == '\0') fuzz_temp_base(base, sizeof base, "mtx");
  fmt = data[0] & 3;
  snprintf(path, sizeof path, "%s.%s", base, ext[fmt]);
  if (fuzz_write_file(path, data + 1, size - 1) != 0) return 0;

  memset(&deck, 0, sizeof deck);
  memset(&mesh, 0, sizeof mesh);
  memset(&st, 0, sizeof st);
  snprintf(deck.deck_name, sizeof deck.deck_name, "fuzz.inp");
  snprintf(deck.file_name, sizeof deck.file_name, "%s", base);
  deck.file_type = ftype[fmt];
  deck.init_dist = (data[0] >> 2) & 3;
  deck.matrix_obj = (data[0] & 16) ? ZDRIVE_OBJ_ROWS : ZDRIVE_OBJ_COLUMNS;
  deck.init_pins = (data[0] >> 5) % 6;
  if (deck.file_type == ZDRIVE_FILE_MMPLUS)
    rc = zdrive_read_mtxp(&deck, &mesh, MPI_COMM_SELF, &st);
  else
    rc = zdrive_read_hypergraph(&deck, &mesh, MPI_COMM_SELF, &st);
  if (rc != 0) {
    assert(st.text[0] != '\0');
  } else {
    assert(mesh.is_hypergraph);
    assert(mesh.gnvtx >= 0);
    assert(deck.file_type == ZDRIVE_FILE_MMPLUS ? mesh.gid_base == 0
                                                : mesh.gid_base == 0 || mesh.gid_base == 1);
    assert(mesh.vwgt_dim >= 0 && mesh.vwgt_dim <= ZDRIVE_MAX_WGTS);
    assert(mesh.hewgt_dim >= 0 && mesh.hewgt_dim <= 9); /* .hg's VE code has one digit */
    if (deck.file_type != ZDRIVE_FILE_MMPLUS) {
      /* One rank holds every vertex, in order. */
      assert(mesh.num_elems == mesh.gnvtx);
      for (i = 0; i < mesh.num_elems; i++)
        assert(mesh.elems[i].gid == (ZOLTAN_ID_TYPE)(i + mesh.gid_base));
    } else {
      /* .mtxp keeps the vertex lines of the file, each an existing vertex. */
      assert(mesh.num_elems <= mesh.gnvtx);
      for (i = 0; i < mesh.num_elems; i++) assert(is_vertex(&mesh, mesh.elems[i].gid));
    }
    assert(mesh.nlists >= 0 && mesh.list_start[0] == 0);
    for (i = 0; i < mesh.nlists; i++) {
      assert(mesh.list_start[i + 1] >= mesh.list_start[i]);
      if (mesh.hg_format == ZOLTAN_COMPRESSED_VERTEX) assert(is_vertex(&mesh, mesh.list_gid[i]));
      for (k = mesh.list_start[i]; k < mesh.list_start[i + 1]; k++)
        if (mesh.hg_format == ZOLTAN_COMPRESSED_EDGE) assert(is_vertex(&mesh, mesh.pin_gid[k]));
    }
    assert(mesh.nhewgts >= 0);
  }
  zdrive_free_mesh(&mesh);
  return 0;
}
