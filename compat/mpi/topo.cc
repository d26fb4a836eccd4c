// Cartesian topologies (MPI_Dims_create, MPI_Cart_*) and the topology calls
// that are not implemented: graph and distributed-graph topologies and the
// neighborhood collectives fail with MPI_ERR_UNSUPPORTED_OPERATION.
#include <algorithm>
#include <numeric>

#include "compat/mpi/comm.h"

namespace gpurun::mpi {
namespace {

Error CartOf(MPI_Comm comm, std::shared_ptr<Comm>* c) {
  MPI_RETURN_IF_ERROR(CheckComm(comm, c));
  if ((*c)->cart_dims.empty()) return Fail(MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology");
  return Ok();
}

// Row-major coordinates of `rank` in `dims`.
std::vector<int> Coords(const std::vector<int>& dims, int rank) {
  std::vector<int> coords(dims.size());
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
  return coords;
}

}  // namespace
}  // namespace gpurun::mpi

using gpurun::mpi::Comm;
using gpurun::mpi::Error;
using gpurun::mpi::Fail;
using gpurun::mpi::Report;

extern "C" {

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  if (nnodes <= 0 || ndims < 0) {
    return gpurun::mpi::ReportWorld("MPI_Dims_create", Fail(MPI_ERR_DIMS, "nnodes must be positive, ndims >= 0"));
  }
  int fixed = 1, free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return gpurun::mpi::ReportWorld("MPI_Dims_create", Fail(MPI_ERR_DIMS, "negative dims[i]"));
    if (dims[i] > 0)
      fixed *= dims[i];
    else
      ++free_dims;
  }
  if (nnodes % fixed != 0) {
    return gpurun::mpi::ReportWorld("MPI_Dims_create",
                                    Fail(MPI_ERR_DIMS, "nnodes is not a multiple of the fixed dimensions"));
  }
  if (free_dims == 0) {
    if (fixed != nnodes)
      return gpurun::mpi::ReportWorld("MPI_Dims_create", Fail(MPI_ERR_DIMS, "dims do not multiply to nnodes"));
    return MPI_SUCCESS;
  }
  // Prime factors, largest first, each to the currently smallest free
  // dimension: dimensions as close to each other as possible, non-increasing.
  int left = nnodes / fixed;
  std::vector<int> factors;
  for (int p = 2; p * p <= left; ++p) {
    while (left % p == 0) {
      factors.push_back(p);
      left /= p;
    }
  }
  if (left > 1) factors.push_back(left);
  std::vector<int> free(free_dims, 1);
  std::sort(factors.rbegin(), factors.rend());
  for (int f : factors) *std::min_element(free.begin(), free.end()) *= f;
  std::sort(free.rbegin(), free.rend());
  for (int i = 0, k = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = free[k++];
  }
  return MPI_SUCCESS;
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CheckComm(comm_old, &c);
  if (!e.ok()) return Report(comm_old, "MPI_Cart_create", e);
  (void)reorder;  // ranks are kept: a valid reordering
  long total = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return Report(comm_old, "MPI_Cart_create", Fail(MPI_ERR_DIMS, "dims[i] must be positive"));
    total *= dims[i];
  }
  if (ndims < 0 || total > c->size) {
    return Report(comm_old, "MPI_Cart_create",
                  Fail(MPI_ERR_DIMS,
                       "the grid has " + std::to_string(total) + " cells for " + std::to_string(c->size) + " ranks"));
  }
  const int color = c->rank < total ? 0 : MPI_UNDEFINED;
  const int rc = MPI_Comm_split(comm_old, color, c->rank, comm_cart);
  if (rc != MPI_SUCCESS || *comm_cart == MPI_COMM_NULL) return rc;
  std::shared_ptr<Comm> cart = gpurun::mpi::FindComm(*comm_cart);
  cart->cart_dims.assign(dims, dims + ndims);
  cart->cart_periods.assign(ndims, 0);
  for (int i = 0; i < ndims; ++i) cart->cart_periods[i] = periods != nullptr && periods[i] != 0;
  return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CartOf(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Cart_coords", e);
  if (rank < 0 || rank >= c->size) return Report(comm, "MPI_Cart_coords", Fail(MPI_ERR_RANK, "rank out of range"));
  const std::vector<int> xs = gpurun::mpi::Coords(c->cart_dims, rank);
  for (int i = 0; i < maxdims && i < static_cast<int>(xs.size()); ++i) coords[i] = xs[i];
  return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CartOf(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Cart_rank", e);
  int r = 0;
  for (size_t i = 0; i < c->cart_dims.size(); ++i) {
    int x = coords[i];
    const int d = c->cart_dims[i];
    if (c->cart_periods[i]) {
      x = ((x % d) + d) % d;
    } else if (x < 0 || x >= d) {
      return Report(comm, "MPI_Cart_rank", Fail(MPI_ERR_RANK, "coordinate out of range in a non-periodic dimension"));
    }
    r = r * d + x;
  }
  *rank = r;
  return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CartOf(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Cart_shift", e);
  if (direction < 0 || direction >= static_cast<int>(c->cart_dims.size())) {
    return Report(comm, "MPI_Cart_shift", Fail(MPI_ERR_ARG, "direction out of range"));
  }
  const std::vector<int> me = gpurun::mpi::Coords(c->cart_dims, c->rank);
  auto neighbour = [&](int delta) {
    std::vector<int> xs = me;
    const int d = c->cart_dims[direction];
    xs[direction] += delta;
    if (c->cart_periods[direction]) {
      xs[direction] = ((xs[direction] % d) + d) % d;
    } else if (xs[direction] < 0 || xs[direction] >= d) {
      return MPI_PROC_NULL;
    }
    int r = 0;
    for (size_t i = 0; i < xs.size(); ++i) r = r * c->cart_dims[i] + xs[i];
    return r;
  };
  *rank_source = neighbour(-disp);
  *rank_dest = neighbour(disp);
  return MPI_SUCCESS;
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CartOf(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Cart_get", e);
  const std::vector<int> xs = gpurun::mpi::Coords(c->cart_dims, c->rank);
  for (int i = 0; i < maxdims && i < static_cast<int>(xs.size()); ++i) {
    dims[i] = c->cart_dims[i];
    periods[i] = c->cart_periods[i];
    coords[i] = xs[i];
  }
  return MPI_SUCCESS;
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CartOf(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Cartdim_get", e);
  *ndims = static_cast<int>(c->cart_dims.size());
  return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CartOf(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Cart_sub", e);
  const std::vector<int> xs = gpurun::mpi::Coords(c->cart_dims, c->rank);
  int color = 0, key = 0;
  std::vector<int> dims, periods;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (remain_dims[i]) {
      key = key * c->cart_dims[i] + xs[i];
      dims.push_back(c->cart_dims[i]);
      periods.push_back(c->cart_periods[i]);
    } else {
      color = color * c->cart_dims[i] + xs[i];
    }
  }
  const int rc = MPI_Comm_split(comm, color, key, newcomm);
  if (rc != MPI_SUCCESS) return rc;
  std::shared_ptr<Comm> sub = gpurun::mpi::FindComm(*newcomm);
  if (dims.empty()) dims = {1}, periods = {0};
  sub->cart_dims = dims;
  sub->cart_periods = periods;
  return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int* status) {
  std::shared_ptr<Comm> c;
  const Error e = gpurun::mpi::CheckComm(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Topo_test", e);
  *status = c->cart_dims.empty() ? MPI_UNDEFINED : MPI_CART;
  return MPI_SUCCESS;
}

int MPI_Graph_create(MPI_Comm comm_old, int, const int[], const int[], int, MPI_Comm* comm_graph) {
  *comm_graph = MPI_COMM_NULL;
  return gpurun::mpi::Unsupported(comm_old, "MPI_Graph_create");
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int, const int[], const int[], const int[], const int[], MPI_Info, int,
                          MPI_Comm* comm_dist_graph) {
  *comm_dist_graph = MPI_COMM_NULL;
  return gpurun::mpi::Unsupported(comm_old, "MPI_Dist_graph_create");
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int, const int[], const int[], int, const int[], const int[],
                                   MPI_Info, int, MPI_Comm* comm_dist_graph) {
  *comm_dist_graph = MPI_COMM_NULL;
  return gpurun::mpi::Unsupported(comm_old, "MPI_Dist_graph_create_adjacent");
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int*, int*, int*) {
  return gpurun::mpi::Unsupported(comm, "MPI_Dist_graph_neighbors_count");
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int, int[], int[], int, int[], int[]) {
  return gpurun::mpi::Unsupported(comm, "MPI_Dist_graph_neighbors");
}

int MPI_Neighbor_allgather(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm comm) {
  return gpurun::mpi::Unsupported(comm, "MPI_Neighbor_allgather");
}

int MPI_Neighbor_alltoall(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm comm) {
  return gpurun::mpi::Unsupported(comm, "MPI_Neighbor_alltoall");
}

}  // extern "C"
