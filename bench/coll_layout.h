// The collectives gpurun-bench measures and the arithmetic of one row of a
// sweep: from a size in bytes to the count argument, the send and receive
// buffer extents, where an in-place call's input and output lie inside its one
// buffer, and the bus-bandwidth factor (nccl-tests' conventions,
// ../shared/reference/nccl_anchor.md §2.2 and §2.4). sendrecv is nccl-tests'
// sendrecv_perf: every rank sends `count` elements to the next rank of the
// ring and receives as many from the previous one, in one call.
#ifndef GPURUN_BENCH_COLL_LAYOUT_H_
#define GPURUN_BENCH_COLL_LAYOUT_H_

#include <cstddef>
#include <optional>
#include <string_view>

enum class CollKind {
  kAllreduce,
  kBcast,
  kReduce,
  kAllgather,
  kReduceScatter,
  kAlltoall,
  kGather,
  kScatter,
  kSendrecv,
  kBarrier
};

// Every collective, in the order `gpurun-bench all` runs them.
inline constexpr CollKind kEveryColl[] = {
    CollKind::kAllreduce, CollKind::kBcast,  CollKind::kReduce,  CollKind::kAllgather, CollKind::kReduceScatter,
    CollKind::kAlltoall,  CollKind::kGather, CollKind::kScatter, CollKind::kSendrecv,  CollKind::kBarrier};

// "allreduce", "bcast", ...; the names gpurun-bench takes and prints.
const char* CollName(CollKind kind);
// Accepts CollName's names and nccl-tests' (all_reduce, broadcast, reduce_scatter, ...).
std::optional<CollKind> ParseCollName(std::string_view name);

// Whether the collective reduces (takes an op), has a root, and moves data.
bool IsReduction(CollKind kind);
bool HasRoot(CollKind kind);
bool MovesData(CollKind kind);
// Whether the collective has an in-place variant at all. Not the barrier (no
// data), nor sendrecv: grSendrecv is MPI_Sendrecv, whose buffers must not
// overlap, and NCCL documents no in-place send/recv either; its in-place
// block is printed N/A for every library (nccl-tests times the same call with
// sendbuf == recvbuf and leaves it unchecked).
bool HasInPlace(CollKind kind);

// sendrecv's peers: the rank this one sends to, (rank + 1) mod nranks, and
// the one it receives from, (rank - 1 + nranks) mod nranks.
int RingNext(int rank, int nranks);
int RingPrev(int rank, int nranks);

// One row's geometry for one rank. Element offsets and counts are in elements.
struct CollLayout {
  size_t count = 0;       // the count argument of the call (per rank for allgather, gather, scatter, ...)
  size_t send_elems = 0;  // elements this rank's call reads (out of place)
  size_t recv_elems = 0;  // elements this rank's call writes (out of place)
  size_t bytes = 0;       // the "size" column: max(send, recv) elements times the element size
  // In place: whether this rank's call is in place at all (gather and scatter
  // are in place only at the root, sendrecv nowhere), and where the input and
  // the output lie inside the one buffer.
  bool in_place_here = false;
  size_t in_place_send_offset = 0;
  size_t in_place_recv_offset = 0;
  double bus_factor = 0;  // busbw = algbw * bus_factor
};

// The layout of `kind` for `bytes` (rounded down to whole elements, and for
// the collectives whose buffers hold one block per rank, to whole blocks).
CollLayout MakeLayout(CollKind kind, size_t bytes, size_t elem_size, int nranks, int rank, int root);

#endif  // GPURUN_BENCH_COLL_LAYOUT_H_
