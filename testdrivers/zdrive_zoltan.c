/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's side of Zoltan: parameters, query callbacks, balancing and
 * migration.  Only Zoltan's public API is used, so that a library linked
 * ahead of Zoltan (our plugin layer) sees the same calls as in any
 * application.
 *
 * Compatibility notes (why things are done the way they are):
 *  - The user's parameters are set first, then LB_METHOD, as zdrive does, so
 *    a deck's method wins over a parameter.
 *  - Objects are handed to Zoltan in the order of the local array, and the
 *    array is rebuilt after a migration in zdrive's way (emigrants leave
 *    holes, immigrants fill the first holes in import-list order, then the
 *    last objects move into the remaining holes).  The first local object
 *    after balancing is what "test drops" probes, so this order is visible
 *    in the answer files.
 *  - The local ID of an object is its index in that array.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "zdrive.h"

/* ---- query callbacks ---------------------------------------------------- */

/* Number of local objects. */
static int cb_num_obj(void *data, int *ierr)
{
  zdrive_mesh *m = data;
  *ierr = ZOLTAN_OK;
  return m->num_elems;
}

/* Copies object i's IDs and weights into slot idx of Zoltan's arrays. */
static void put_obj(const zdrive_mesh *m, int i, int ngid, int nlid, ZOLTAN_ID_PTR gid,
                    ZOLTAN_ID_PTR lid, int wdim, float *wgt)
{
  int k;
  for (k = 0; k < ngid - 1; k++) gid[k] = 0;
  gid[ngid - 1] = m->elems[i].gid;
  if (nlid > 0) {
    for (k = 0; k < nlid - 1; k++) lid[k] = 0;
    lid[nlid - 1] = (ZOLTAN_ID_TYPE)i;
  }
  for (k = 0; k < wdim; k++) wgt[k] = k < ZDRIVE_MAX_WGTS ? m->elems[i].wgt[k] : 0.0f;
}

/* All local objects (list form). */
static void cb_obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                        int wdim, float *wgts, int *ierr)
{
  zdrive_mesh *m = data;
  int i;
  for (i = 0; i < m->num_elems; i++)
    put_obj(m, i, ngid, nlid, gids + (size_t)i * ngid, lids ? lids + (size_t)i * nlid : NULL, wdim,
            wgts + (size_t)i * wdim);
  *ierr = ZOLTAN_OK;
}

/* First local object (iterator form). */
static int cb_first_obj(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                        int wdim, float *wgt, int *ierr)
{
  zdrive_mesh *m = data;
  *ierr = ZOLTAN_OK;
  if (m->num_elems == 0) return 0;
  put_obj(m, 0, ngid, nlid, gid, lid, wdim, wgt);
  return 1;
}

/* Finds the array index of an object from its IDs (local ID when given). */
static int obj_index(const zdrive_mesh *m, int ngid, int nlid, const ZOLTAN_ID_TYPE *gid,
                     const ZOLTAN_ID_TYPE *lid)
{
  int i;
  if (nlid > 0 && lid) {
    i = (int)lid[nlid - 1];
    if (i >= 0 && i < m->num_elems && m->elems[i].gid == gid[ngid - 1]) return i;
  }
  for (i = 0; i < m->num_elems; i++)
    if (m->elems[i].gid == gid[ngid - 1]) return i;
  return -1;
}

/* Next local object (iterator form). */
static int cb_next_obj(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                       ZOLTAN_ID_PTR next_gid, ZOLTAN_ID_PTR next_lid, int wdim, float *wgt,
                       int *ierr)
{
  zdrive_mesh *m = data;
  int i = obj_index(m, ngid, nlid, gid, lid);
  *ierr = i < 0 ? ZOLTAN_FATAL : ZOLTAN_OK;
  if (i < 0 || i + 1 >= m->num_elems) return 0;
  put_obj(m, i + 1, ngid, nlid, next_gid, next_lid, wdim, wgt);
  return 1;
}

/* Dimension of the geometry (0 without a .coords file). */
static int cb_num_geom(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((zdrive_mesh *)data)->num_dims;
}

/* Coordinates of one object. */
static void cb_geom(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, double *x,
                    int *ierr)
{
  zdrive_mesh *m = data;
  int i = obj_index(m, ngid, nlid, gid, lid), k;
  if (i < 0 || m->num_dims == 0) {
    *ierr = ZOLTAN_FATAL; /* no geometry was read */
    return;
  }
  for (k = 0; k < m->num_dims; k++) x[k] = m->elems[i].coord[k];
  *ierr = ZOLTAN_OK;
}

/* Coordinates of many objects. */
static void cb_geom_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                          ZOLTAN_ID_PTR lids, int ndim, double *x, int *ierr)
{
  int i;
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n && *ierr == ZOLTAN_OK; i++)
    cb_geom(data, ngid, nlid, gids + (size_t)i * ngid, lids ? lids + (size_t)i * nlid : NULL,
            x + (size_t)i * ndim, ierr);
}

/* Number of neighbours of one object. */
static int cb_num_edges(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                        int *ierr)
{
  zdrive_mesh *m = data;
  int i = obj_index(m, ngid, nlid, gid, lid);
  *ierr = i < 0 ? ZOLTAN_FATAL : ZOLTAN_OK;
  return i < 0 ? 0 : m->elems[i].nadj;
}

/* Neighbour counts of many objects. */
static void cb_num_edges_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                               ZOLTAN_ID_PTR lids, int *nedges, int *ierr)
{
  int i;
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n && *ierr == ZOLTAN_OK; i++)
    nedges[i] = cb_num_edges(data, ngid, nlid, gids + (size_t)i * ngid,
                             lids ? lids + (size_t)i * nlid : NULL, ierr);
}

/* Neighbours of object i: IDs, owning ranks and edge weights. */
static void put_edges(const zdrive_mesh *m, int i, int ngid, ZOLTAN_ID_PTR nb, int *procs, int wdim,
                      float *ew)
{
  const zdrive_elem *e = &m->elems[i];
  int j, k;
  for (j = 0; j < e->nadj; j++) {
    for (k = 0; k < ngid - 1; k++) nb[(size_t)j * ngid + k] = 0;
    nb[(size_t)j * ngid + ngid - 1] = e->adj[j];
    procs[j] = e->adj_proc[j];
    for (k = 0; k < wdim; k++)
      ew[(size_t)j * wdim + k] = k == 0 ? (e->ewgt ? e->ewgt[j] : 1.0f) : 0.0f;
  }
}

/* Edge list of one object. */
static void cb_edge_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                         ZOLTAN_ID_PTR nb, int *procs, int wdim, float *ew, int *ierr)
{
  zdrive_mesh *m = data;
  int i = obj_index(m, ngid, nlid, gid, lid);
  if (i < 0) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  put_edges(m, i, ngid, nb, procs, wdim, ew);
  *ierr = ZOLTAN_OK;
}

/* Edge lists of many objects, concatenated. */
static void cb_edge_list_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                               ZOLTAN_ID_PTR lids, int *nedges, ZOLTAN_ID_PTR nb, int *procs,
                               int wdim, float *ew, int *ierr)
{
  zdrive_mesh *m = data;
  int i;
  size_t off = 0;
  (void)nedges;
  for (i = 0; i < n; i++) {
    int idx =
        obj_index(m, ngid, nlid, gids + (size_t)i * ngid, lids ? lids + (size_t)i * nlid : NULL);
    if (idx < 0) {
      *ierr = ZOLTAN_FATAL;
      return;
    }
    put_edges(m, idx, ngid, nb + off * ngid, procs + off, wdim, ew + off * wdim);
    off += (size_t)m->elems[idx].nadj;
  }
  *ierr = ZOLTAN_OK;
}

/* Current part of one object. */
static int cb_part(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr)
{
  zdrive_mesh *m = data;
  int i = obj_index(m, ngid, nlid, gid, lid);
  *ierr = i < 0 ? ZOLTAN_FATAL : ZOLTAN_OK;
  return i < 0 ? -1 : m->elems[i].part;
}

/* Current parts of many objects. */
static void cb_part_multi(void *data, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids,
                          ZOLTAN_ID_PTR lids, int *parts, int *ierr)
{
  int i;
  *ierr = ZOLTAN_OK;
  for (i = 0; i < n && *ierr == ZOLTAN_OK; i++)
    parts[i] = cb_part(data, ngid, nlid, gids + (size_t)i * ngid,
                       lids ? lids + (size_t)i * nlid : NULL, ierr);
}

/* ---- hypergraph callbacks (hypergraph input) ---------------------------- */

/* Number of local lists and pins, and their compression, as zdrive reports them. */
static void cb_hg_size_cs(void *data, int *nlists, int *npins, int *format, int *ierr)
{
  zdrive_mesh *m = data;
  *nlists = m->nlists;
  *npins = m->list_start ? m->list_start[m->nlists] : 0;
  *format = m->hg_format;
  *ierr = ZOLTAN_OK;
}

/* The local lists: their IDs, offsets and pins. */
static void cb_hg_cs(void *data, int ngid, int nlists, int npins, int format,
                     ZOLTAN_ID_PTR list_gids, int *list_ptr, ZOLTAN_ID_PTR pin_gids, int *ierr)
{
  zdrive_mesh *m = data;
  int i, k;
  if (format != m->hg_format || nlists != m->nlists || npins != m->list_start[m->nlists]) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (i = 0; i < nlists; i++) {
    for (k = 0; k < ngid - 1; k++) list_gids[(size_t)i * ngid + k] = 0;
    list_gids[(size_t)i * ngid + ngid - 1] = m->list_gid[i];
    list_ptr[i] = m->list_start[i];
  }
  for (i = 0; i < npins; i++) {
    for (k = 0; k < ngid - 1; k++) pin_gids[(size_t)i * ngid + k] = 0;
    pin_gids[(size_t)i * ngid + ngid - 1] = m->pin_gid[i];
  }
  *ierr = ZOLTAN_OK;
}

/* Number of hyperedges whose weights this rank supplies. */
static void cb_hg_size_ewgts(void *data, int *n, int *ierr)
{
  *n = ((zdrive_mesh *)data)->nhewgts;
  *ierr = ZOLTAN_OK;
}

/* Hyperedge weights; dimensions the file lacks weigh 1. */
static void cb_hg_ewgts(void *data, int ngid, int nlid, int n, int wdim, ZOLTAN_ID_PTR gids,
                        ZOLTAN_ID_PTR lids, float *w, int *ierr)
{
  zdrive_mesh *m = data;
  int i, k;
  if (n > m->nhewgts) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  for (i = 0; i < n; i++) {
    for (k = 0; k < ngid - 1; k++) gids[(size_t)i * ngid + k] = 0;
    gids[(size_t)i * ngid + ngid - 1] = m->hewgt_gid[i];
    if (nlid > 0 && lids) {
      for (k = 0; k < nlid - 1; k++) lids[(size_t)i * nlid + k] = 0;
      lids[(size_t)i * nlid + nlid - 1] = (ZOLTAN_ID_TYPE)i;
    }
    for (k = 0; k < wdim; k++)
      w[(size_t)i * wdim + k] = k < m->hewgt_dim ? m->hewgts[(size_t)i * m->hewgt_dim + k] : 1.0f;
  }
  *ierr = ZOLTAN_OK;
}

/* ---- fixed objects ("test fixed objects") -------------------------------- */

/* Number of local objects fixed to a part. */
static int cb_num_fixed(void *data, int *ierr)
{
  zdrive_mesh *m = data;
  int i, n = 0;
  for (i = 0; i < m->num_elems; i++) n += m->elems[i].fixed_part != -1;
  *ierr = ZOLTAN_OK;
  return n;
}

/* The fixed objects and their parts, in local order. */
static void cb_fixed_list(void *data, int nfixed, int ngid, ZOLTAN_ID_PTR gids, int *parts,
                          int *ierr)
{
  zdrive_mesh *m = data;
  int i, k, n = 0;
  for (i = 0; i < m->num_elems; i++) {
    if (m->elems[i].fixed_part == -1) continue;
    if (n == nfixed) break;
    for (k = 0; k < ngid - 1; k++) gids[(size_t)n * ngid + k] = 0;
    gids[(size_t)n * ngid + ngid - 1] = m->elems[i].gid;
    parts[n++] = m->elems[i].fixed_part;
  }
  *ierr = n == nfixed ? ZOLTAN_OK : ZOLTAN_FATAL;
}

/*
 * Fixes objects to parts by zdrive's cases of "test fixed objects" (by the
 * objects' local index i, P = NUM_GLOBAL_PARTS): 1 all to i % P; 2 odd i to
 * i % P; 3 every tenth to i % P; 4 all to part 1; 5 the second half to 1;
 * 6 the first tenth to 1; 7 the first object to rank % P; 8 on odd ranks the
 * first half to rank % P; 9 on rank 0 the first two to parts 0 and 1; 10
 * none.
 */
static void setup_fixed(const zdrive_deck *deck, zdrive_mesh *m)
{
  int i, n = m->num_elems, P = m->nglobal_parts > 0 ? m->nglobal_parts : 1, r = m->rank;
  for (i = 0; i < n; i++) m->elems[i].fixed_part = -1;
  for (i = 0; i < n; i++) {
    int f = -1;
    switch (deck->test_fixed_objects) {
    case 1:
      f = i % P;
      break;
    case 2:
      if (i % 2) f = i % P;
      break;
    case 3:
      if (i % 10 == 0) f = i % P;
      break;
    case 4:
      f = 1;
      break;
    case 5:
      if (i >= n / 2) f = 1;
      break;
    case 6:
      if (i < n / 10) f = 1;
      break;
    case 7:
      if (i == 0) f = r % P;
      break;
    case 8:
      if ((r & 1) && i < n / 2) f = r % P;
      break;
    case 9:
      if (r == 0 && i < 2) f = i;
      break;
    default:
      break;
    }
    m->elems[i].fixed_part = f;
  }
}

/* ---- migration ------------------------------------------------------------ */

/* Fixed header of a packed object; arrays follow it. */
typedef struct packed {
  ZOLTAN_ID_TYPE gid;
  int part, perm, iperm, nadj, has_ewgt;
  float wgt[ZDRIVE_MAX_WGTS];
  float coord[3];
} packed;

/* Bytes needed to pack object i, rounded up so that packed arrays stay aligned. */
static int packed_size(const zdrive_elem *e)
{
  size_t s = sizeof(packed) + (size_t)e->nadj * (sizeof(ZOLTAN_ID_TYPE) + sizeof(int)) +
             (e->ewgt ? (size_t)e->nadj * sizeof(float) : 0);
  return (int)((s + 7) & ~(size_t)7);
}

/* Slot of a global ID during a migration, or -1. */
static int slot_of(const zdrive_mesh *m, ZOLTAN_ID_TYPE gid)
{
  int i;
  for (i = 0; i < m->nslots; i++)
    if (m->slot_gid[i] == gid) return i;
  return -1;
}

/* Rounds up to a multiple of 8 bytes, the alignment Zoltan uses on 64-bit machines. */
static int align8(int n) { return (n + 7) & ~7; }

/*
 * Size of one object as zdrive reports it.  Zoltan uses these sizes as
 * migration costs (LB_APPROACH=REPARTITION, the default, weighs them), so
 * matching Zoltan's answers needs zdrive's numbers, not our buffer size:
 * a 200-byte record, 8 bytes for the node ID when there are coordinates,
 * 8 + 4 bytes per neighbour, 4 per edge weight once a migration has seen
 * edge weights, and the coordinates as floats.  We never return less than
 * our packed size.
 */
static int cb_obj_size(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                       int *ierr)
{
  zdrive_mesh *m = data;
  const zdrive_elem *e;
  int i, size, nodes;
  /* During a migration objects live at their slot; lid is that index. */
  i = (nlid > 0 && lid) ? (int)lid[nlid - 1] : -1;
  if (i < 0 || i >= m->elem_cap || m->elems[i].gid != gid[ngid - 1])
    i = obj_index(m, ngid, 0, gid, NULL);
  if (i < 0) {
    *ierr = ZOLTAN_FATAL;
    return 0;
  }
  e = &m->elems[i];
  nodes = m->num_dims > 0 ? 1 : 0;
  size = align8(200);
  if (m->num_dims > 0) size += nodes * 8;
  size += e->nadj * 8 + e->nadj * (int)sizeof(int);
  if (m->use_edge_wgts) size = align8(size) + e->nadj * (int)sizeof(float);
  size = align8(size) + nodes * m->num_dims * (int)sizeof(float);
  if (size < packed_size(e)) size = packed_size(e);
  *ierr = ZOLTAN_OK;
  return size;
}

/* Packs an emigrant and leaves a hole in its place. */
static void cb_pack(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                    int dest_part, int size, char *buf, int *ierr)
{
  zdrive_mesh *m = data;
  zdrive_elem *e;
  packed *p = (packed *)buf;
  int i = (nlid > 0 && lid) ? (int)lid[nlid - 1] : -1, k;
  ZOLTAN_ID_TYPE *ids;
  int *procs;
  float *ew;
  if (i < 0 || i >= m->elem_cap || m->elems[i].gid != gid[ngid - 1])
    i = obj_index(m, ngid, 0, gid, NULL);
  if (i < 0 || size < packed_size(&m->elems[i])) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  e = &m->elems[i];
  memset(p, 0, sizeof(*p));
  p->gid = e->gid;
  p->part = dest_part;
  p->perm = e->perm;
  p->iperm = e->iperm;
  p->nadj = e->nadj;
  p->has_ewgt = e->ewgt != NULL;
  memcpy(p->wgt, e->wgt, sizeof(p->wgt));
  memcpy(p->coord, e->coord, sizeof(p->coord));
  ids = (ZOLTAN_ID_TYPE *)(p + 1);
  procs = (int *)(ids + e->nadj);
  ew = (float *)(procs + e->nadj);
  for (k = 0; k < e->nadj; k++) {
    ids[k] = e->adj[k];
    procs[k] = e->adj_proc[k];
    if (e->ewgt) ew[k] = e->ewgt[k];
  }
  free(e->adj);
  free(e->adj_proc);
  free(e->ewgt);
  memset(e, 0, sizeof(*e));
  e->gid = ZOLTAN_ID_INVALID;
  m->num_elems--;
  *ierr = ZOLTAN_OK;
}

/* Unpacks an immigrant into the slot planned for it. */
static void cb_unpack(void *data, int ngid, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr)
{
  zdrive_mesh *m = data;
  const packed *p = (const packed *)buf;
  int s = slot_of(m, gid[ngid - 1]), k;
  zdrive_elem *e;
  const ZOLTAN_ID_TYPE *ids;
  const int *procs;
  const float *ew;
  (void)size;
  if (s < 0) {
    *ierr = ZOLTAN_FATAL;
    return;
  }
  e = &m->elems[s];
  memset(e, 0, sizeof(*e));
  e->gid = p->gid;
  e->part = p->part;
  e->perm = p->perm;
  e->iperm = p->iperm;
  e->nadj = p->nadj;
  memcpy(e->wgt, p->wgt, sizeof(e->wgt));
  memcpy(e->coord, p->coord, sizeof(e->coord));
  ids = (const ZOLTAN_ID_TYPE *)(p + 1);
  procs = (const int *)(ids + p->nadj);
  ew = (const float *)(procs + p->nadj);
  if (p->nadj) {
    e->adj = malloc((size_t)p->nadj * sizeof(ZOLTAN_ID_TYPE));
    e->adj_proc = malloc((size_t)p->nadj * sizeof(int));
    e->ewgt = p->has_ewgt ? malloc((size_t)p->nadj * sizeof(float)) : NULL;
    if (!e->adj || !e->adj_proc || (p->has_ewgt && !e->ewgt)) {
      *ierr = ZOLTAN_MEMERR;
      return;
    }
    for (k = 0; k < p->nadj; k++) {
      e->adj[k] = ids[k];
      e->adj_proc[k] = procs[k];
      if (e->ewgt) e->ewgt[k] = ew[k];
    }
  }
  m->num_elems++;
  m->mig_objects++;
  m->mig_weight += e->wgt[0];
  *ierr = ZOLTAN_OK;
}

/* Plans the slots of the new local array (see the file comment). */
static void cb_pre_migrate(void *data, int ngid, int nlid, int nimp, ZOLTAN_ID_PTR imp_gids,
                           ZOLTAN_ID_PTR imp_lids, int *imp_procs, int *imp_parts, int nexp,
                           ZOLTAN_ID_PTR exp_gids, ZOLTAN_ID_PTR exp_lids, int *exp_procs,
                           int *exp_parts, int *ierr)
{
  zdrive_mesh *m = data;
  int i, j, n, rank = m->rank, nimp_remote = 0, nexp_remote = 0;
  (void)imp_lids;
  (void)imp_parts;
  *ierr = ZOLTAN_OK;
  /* As zdrive: edge weights count in object sizes once a migration saw them. */
  i = m->num_elems > 0 && m->elems[0].ewgt != NULL;
  MPI_Allreduce(&i, &m->use_edge_wgts, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (nimp < 0) nimp = 0;
  if (nexp < 0) nexp = 0;
  for (i = 0; i < nimp; i++) nimp_remote += imp_procs[i] != rank;
  for (i = 0; i < nexp; i++) nexp_remote += exp_procs[i] != rank;
  n = m->num_elems + nimp_remote - nexp_remote;
  if (n < m->elem_cap) n = m->elem_cap;
  free(m->slot_gid);
  m->slot_gid = malloc((size_t)(n > 0 ? n : 1) * sizeof(ZOLTAN_ID_TYPE));
  if (!m->slot_gid) {
    *ierr = ZOLTAN_MEMERR;
    return;
  }
  m->nslots = n;
  for (i = 0; i < n; i++) m->slot_gid[i] = i < m->num_elems ? m->elems[i].gid : ZOLTAN_ID_INVALID;
  for (i = 0; i < nexp; i++) {
    int e = obj_index(m, ngid, nlid, exp_gids + (size_t)i * ngid,
                      exp_lids ? exp_lids + (size_t)i * nlid : NULL);
    if (e < 0) {
      *ierr = ZOLTAN_FATAL;
      return;
    }
    m->elems[e].part = exp_parts[i];
    if (exp_procs[i] != rank) m->slot_gid[e] = ZOLTAN_ID_INVALID;
  }
  for (i = 0, j = 0; i < nimp; i++) {
    if (imp_procs[i] == rank) continue;
    while (j < n && m->slot_gid[j] != ZOLTAN_ID_INVALID) j++;
    if (j == n) {
      *ierr = ZOLTAN_FATAL;
      return;
    }
    m->slot_gid[j] = imp_gids[(size_t)i * ngid + ngid - 1];
  }
  if (n > m->elem_cap) {
    zdrive_elem *ne = realloc(m->elems, (size_t)n * sizeof(*ne));
    if (!ne) {
      *ierr = ZOLTAN_MEMERR;
      return;
    }
    memset(ne + m->elem_cap, 0, (size_t)(n - m->elem_cap) * sizeof(*ne));
    for (i = m->elem_cap; i < n; i++) ne[i].gid = ZOLTAN_ID_INVALID;
    m->elems = ne;
    m->elem_cap = n;
  }
  for (i = m->num_elems; i < m->elem_cap; i++)
    if (i >= m->num_elems) m->elems[i].gid = ZOLTAN_ID_INVALID;
}

/* Makes the array dense again: the last object moves into each hole. */
static void cb_post_migrate(void *data, int ngid, int nlid, int nimp, ZOLTAN_ID_PTR imp_gids,
                            ZOLTAN_ID_PTR imp_lids, int *imp_procs, int *imp_parts, int nexp,
                            ZOLTAN_ID_PTR exp_gids, ZOLTAN_ID_PTR exp_lids, int *exp_procs,
                            int *exp_parts, int *ierr)
{
  zdrive_mesh *m = data;
  int i, last;
  (void)ngid;
  (void)nlid;
  (void)nimp;
  (void)imp_gids;
  (void)imp_lids;
  (void)imp_procs;
  (void)imp_parts;
  (void)nexp;
  (void)exp_gids;
  (void)exp_lids;
  (void)exp_procs;
  (void)exp_parts;
  for (i = 0; i < m->nslots; i++) {
    if (m->slot_gid[i] != ZOLTAN_ID_INVALID) continue;
    for (last = m->nslots - 1; last >= 0; last--)
      if (m->slot_gid[last] != ZOLTAN_ID_INVALID) break;
    if (last < i) break;
    m->elems[i] = m->elems[last];
    m->slot_gid[i] = m->slot_gid[last];
    m->slot_gid[last] = ZOLTAN_ID_INVALID;
    memset(&m->elems[last], 0, sizeof(m->elems[last]));
    m->elems[last].gid = ZOLTAN_ID_INVALID;
  }
  free(m->slot_gid);
  m->slot_gid = NULL;
  m->nslots = 0;
  *ierr = ZOLTAN_OK;
}

/* After a migration, every neighbour's rank is looked up again. */
static int refresh_adj_procs(zdrive_mesh *m, MPI_Comm comm)
{
  int *own = malloc((size_t)(m->gnvtx > 0 ? m->gnvtx : 1) * sizeof(int)), i, j;
  int *gown = malloc((size_t)(m->gnvtx > 0 ? m->gnvtx : 1) * sizeof(int));
  if (!own || !gown) {
    free(own);
    free(gown);
    return 1;
  }
  for (i = 0; i < m->gnvtx; i++) own[i] = -1;
  for (i = 0; i < m->num_elems; i++) own[m->elems[i].gid - (ZOLTAN_ID_TYPE)m->gid_base] = m->rank;
  MPI_Allreduce(own, gown, m->gnvtx, MPI_INT, MPI_MAX, comm);
  for (i = 0; i < m->num_elems; i++)
    for (j = 0; j < m->elems[i].nadj; j++) m->elems[i].adj_proc[j] = gown[m->elems[i].adj[j] - 1];
  free(own);
  free(gown);
  return 0;
}

/* ---- setup ---------------------------------------------------------------- */

/* Sets one parameter and turns Zoltan's refusal into our error. */
static int set_param(struct Zoltan_Struct *zz, const char *name, const char *val, zdrive_status *st,
                     const char *deck)
{
  if (Zoltan_Set_Param(zz, name, val) == ZOLTAN_FATAL) {
    zdrive_set_error(st, deck, 0, "Zoltan refused parameter %s = %s", name, val);
    return 1;
  }
  return 0;
}

/*
 * The part experiments of zdrive's "test local partitions" (0..9): local
 * part counts and part sizes, as zdrive sets them.  nglobal is the number
 * of global parts, wdim the weight dimension asked for.  Returns 0, or 1
 * with st set.
 */
static int test_local_parts(struct Zoltan_Struct *zz, const zdrive_deck *deck, int rank, int nranks,
                            int nglobal, int wdim, zdrive_status *st)
{
  const char *dn = deck->deck_name;
  char s[32];
  int i;
  switch (deck->test_local_parts) {
  case 0:
    break;
  case 1: /* rank r asks for r parts */
  case 2: /* odd ranks ask for r parts, even ranks take the rest */
    if (deck->test_local_parts == 1 || rank % 2) {
      snprintf(s, sizeof(s), "%d", rank);
      if (set_param(zz, "NUM_LOCAL_PARTS", s, st, dn)) return 1;
    }
    break;
  case 3: /* one part per rank, sizes r (upper half: 0.5 or 1.5) */
  case 5: /* the same, shifted by one so that no part is empty */
  {
    int idx = 0, p = rank, plus = deck->test_local_parts == 5;
    float size = (float)(rank + plus);
    Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &p, &idx, &size);
    if (rank >= nranks / 2) {
      size = 0.5f + (float)(rank % 2) + (float)plus;
      Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &p, &idx, &size);
    }
    break;
  }
  case 4: /* r parts on rank r, each of size 1/r */
  {
    int *ids = malloc((size_t)(rank + 1) * 2 * sizeof(int));
    float *sz = malloc((size_t)(rank + 1) * sizeof(float));
    if (!ids || !sz) {
      free(ids);
      free(sz);
      zdrive_set_error(st, dn, 0, "out of memory");
      return 1;
    }
    snprintf(s, sizeof(s), "%d", rank);
    if (set_param(zz, "NUM_LOCAL_PARTS", s, st, dn)) {
      free(ids);
      free(sz);
      return 1;
    }
    for (i = 0; i < rank; i++) {
      ids[i] = i;
      ids[rank + 1 + i] = 0;
      sz[i] = 1.0f / (float)rank;
    }
    Zoltan_LB_Set_Part_Sizes(zz, 0, rank, ids, ids + rank + 1, sz);
    free(ids);
    free(sz);
    break;
  }
  case 6: /* sizes r; the last four parts empty on six or more ranks */
  case 7: /* sizes r; the first four parts empty on six or more ranks */
  {
    int idx = 0, p = rank;
    float size = (float)rank;
    Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &p, &idx, &size);
    if (nranks >= 6 && ((deck->test_local_parts == 6 && rank >= nranks - 4) ||
                        (deck->test_local_parts == 7 && rank < 4))) {
      size = 0.0f;
      Zoltan_LB_Set_Part_Sizes(zz, 1, 1, &p, &idx, &size);
    } else if (nranks < 6) {
      zdrive_set_error(st, dn, 0, "test local partitions = %d needs six or more ranks",
                       deck->test_local_parts);
      return 1;
    }
    break;
  }
  case 8: /* 100 parts of sizes 0, 1, ..., 99 */
  {
    int ids[100];
    float sz[100];
    for (i = 0; i < 100; i++) {
      ids[i] = i;
      sz[i] = (float)i;
    }
    Zoltan_LB_Set_Part_Sizes(zz, 1, 100, ids, NULL, sz);
    break;
  }
  case 9: /* uniform sizes set explicitly for every part and weight */
  {
    int wd = wdim > 0 ? wdim : 1, n = nglobal * wd;
    int *ids = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof(int));
    float *sz = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (!ids || !sz) {
      free(ids);
      free(sz);
      zdrive_set_error(st, dn, 0, "out of memory");
      return 1;
    }
    for (i = 0; i < n; i++) {
      sz[i] = 1.0f / (float)nglobal;
      ids[i] = i / wd;
      ids[n + i] = i % wd;
    }
    Zoltan_LB_Set_Part_Sizes(zz, 1, n, ids, ids + n, sz);
    free(ids);
    free(sz);
    break;
  }
  default:
    zdrive_set_error(st, dn, 0, "test local partitions = %d is not one of 0..9",
                     deck->test_local_parts);
    return 1;
  }

  return 0;
}

/* Registers the mesh's callbacks, as the deck's "test ... callbacks" and
 * "test null ..." keys ask. */
static void register_callbacks(struct Zoltan_Struct *zz, const zdrive_deck *deck, zdrive_mesh *mesh)
{
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, mesh);
  if (deck->test_multi_callbacks) {
    Zoltan_Set_Obj_List_Fn(zz, cb_obj_list, mesh);
    Zoltan_Set_Geom_Multi_Fn(zz, cb_geom_multi, mesh);
    Zoltan_Set_Part_Multi_Fn(zz, cb_part_multi, mesh);
  } else {
    Zoltan_Set_First_Obj_Fn(zz, cb_first_obj, mesh);
    Zoltan_Set_Next_Obj_Fn(zz, cb_next_obj, mesh);
    Zoltan_Set_Geom_Fn(zz, cb_geom, mesh);
    Zoltan_Set_Part_Fn(zz, cb_part, mesh);
  }
  Zoltan_Set_Num_Geom_Fn(zz, cb_num_geom, mesh);
  if (deck->test_graph_callbacks) {
    if (deck->test_multi_callbacks) {
      Zoltan_Set_Num_Edges_Multi_Fn(zz, cb_num_edges_multi, mesh);
      Zoltan_Set_Edge_List_Multi_Fn(zz, cb_edge_list_multi, mesh);
    } else {
      Zoltan_Set_Num_Edges_Fn(zz, cb_num_edges, mesh);
      Zoltan_Set_Edge_List_Fn(zz, cb_edge_list, mesh);
    }
  }
  if (deck->test_fixed_objects) {
    Zoltan_Set_Num_Fixed_Obj_Fn(zz, cb_num_fixed, mesh);
    Zoltan_Set_Fixed_Obj_List_Fn(zz, cb_fixed_list, mesh);
  }
  /* As zdrive: hypergraph input hands Zoltan its pins in compressed form. */
  if (mesh->is_hypergraph && deck->test_hg_callbacks) {
    Zoltan_Set_HG_Size_CS_Fn(zz, cb_hg_size_cs, mesh);
    Zoltan_Set_HG_CS_Fn(zz, cb_hg_cs, mesh);
    Zoltan_Set_HG_Size_Edge_Wts_Fn(zz, cb_hg_size_ewgts, mesh);
    Zoltan_Set_HG_Edge_Wts_Fn(zz, cb_hg_ewgts, mesh);
  }
  Zoltan_Set_Obj_Size_Fn(zz, cb_obj_size, mesh);
  Zoltan_Set_Pack_Obj_Fn(zz, cb_pack, mesh);
  Zoltan_Set_Unpack_Obj_Fn(zz, cb_unpack, mesh);
  if (deck->test_null_lists == ZDRIVE_NULL_NONE) {
    Zoltan_Set_Pre_Migrate_PP_Fn(zz, cb_pre_migrate, mesh);
    Zoltan_Set_Post_Migrate_PP_Fn(zz, cb_post_migrate, mesh);
  }
}

/*
 * zdrive_setup_zoltan - collective: applies the deck to zz (parameters, then
 * LB_METHOD, then the part experiments of "test local partitions") and
 * registers the callbacks.  Returns 0, or 1 with st set.
 */
int zdrive_setup_zoltan(struct Zoltan_Struct *zz, const zdrive_deck *deck,
                        const zdrive_param *params, zdrive_mesh *mesh, zdrive_status *st)
{
  int i, nglobal = mesh->nranks, wdim = 0;
  const char *dn = deck->deck_name;

  mesh->nglobal_parts = nglobal;
  for (i = 0; i < deck->num_params; i++) {
    int r = params[i].index >= 0
                ? Zoltan_Set_Param_Vec(zz, params[i].name, params[i].val, params[i].index)
                : Zoltan_Set_Param(zz, params[i].name, params[i].val);
    if (r == ZOLTAN_FATAL) {
      zdrive_set_error(st, dn, params[i].line, "Zoltan refused parameter %s = %s", params[i].name,
                       params[i].val);
      return 1;
    }
    if (!strncasecmp(params[i].name, "num_global_part", 15)) nglobal = atoi(params[i].val);
    mesh->nglobal_parts = nglobal;
    if (!strcasecmp(params[i].name, "obj_weight_dim")) wdim = atoi(params[i].val);
    if (!strcasecmp(params[i].name, "return_lists"))
      mesh->parts_lists = strstr(params[i].val, "part") != NULL;
  }
  if (Zoltan_Set_Param(zz, "LB_METHOD", deck->method) != ZOLTAN_OK) {
    zdrive_set_error(st, dn, deck->method_line,
                     "unknown decomposition method '%s' "
                     "(Zoltan refused LB_METHOD)",
                     deck->method);
    return 1;
  }
  if (test_local_parts(zz, deck, mesh->rank, mesh->nranks, nglobal, wdim, st)) return 1;
  register_callbacks(zz, deck, mesh);
  return 0;
}

/* ---- balancing ------------------------------------------------------------ */

/*
 * zdrive_balance - collective: one Zoltan_LB_Partition and the migration of
 * its answer, as zdrive's run_zoltan does (including the LB_Eval reports at
 * debug level >= 1, the RETURN_LISTS=PARTS path and the null-list tests).
 * method is the deck's method (used for the RCB box test).  Returns 0, or 1
 * with st set on every rank.
 */
int zdrive_balance(struct Zoltan_Struct *zz, const zdrive_deck *deck, zdrive_mesh *mesh,
                   const char *method, zdrive_status *st)
{
  ZOLTAN_ID_PTR ig = NULL, il = NULL, eg = NULL, el = NULL;
  int *ip = NULL, *ipart = NULL, *ep = NULL, *epart = NULL;
  int changes, ngid, nlid, nimp, nexp, rc = 1, ierr, gerr, parts_only = 0;
  double t0, t, tmax;
  MPI_Comm comm = MPI_COMM_WORLD;
  char fname[ZDRIVE_PATH + 16];

  (void)method;
  if (deck->debug > 0) {
    if (mesh->rank == 0) printf("\nBEFORE load balancing\n");
    zdrive_print_stats(mesh, "before", comm);
    if (Zoltan_LB_Eval(zz, 1, NULL, NULL, NULL) != ZOLTAN_OK && mesh->rank == 0)
      printf("Warning: Zoltan_LB_Eval did not return ZOLTAN_OK\n");
  }
  if (deck->test_gen_files) {
    snprintf(fname, sizeof(fname), "%s.before", deck->file_name);
    Zoltan_Generate_Files(zz, fname, 1, 1, 1, 1);
  }
  if (deck->test_fixed_objects) setup_fixed(deck, mesh);
  MPI_Barrier(comm);
  t0 = MPI_Wtime();
  ierr = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipart, &nexp, &eg,
                             &el, &ep, &epart);
  t = MPI_Wtime() - t0;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  gerr = ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN;
  MPI_Allreduce(MPI_IN_PLACE, &gerr, 1, MPI_INT, MPI_MAX, comm);
  if (gerr) {
    zdrive_set_error(st, deck->deck_name, 0,
                     "Zoltan_LB_Partition failed (method '%s'; see Zoltan's messages above)",
                     deck->method);
    goto cleanup;
  }
  if (mesh->rank == 0) printf("\nDRIVER:  Zoltan_LB_Partition time = %g\n", tmax);
  {
    int mine[2] = {nimp, nexp}, mx[2], mn[2];
    MPI_Allreduce(mine, mx, 2, MPI_INT, MPI_MAX, comm);
    MPI_Allreduce(mine, mn, 2, MPI_INT, MPI_MIN, comm);
    if (mesh->rank == 0) {
      printf("DRIVER:  new_decomp %d Min/Max Import: %d %d\n", changes, mn[0], mx[0]);
      printf("DRIVER:  new_decomp %d Min/Max Export: %d %d\n", changes, mn[1], mx[1]);
    }
  }
  mesh->mig_objects = 0;
  mesh->mig_weight = 0.0;
  if (changes && (nexp != -1 || nimp != -1)) {
    /* RETURN_LISTS=PARTS lists every object; keep those that move, as zdrive. */
    parts_only = mesh->parts_lists;
    if (parts_only) {
      int k = 0, i;
      for (i = 0; i < nexp; i++) {
        int e =
            obj_index(mesh, ngid, nlid, eg + (size_t)i * ngid, el ? el + (size_t)i * nlid : NULL);
        if (e < 0) continue;
        if (epart[i] != mesh->elems[e].part || ep[i] != mesh->rank) {
          memmove(eg + (size_t)k * ngid, eg + (size_t)i * ngid, (size_t)ngid * sizeof(*eg));
          if (nlid)
            memmove(el + (size_t)k * nlid, el + (size_t)i * nlid, (size_t)nlid * sizeof(*el));
          ep[k] = ep[i];
          epart[k] = epart[i];
          k++;
        }
      }
      nexp = k;
      Zoltan_LB_Free_Part(&ig, &il, &ip, &ipart);
      if (Zoltan_Invert_Lists(zz, nexp, eg, el, ep, epart, &nimp, &ig, &il, &ip, &ipart) ==
          ZOLTAN_FATAL) {
        zdrive_set_error(st, deck->deck_name, 0, "Zoltan_Invert_Lists failed");
        goto cleanup;
      }
    }
    if (deck->test_null_lists == ZDRIVE_NULL_NONE) {
      ierr = Zoltan_Migrate(zz, nimp, ig, il, ip, ipart, nexp, eg, el, ep, epart);
    } else {
      int e2 = 0;
      cb_pre_migrate(mesh, ngid, nlid, nimp, ig, il, ip, ipart, nexp, eg, el, ep, epart, &e2);
      if (deck->test_null_lists == ZDRIVE_NULL_IMPORT)
        ierr = Zoltan_Migrate(zz, -1, NULL, NULL, NULL, NULL, nexp, eg, el, ep, epart);
      else
        ierr = Zoltan_Migrate(zz, nimp, ig, il, ip, ipart, -1, NULL, NULL, NULL, NULL);
      cb_post_migrate(mesh, ngid, nlid, nimp, ig, il, ip, ipart, nexp, eg, el, ep, epart, &e2);
      if (e2 != ZOLTAN_OK) ierr = ZOLTAN_FATAL;
    }
    gerr = ierr == ZOLTAN_FATAL || ierr == ZOLTAN_MEMERR;
    MPI_Allreduce(MPI_IN_PLACE, &gerr, 1, MPI_INT, MPI_MAX, comm);
    if (gerr) {
      zdrive_set_error(st, deck->deck_name, 0, "Zoltan_Migrate failed");
      goto cleanup;
    }
    if (refresh_adj_procs(mesh, comm)) {
      zdrive_set_error(st, deck->deck_name, 0, "out of memory after migration");
      goto cleanup;
    }
  }
  if (deck->debug > 0) {
    if (mesh->rank == 0) printf("\nAFTER load balancing\n");
    zdrive_print_stats(mesh, "after", comm);
    if (Zoltan_LB_Eval(zz, 1, NULL, NULL, NULL) != ZOLTAN_OK && mesh->rank == 0)
      printf("Warning: Zoltan_LB_Eval did not return ZOLTAN_OK\n");
  }
  if (deck->test_gen_files) {
    snprintf(fname, sizeof(fname), "%s.after", deck->file_name);
    Zoltan_Generate_Files(zz, fname, 1, 1, 1, 1);
  }
  rc = 0;
cleanup:
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipart);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epart);
  return rc;
}
