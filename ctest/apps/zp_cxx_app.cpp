// SPDX-License-Identifier: BSD-3-Clause
/*
 * A C++ application written against Zoltan's C++ interface (zoltan_cpp.h,
 * the Zoltan class), knowing nothing of zoltan_plugins: points with
 * heavy-tailed weights start on the lower half of the ranks; the program
 * sets LB_METHOD, partitions with Zoltan::LB_Partition (on a copy made by
 * the class's copy constructor, which is Zoltan_Copy, with --copy), moves
 * the points with Zoltan::Migrate and its pack/unpack callbacks, and checks
 * what must hold whatever the method: every global ID owned once after the
 * move, the count and the total weight conserved, max/avg load within
 * --bound.  Rank 0 prints one line with max/avg, the objects moved and a
 * digest of the whole assignment (GID -> rank), which tests compare between
 * the plain, linked and preloaded builds.
 *
 * Usage: mpiexec -n P zp_cxx_app [--method NAME] [--points N] [--bound B]
 *                                [--copy] [--param NAME=VALUE]...
 * Exit status 0 when the checks pass, 1 when one fails, 2 on bad arguments.
 */
#include <mpi.h>
#include <zoltan_cpp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

/* splitmix64's finaliser: coordinates and weights from the GID alone, the
 * same whatever the rank count. */
uint64_t mix(uint64_t v)
{
  v += 0x9E3779B97F4A7C15ULL;
  v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ULL;
  v = (v ^ (v >> 27)) * 0x94D049BB133111EBULL;
  return v ^ (v >> 31);
}

struct Point {
  ZOLTAN_ID_TYPE gid;
  double x, y, w;
};

Point make_point(ZOLTAN_ID_TYPE g)
{
  uint64_t h = mix(g);
  double k = (double)((h >> 32) % 16);
  return Point{g, (double)(h & 0xFFFF) / 65536.0, (double)((h >> 16) & 0xFFFF) / 65536.0,
               1.0 + k * k / 15.0};
}

struct Mesh {
  std::vector<Point> pts;
};

int num_obj(void *data, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return (int)static_cast<Mesh *>(data)->pts.size();
}

void obj_list(void *data, int, int, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim, float *w,
              int *ierr)
{
  const Mesh *m = static_cast<Mesh *>(data);
  for (size_t i = 0; i < m->pts.size(); i++) {
    gids[i] = m->pts[i].gid;
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = (float)m->pts[i].w;
  }
  *ierr = ZOLTAN_OK;
}

int num_geom(void *, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return 2;
}

void geom_multi(void *data, int, int, int n, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR lids, int dim, double *xy,
                int *ierr)
{
  const Mesh *m = static_cast<Mesh *>(data);
  for (int i = 0; i < n; i++) {
    xy[dim * i] = m->pts[lids[i]].x;
    xy[dim * i + 1] = m->pts[lids[i]].y;
  }
  *ierr = ZOLTAN_OK;
}

int obj_size(void *, int, int, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return (int)sizeof(Point);
}

void pack(void *data, int, int, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR lid, int, int size, char *buf,
          int *ierr)
{
  const Mesh *m = static_cast<Mesh *>(data);
  std::memcpy(buf, &m->pts[*lid], std::min((size_t)size, sizeof(Point)));
  *ierr = ZOLTAN_OK;
}

void unpack(void *data, int, ZOLTAN_ID_PTR, int, char *buf, int *ierr)
{
  Point p;
  std::memcpy(&p, buf, sizeof p);
  static_cast<Mesh *>(data)->pts.push_back(p);
  *ierr = ZOLTAN_OK;
}

ZOLTAN_ID_TYPE first_holder(ZOLTAN_ID_TYPE g, long points, int holders)
{
  return (ZOLTAN_ID_TYPE)((long)g * holders / points);
}

} // namespace

// Rank 0's check of the assignment gathered from every rank (all, counts,
// displs): every GID once, the weight conserved, max/avg within the bound;
// prints the summary line and returns 1 on a failure.
static int check_on_root(const std::vector<unsigned long long> &all, const std::vector<int> &counts,
                         const std::vector<int> &displs, int size, long points, int holders,
                         double bound, const std::string &method, bool copy)
{
  int fail = 0;
  std::vector<int> owner(points, -1);
  std::vector<double> load(size, 0.0);
  double sum = 0.0, want = 0.0;
  long moved = 0;
  for (int r = 0; r < size; r++) {
    for (int i = 0; i < counts[r]; i++) {
      unsigned long long g = all[displs[r] + i];
      if (g >= (unsigned long long)points || owner[g] != -1) {
        std::printf("zp_cxx_app: FAIL: GID %llu held twice or unknown (rank %d)\n", g, r);
        fail = 1;
        continue;
      }
      owner[g] = r;
      load[r] += make_point((ZOLTAN_ID_TYPE)g).w;
      if ((int)first_holder((ZOLTAN_ID_TYPE)g, points, holders) != r) moved++;
    }
  }
  for (long g = 0; g < points; g++) {
    want += make_point((ZOLTAN_ID_TYPE)g).w;
    if (owner[g] == -1) {
      std::printf("zp_cxx_app: FAIL: GID %ld lost\n", g);
      fail = 1;
    }
  }
  for (int r = 0; r < size; r++) sum += load[r];
  double maxavg = *std::max_element(load.begin(), load.end()) / (sum / size);
  if (std::abs(sum - want) > 1e-9 * want) {
    std::printf("zp_cxx_app: FAIL: weight %.6f after, %.6f before\n", sum, want);
    fail = 1;
  }
  if (bound > 0.0 && maxavg > bound) {
    std::printf("zp_cxx_app: FAIL: max/avg %.4f above the bound %.4f\n", maxavg, bound);
    fail = 1;
  }
  uint64_t digest = 1469598103934665603ULL; // FNV-1a over (gid, rank)
  for (long g = 0; g < points; g++) {
    digest = (digest ^ (uint64_t)g) * 1099511628211ULL;
    digest = (digest ^ (uint64_t)(owner[g] + 1)) * 1099511628211ULL;
  }
  std::printf(
      "zp_cxx_app: %d ranks, LB_METHOD %s%s, max/avg %.4f, moved %ld, assignment %016llx, %s\n",
      size, method.empty() ? "(Zoltan's default)" : method.c_str(), copy ? " on a copy" : "",
      maxavg, moved, (unsigned long long)digest, fail ? "FAILED" : "passed");
  return fail;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  std::string method;
  long points = 2000;
  double bound = 0.0;
  bool copy = false;
  std::vector<std::pair<std::string, std::string>> params;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    char *end = nullptr;
    if (a == "--method" && i + 1 < argc) {
      method = argv[++i];
    } else if (a == "--points" && i + 1 < argc) {
      points = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || points < 1 || points > 10000000) points = -1;
    } else if (a == "--bound" && i + 1 < argc) {
      bound = std::strtod(argv[++i], &end);
      if (*end != '\0' || !(bound >= 1.0)) points = -1;
    } else if (a == "--copy") {
      copy = true;
    } else if (a == "--param" && i + 1 < argc && std::strchr(argv[i + 1], '=') != nullptr) {
      std::string p = argv[++i];
      params.emplace_back(p.substr(0, p.find('=')), p.substr(p.find('=') + 1));
    } else {
      points = -1;
    }
    if (points < 0) {
      if (rank == 0) std::fprintf(stderr, "zp_cxx_app: bad argument '%s'\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }

  float version = 0;
  Zoltan_Initialize(argc, argv, &version);
  int holders = std::max(1, size / 2);
  Mesh mesh;
  for (long g = 0; g < points; g++)
    if ((int)first_holder((ZOLTAN_ID_TYPE)g, points, holders) == rank)
      mesh.pts.push_back(make_point((ZOLTAN_ID_TYPE)g));

  int fail = 0, changes = 0, ngid = 0, nlid = 0, nimp = 0, nexp = 0;
  ZOLTAN_ID_PTR igid = nullptr, ilid = nullptr, egid = nullptr, elid = nullptr;
  int *iproc = nullptr, *ipart = nullptr, *eproc = nullptr, *epart = nullptr;
  {
    Zoltan zz(MPI_COMM_WORLD);
    zz.Set_Param("DEBUG_LEVEL", "0");
    zz.Set_Param("OBJ_WEIGHT_DIM", "1");
    zz.Set_Param("RETURN_LISTS", "ALL");
    if (!method.empty() && zz.Set_Param("LB_METHOD", method) != ZOLTAN_OK) fail = 1;
    for (const auto &p : params)
      if (zz.Set_Param(p.first, p.second) != ZOLTAN_OK) fail = 1;
    zz.Set_Num_Obj_Fn(num_obj, &mesh);
    zz.Set_Obj_List_Fn(obj_list, &mesh);
    zz.Set_Num_Geom_Fn(num_geom, &mesh);
    zz.Set_Geom_Multi_Fn(geom_multi, &mesh);
    zz.Set_Obj_Size_Fn(obj_size, &mesh);
    zz.Set_Pack_Obj_Fn(pack, &mesh);
    zz.Set_Unpack_Obj_Fn(unpack, &mesh);
    // The copy constructor is Zoltan_Copy: the copy must balance as the
    // original would.
    Zoltan *use = copy ? new Zoltan(zz) : &zz;
    int ierr = fail ? ZOLTAN_FATAL
                    : use->LB_Partition(changes, ngid, nlid, nimp, igid, ilid, iproc, ipart, nexp,
                                        egid, elid, eproc, epart);
    if (ierr != ZOLTAN_OK) {
      if (rank == 0)
        std::fprintf(stderr, "zp_cxx_app: LB_METHOD=%s failed (%d)\n", method.c_str(), ierr);
      fail = 1;
    } else {
      std::vector<char> gone(mesh.pts.size(), 0);
      for (int i = 0; i < nexp; i++) gone[elid[i]] = 1;
      if (use->Migrate(nimp, igid, ilid, iproc, ipart, nexp, egid, elid, eproc, epart) != ZOLTAN_OK)
        fail = 1;
      // Unpack appended the imports after the old points; drop the exports.
      std::vector<Point> kept;
      for (size_t i = 0; i < mesh.pts.size(); i++)
        if (i >= gone.size() || !gone[i]) kept.push_back(mesh.pts[i]);
      mesh.pts.swap(kept);
    }
    Zoltan::LB_Free_Part(&igid, &ilid, &iproc, &ipart);
    Zoltan::LB_Free_Part(&egid, &elid, &eproc, &epart);
    if (copy) delete use;
  }
  MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  // Gather the GIDs each rank holds now, and check them on rank 0.
  int n = (int)mesh.pts.size();
  std::vector<int> counts(size), displs(size);
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<unsigned long long> mine(n), all;
  for (int i = 0; i < n; i++) mine[i] = mesh.pts[i].gid;
  int total = 0;
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      displs[r] = total;
      total += counts[r];
    }
    all.resize(total);
  }
  MPI_Gatherv(mine.data(), n, MPI_UNSIGNED_LONG_LONG, all.data(), counts.data(), displs.data(),
              MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0 && !fail)
    fail = check_on_root(all, counts, displs, size, points, holders, bound, method, copy);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return fail;
}
