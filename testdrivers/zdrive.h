/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZDRIVE_H
#define ZDRIVE_H

/*
 * Shared declarations of the zdrive-compatible test driver.
 *
 * The driver reads a zdrive input deck, reads and distributes a Chaco,
 * MatrixMarket(+) or hypergraph problem, calls Zoltan through its public
 * API only, migrates the objects and writes the answer files in the format
 * of Zoltan's own zdrive, so that Zoltan's accepted answers can be compared
 * with ours.
 */

#include <stddef.h>
#include <stdio.h>

#include <mpi.h>
#include <zoltan.h>

/* Longest line of a deck or of a data file we keep whole. */
#define ZDRIVE_LINE 4096
/* Longest file name we accept. */
#define ZDRIVE_PATH 1024
/* Most vertex weights per object we keep. */
#define ZDRIVE_MAX_WGTS 4
/*
 * Most vertices, rows, columns or hyperedges an input file may declare.
 * Isolated vertices and empty rows are legal (Zoltan's readers accept a
 * short file with a large count), so a few bytes can declare any count, and
 * the driver keeps an object record of about 100 bytes per vertex: a count
 * beyond this is refused instead of allocating gigabytes.
 */
#define ZDRIVE_MAX_COUNT 10000000

/* Kinds of input file ("file type" key). */
enum zdrive_file_type {
  ZDRIVE_FILE_NONE = 0,
  ZDRIVE_FILE_CHACO = 1,
  ZDRIVE_FILE_MM = 2,     /* MatrixMarket .mtx */
  ZDRIVE_FILE_MMPLUS = 3, /* MatrixMarket+ .mtxp */
  ZDRIVE_FILE_HG = 4      /* hypergraph .hg */
};

/* Initial distributions of the objects over the ranks. */
enum zdrive_dist {
  ZDRIVE_DIST_LINEAR = 0, /* contiguous blocks (also "block") */
  ZDRIVE_DIST_CYCLIC = 1, /* dealt out like cards */
  ZDRIVE_DIST_FILE = 2,   /* from <name>.assign */
  ZDRIVE_DIST_OWNER = 3   /* same as linear for vertices */
};

/* How the pins of a MatrixMarket+ file are spread ("initial pins" option). */
enum zdrive_pins {
  ZDRIVE_PINS_ROW = 0,    /* whole rows (hyperedges): row % P (zdrive's default) */
  ZDRIVE_PINS_COL = 1,    /* whole columns (vertices): column % P, vertex-compressed */
  ZDRIVE_PINS_LINEAR = 2, /* contiguous runs of the file's pin lines */
  ZDRIVE_PINS_CYCLIC = 3, /* pin line k goes to rank k % P */
  ZDRIVE_PINS_FILE = 4,   /* the rank written on the pin line */
  ZDRIVE_PINS_ZERO = 5    /* every pin on rank 0 */
};

/* Matrix objects of MatrixMarket input ("objects =" option). */
enum zdrive_matrix_obj { ZDRIVE_OBJ_COLUMNS = 0, ZDRIVE_OBJ_ROWS = 1, ZDRIVE_OBJ_NONZEROS = 2 };

/* Values of the "test null import/export lists" keys. */
enum zdrive_null_lists { ZDRIVE_NULL_NONE = 0, ZDRIVE_NULL_IMPORT = 1, ZDRIVE_NULL_EXPORT = 2 };

/* One Zoltan parameter from the deck. */
typedef struct zdrive_param {
  char name[128]; /* parameter name as written (lower case) */
  char val[256];  /* its value (lower case) */
  int index;      /* vector index for "zoltan vector parameter", else -1 */
  int line;       /* deck line it came from, for error messages */
} zdrive_param;

/* Everything the deck says.  Plain data, so it can be broadcast as bytes. */
typedef struct zdrive_deck {
  char deck_name[ZDRIVE_PATH];         /* path of the deck itself */
  char method[128];                    /* "decomposition method" */
  int method_line;                     /* deck line of the method */
  char file_name[ZDRIVE_PATH];         /* "file name", case kept */
  char pfile_root[ZDRIVE_PATH];        /* "parallel file location root", default "." */
  char zoltanparams_file[ZDRIVE_PATH]; /* "zoltanparams file" (not implemented) */
  int file_type;                       /* enum zdrive_file_type */
  int init_dist;                       /* enum zdrive_dist */
  int init_procs;                      /* ranks that get objects initially; <=0 all */
  int init_pins;                       /* enum zdrive_pins: MatrixMarket+ pin distribution */
  int matrix_obj;                      /* enum zdrive_matrix_obj */
  int num_disks;                       /* "parallel disk info = number=N" */
  int iterations;                      /* "number of iterations" (zdrive's perturbation loop) */
  int action;                          /* "zdrive action": 1 balance, 2 order, 4 color */
  int debug;                           /* "zdrive debug level" */
  int text_output;                     /* write <name>.out.P.r files */
  int gnuplot;                         /* write gnuplot files */
  int plot_partition;                  /* gnuplot by part instead of by rank */
  int test_drops;                      /* write .drops files (point/box assign) */
  int test_rcb_box;                    /* print Zoltan_RCB_Box for RCB */
  int test_local_parts;                /* part-count/part-size experiments 1..9 */
  int test_multi_callbacks;            /* register list callbacks */
  int test_graph_callbacks;            /* register graph callbacks (default 1) */
  int test_hg_callbacks;               /* register hypergraph callbacks (default 1) */
  int test_no_global_objects;          /* accepted; not implemented */
  int test_null_lists;                 /* enum zdrive_null_lists */
  int test_ddirectory;                 /* accepted; not implemented */
  int test_fixed_objects;              /* zdrive's fixed-object case 1..10, 0 none */
  int test_gen_files;                  /* Zoltan_Generate_Files before/after */
  float test_dynamic_weights;          /* zdrive's rand()-based model: not implemented */
  int dyn_iterations;                  /* our dynamic mode: number of rebalances */
  double dyn_growth;                   /* our dynamic mode: weight factor growth */
  int num_params;                      /* entries of the parameter list (separate) */
} zdrive_deck;

/* One object (Chaco vertex) held by a rank. */
typedef struct zdrive_elem {
  ZOLTAN_ID_TYPE gid;         /* global ID, 1-based vertex number */
  int part;                   /* current part */
  int perm;                   /* ordering result, -1 if none */
  int iperm;                  /* inverse ordering result, -1 if none */
  float wgt[ZDRIVE_MAX_WGTS]; /* vertex weights */
  float coord[3];             /* coordinates as read (float, as zdrive) */
  int nadj;                   /* number of neighbours */
  ZOLTAN_ID_TYPE *adj;        /* neighbour global IDs */
  int *adj_proc;              /* rank owning each neighbour */
  float *ewgt;                /* edge weights, NULL if none */
  int fixed_part;             /* part the object is fixed to ("test fixed objects"), -1 if free */
} zdrive_elem;

/* The distributed problem on one rank. */
typedef struct zdrive_mesh {
  int rank;           /* this rank */
  int nranks;         /* communicator size */
  int gnvtx;          /* global number of objects */
  int gid_base;       /* smallest global ID: 1 (Chaco, .mtx, .hg), 0 (.mtxp, as zdrive) */
  int num_dims;       /* 0 when no coordinates were read */
  int vwgt_dim;       /* vertex weights per object in the file */
  int ewgt_dim;       /* edge weights per edge in the file */
  int has_graph;      /* the file had edges */
  int num_elems;      /* valid entries of elems */
  int elem_cap;       /* allocated entries of elems */
  zdrive_elem *elems; /* the objects, dense after each migration */
  /* Slot bookkeeping of a migration in progress (see zdrive_zoltan.c). */
  ZOLTAN_ID_TYPE *slot_gid; /* gid planned for each slot, ZOLTAN_ID_INVALID if empty */
  int nslots;               /* entries of slot_gid */
  int use_edge_wgts;        /* object sizes include edge weights (zdrive's rule) */
  int parts_lists;          /* RETURN_LISTS asks for parts of all objects */
  int nglobal_parts; /* NUM_GLOBAL_PARTS as the deck sets it (else ranks), for fixed objects */
  /* Hypergraph input (.mtx, .mtxp, .hg): the lists this rank hands to Zoltan. */
  int is_hypergraph;         /* register the hypergraph callbacks */
  int hg_format;             /* ZOLTAN_COMPRESSED_EDGE or ZOLTAN_COMPRESSED_VERTEX */
  int nlists;                /* local hyperedges (vertices when vertex-compressed) */
  ZOLTAN_ID_TYPE *list_gid;  /* global ID of each list */
  int *list_start;           /* nlists+1 offsets into pin_gid */
  ZOLTAN_ID_TYPE *pin_gid;   /* the other end of each pin */
  int hewgt_dim;             /* weights per hyperedge */
  int nhewgts;               /* hyperedges whose weights this rank supplies */
  ZOLTAN_ID_TYPE *hewgt_gid; /* their global IDs */
  float *hewgts;             /* nhewgts*hewgt_dim weights */
  /* Migration counters of the last balance. */
  long mig_objects;  /* objects received from other ranks */
  double mig_weight; /* their first weight */
} zdrive_mesh;

/* An error: where and what.  Empty text means no error. */
typedef struct zdrive_status {
  char text[1536]; /* "file:line: message" */
} zdrive_status;

/* zdrive_input.c */
int zdrive_read_deck(const char *path, zdrive_deck *deck, zdrive_param **params, zdrive_status *st);
void zdrive_bcast_deck(zdrive_deck *deck, zdrive_param **params, MPI_Comm comm);
int zdrive_echo_deck(FILE *out, const char *path);

/*
 * A whole graph as rank 0 reads it (Chaco, or the graph zdrive derives from
 * a square matrix), broadcast and then distributed by zdrive_dist_graph.
 */
typedef struct zdrive_graph {
  int nvtx;       /* vertices */
  int nadj;       /* adjacency entries (twice the edges) */
  int vwgt_dim;   /* weights per vertex in the file */
  int ewgt_dim;   /* weights per edge in the file */
  int ndims;      /* coordinate dimension, 0 without .coords */
  int has_assign; /* an .assign file was read */
  int *start;     /* nvtx+1 offsets into adj */
  int *adj;       /* 1-based neighbour numbers */
  float *vwgt;    /* nvtx*vwgt_dim (nvtx ones when vwgt_dim is 0) */
  float *ewgt;    /* nadj (first edge weight) */
  float *xyz;     /* nvtx*3 */
  int *assign;    /* nvtx */
} zdrive_graph;

/* zdrive_chaco.c */
int zdrive_read_chaco(const zdrive_deck *deck, zdrive_mesh *mesh, MPI_Comm comm, zdrive_status *st);
int zdrive_dist_graph(const zdrive_deck *deck, zdrive_graph *g, int err, zdrive_mesh *mesh,
                      int **owner_out, MPI_Comm comm, zdrive_status *st);
void zdrive_free_graph(zdrive_graph *g);
void zdrive_free_mesh(zdrive_mesh *mesh);

/* zdrive_mm.c */
int zdrive_read_hypergraph(const zdrive_deck *deck, zdrive_mesh *mesh, MPI_Comm comm,
                           zdrive_status *st);
int zdrive_read_mtxp(const zdrive_deck *deck, zdrive_mesh *mesh, MPI_Comm comm, zdrive_status *st);

/* zdrive_zoltan.c */
int zdrive_setup_zoltan(struct Zoltan_Struct *zz, const zdrive_deck *deck,
                        const zdrive_param *params, zdrive_mesh *mesh, zdrive_status *st);
int zdrive_balance(struct Zoltan_Struct *zz, const zdrive_deck *deck, zdrive_mesh *mesh,
                   const char *method, zdrive_status *st);

/* zdrive_output.c */
int zdrive_write_answers(const zdrive_deck *deck, const zdrive_mesh *mesh, const char *tag,
                         zdrive_status *st);
int zdrive_test_drops(struct Zoltan_Struct *zz, const zdrive_deck *deck, const zdrive_mesh *mesh,
                      zdrive_status *st);
int zdrive_write_gnuplot(const zdrive_deck *deck, const zdrive_mesh *mesh, zdrive_status *st);
void zdrive_print_stats(const zdrive_mesh *mesh, const char *when, MPI_Comm comm);
double zdrive_imbalance(const zdrive_mesh *mesh, int nparts, MPI_Comm comm);
void zdrive_par_filename(const zdrive_deck *deck, const char *base, int rank, int nranks, char *out,
                         size_t len);

/* zdrive_main.c */
void zdrive_set_error(zdrive_status *st, const char *file, int line, const char *fmt, ...);

#endif
