// Collective names and per-row geometry (see coll_layout.h).
#include "bench/coll_layout.h"

#include <algorithm>
#include <string>

namespace {

struct NameEntry {
  std::string_view name;
  CollKind kind;
};

constexpr NameEntry kNames[] = {
    {"allreduce", CollKind::kAllreduce},
    {"all_reduce", CollKind::kAllreduce},
    {"bcast", CollKind::kBcast},
    {"broadcast", CollKind::kBcast},
    {"reduce", CollKind::kReduce},
    {"allgather", CollKind::kAllgather},
    {"all_gather", CollKind::kAllgather},
    {"reducescatter", CollKind::kReduceScatter},
    {"reduce_scatter", CollKind::kReduceScatter},
    {"alltoall", CollKind::kAlltoall},
    {"gather", CollKind::kGather},
    {"scatter", CollKind::kScatter},
    {"sendrecv", CollKind::kSendrecv},
    {"barrier", CollKind::kBarrier},
};

}  // namespace

const char* CollName(CollKind kind) {
  switch (kind) {
    case CollKind::kAllreduce: return "allreduce";
    case CollKind::kBcast: return "bcast";
    case CollKind::kReduce: return "reduce";
    case CollKind::kAllgather: return "allgather";
    case CollKind::kReduceScatter: return "reducescatter";
    case CollKind::kAlltoall: return "alltoall";
    case CollKind::kGather: return "gather";
    case CollKind::kScatter: return "scatter";
    case CollKind::kSendrecv: return "sendrecv";
    case CollKind::kBarrier: return "barrier";
  }
  return "?";
}

std::optional<CollKind> ParseCollName(std::string_view name) {
  for (const NameEntry& e : kNames) {
    if (e.name == name) return e.kind;
  }
  return std::nullopt;
}

bool IsReduction(CollKind kind) {
  return kind == CollKind::kAllreduce || kind == CollKind::kReduce || kind == CollKind::kReduceScatter;
}

bool HasRoot(CollKind kind) {
  return kind == CollKind::kBcast || kind == CollKind::kReduce || kind == CollKind::kGather ||
         kind == CollKind::kScatter;
}

bool MovesData(CollKind kind) { return kind != CollKind::kBarrier; }

bool HasInPlace(CollKind kind) { return MovesData(kind) && kind != CollKind::kSendrecv; }

int RingNext(int rank, int nranks) { return (rank + 1) % nranks; }

int RingPrev(int rank, int nranks) { return (rank - 1 + nranks) % nranks; }

CollLayout MakeLayout(CollKind kind, size_t bytes, size_t elem_size, int nranks, int rank, int root) {
  const size_t n = static_cast<size_t>(nranks);
  const size_t r = static_cast<size_t>(rank);
  const size_t total = bytes / elem_size;  // elements of the whole buffer
  const double ring = static_cast<double>(n - 1) / static_cast<double>(n);
  CollLayout l;
  switch (kind) {
    case CollKind::kAllreduce:
    case CollKind::kBcast:
    case CollKind::kReduce:
      l.count = l.send_elems = l.recv_elems = total;
      l.in_place_here = true;
      l.bus_factor = kind == CollKind::kAllreduce ? 2 * ring : 1.0;
      break;
    case CollKind::kAllgather:
    case CollKind::kGather:
      l.count = l.send_elems = total / n;
      l.recv_elems = l.count * n;
      l.in_place_here = kind == CollKind::kAllgather || rank == root;
      l.in_place_send_offset = r * l.count;
      l.bus_factor = ring;
      break;
    case CollKind::kReduceScatter:
    case CollKind::kScatter:
      l.count = l.recv_elems = total / n;
      l.send_elems = l.count * n;
      l.in_place_here = kind == CollKind::kReduceScatter || rank == root;
      l.in_place_recv_offset = r * l.count;
      l.bus_factor = ring;
      break;
    case CollKind::kAlltoall:
      l.count = total / n;
      l.send_elems = l.recv_elems = l.count * n;
      l.in_place_here = true;
      l.bus_factor = ring;
      break;
    case CollKind::kSendrecv:  // one block out, one block in; no in-place form (HasInPlace)
      l.count = l.send_elems = l.recv_elems = total;
      l.bus_factor = 1.0;
      break;
    case CollKind::kBarrier: break;
  }
  l.bytes = std::max(l.send_elems, l.recv_elems) * elem_size;
  return l;
}
