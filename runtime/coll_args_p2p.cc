// Argument checks of the point-to-point collectives: alltoall(v),
// allgatherv, gather(v), scatter(v) (see coll_args.h for the rules).
#include <cstdint>
#include <string>

#include "runtime/coll_args.h"
#include "runtime/p2p_args.h"

namespace gpurun {
namespace {

using coll_args::CheckBlocks;
using coll_args::CheckOverlap;
using coll_args::CheckRoot;
using coll_args::Offset;
using coll_args::Times;

// A buffer whose blocks span `extent` bytes may be null only if that is 0.
Status CheckSpanned(const void* buf, size_t extent, const char* name) {
  if (buf != nullptr || extent == 0) return OkStatus();
  return InvalidArgument(std::string(name) + " is null but its blocks span " + std::to_string(extent) + " bytes");
}

// A rank's block to itself has one size on both sides.
Status CheckSelfBlock(size_t a, const char* a_name, size_t b, const char* b_name) {
  if (a == b) return OkStatus();
  return InvalidArgument(std::string(a_name) + " (" + std::to_string(a) + ") differs from " + b_name + " (" +
                         std::to_string(b) + "): a rank's own block has one size on both sides");
}

// A valid type and count > 0 whose size() blocks fit a size_t: *es the
// element size, *total_bytes the size() blocks' bytes. An overflow check by
// multiplication: the two divisions of `count > max / es / n` were most of
// CheckScatter's time (perf).
bool QuickTotal(const grComm& comm, size_t count, grDataType_t type, size_t* es, size_t* total_bytes) {
  if (static_cast<int>(type) < 0 || type >= grNumDataTypes || count == 0) return false;
  *es = internal::kTypeSizes[type];
  return !__builtin_mul_overflow(count, *es * static_cast<size_t>(comm.size), total_bytes);
}

// The hot path of CheckGather and CheckScatter, plain comparisons: true with
// *es set when every argument surely passes — `mine` (count elements, the
// rank's own block) and at the root `all` (count * size elements) not null,
// and at the root `mine` either in place (all + root's block) or disjoint
// from `all`; false where the full check has to say what is wrong.
bool QuickRooted(const grComm& comm, const void* mine, const void* all, size_t count, grDataType_t type, int root,
                 size_t* es) {
  size_t total_bytes = 0;
  if (root < 0 || root >= comm.size || mine == nullptr || !QuickTotal(comm, count, type, es, &total_bytes))
    return false;
  if (comm.rank != root) return true;
  if (all == nullptr) return false;
  const size_t bytes = count * *es;
  const auto m = reinterpret_cast<uintptr_t>(mine), a = reinterpret_cast<uintptr_t>(all);
  return m == a + root * bytes || m + bytes <= a || a + total_bytes <= m;
}

// The same for CheckAlltoall: both buffers of count * size elements not
// null, and the same (in place) or disjoint.
bool QuickAlltoall(const grComm& comm, const void* send, const void* recv, size_t count, grDataType_t type,
                   size_t* es) {
  size_t bytes = 0;
  if (send == nullptr || recv == nullptr || !QuickTotal(comm, count, type, es, &bytes)) return false;
  const auto s = reinterpret_cast<uintptr_t>(send), r = reinterpret_cast<uintptr_t>(recv);
  return s == r || s + bytes <= r || r + bytes <= s;
}

}  // namespace

StatusOr<AlltoallvCall> CheckAlltoall(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                      grDataType_t type) {
  if (size_t es = 0; QuickAlltoall(comm, sendbuf, recvbuf, count, type, &es)) [[likely]] {
    return AlltoallvCall{sendbuf, Blocks::Uniform(count), recvbuf, Blocks::Uniform(count), es, sendbuf == recvbuf};
  }
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_ASSIGN_OR_RETURN(const size_t total, Times(count, comm.size, "count times the communicator's size"));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(recvbuf, total, type, "recvbuf"));
  const bool in_place = sendbuf == recvbuf;
  if (!in_place) {
    GR_RETURN_IF_ERROR(BufferBytes(sendbuf, total, type, "sendbuf").status());
    GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, bytes}, "recvbuf", recvbuf,
                                    "in place means sendbuf == recvbuf")
                           .status());
  }
  return AlltoallvCall{sendbuf, Blocks::Uniform(count), recvbuf, Blocks::Uniform(count), es, in_place};
}

StatusOr<AlltoallvCall> CheckAlltoallv(const grComm& comm, const void* sendbuf, const size_t* sendcounts,
                                       const size_t* sdispls, void* recvbuf, const size_t* recvcounts,
                                       const size_t* rdispls, grDataType_t type) {
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_ASSIGN_OR_RETURN(const size_t recv_extent,
                      CheckBlocks(comm, recvcounts, rdispls, es, "recvcounts", "rdispls", /*disjoint=*/true));
  GR_RETURN_IF_ERROR(CheckSpanned(recvbuf, recv_extent, "recvbuf"));
  const Blocks recv_blocks = Blocks::Explicit(recvcounts, rdispls);
  if (sendbuf == recvbuf) return AlltoallvCall{recvbuf, recv_blocks, recvbuf, recv_blocks, es, /*in_place=*/true};
  GR_ASSIGN_OR_RETURN(const size_t send_extent,
                      CheckBlocks(comm, sendcounts, sdispls, es, "sendcounts", "sdispls", /*disjoint=*/false));
  GR_RETURN_IF_ERROR(CheckSpanned(sendbuf, send_extent, "sendbuf"));
  GR_RETURN_IF_ERROR(
      CheckSelfBlock(sendcounts[comm.rank], "sendcounts[rank]", recvcounts[comm.rank], "recvcounts[rank]"));
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, send_extent}, "sendbuf", {recvbuf, recv_extent}, "recvbuf", recvbuf,
                                  "in place means sendbuf == recvbuf")
                         .status());
  return AlltoallvCall{sendbuf, Blocks::Explicit(sendcounts, sdispls), recvbuf, recv_blocks, es, false};
}

StatusOr<AllgathervCall> CheckAllgatherv(const grComm& comm, const void* sendbuf, size_t sendcount, void* recvbuf,
                                         const size_t* recvcounts, const size_t* displs, grDataType_t type) {
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(sendbuf, sendcount, type, "sendbuf"));
  GR_ASSIGN_OR_RETURN(const size_t extent,
                      CheckBlocks(comm, recvcounts, displs, es, "recvcounts", "displs", /*disjoint=*/true));
  GR_RETURN_IF_ERROR(CheckSpanned(recvbuf, extent, "recvbuf"));
  GR_RETURN_IF_ERROR(CheckSelfBlock(recvcounts[comm.rank], "recvcounts[rank]", sendcount, "sendcount"));
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, extent}, "recvbuf",
                                  Offset(recvbuf, displs[comm.rank] * es),
                                  "in place means sendbuf == recvbuf + displs[rank] elements")
                         .status());
  return AllgathervCall{sendbuf, sendcount, recvbuf, Blocks::Explicit(recvcounts, displs), es};
}

StatusOr<GathervCall> CheckGather(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                  grDataType_t type, int root) {
  if (size_t es = 0; QuickRooted(comm, sendbuf, recvbuf, count, type, root, &es)) [[likely]] {
    return GathervCall{sendbuf, count, comm.rank == root ? recvbuf : nullptr, Blocks::Uniform(count), es, root};
  }
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_RETURN_IF_ERROR(CheckRoot(comm, root));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(sendbuf, count, type, "sendbuf"));
  GR_ASSIGN_OR_RETURN(const size_t total, Times(count, comm.size, "count times the communicator's size"));
  if (comm.rank != root) return GathervCall{sendbuf, count, nullptr, Blocks::Uniform(count), es, root};
  GR_ASSIGN_OR_RETURN(const size_t total_bytes, BufferBytes(recvbuf, total, type, "recvbuf at the root"));
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, total_bytes}, "recvbuf",
                                  Offset(recvbuf, root * count * es),
                                  "in place at the root means sendbuf == recvbuf + root * count elements")
                         .status());
  return GathervCall{sendbuf, count, recvbuf, Blocks::Uniform(count), es, root};
}

StatusOr<GathervCall> CheckGatherv(const grComm& comm, const void* sendbuf, size_t sendcount, void* recvbuf,
                                   const size_t* recvcounts, const size_t* displs, grDataType_t type, int root) {
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_RETURN_IF_ERROR(CheckRoot(comm, root));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(sendbuf, sendcount, type, "sendbuf"));
  if (comm.rank != root) return GathervCall{sendbuf, sendcount, nullptr, Blocks::Explicit(nullptr, nullptr), es, root};
  GR_ASSIGN_OR_RETURN(const size_t extent,
                      CheckBlocks(comm, recvcounts, displs, es, "recvcounts", "displs", /*disjoint=*/true));
  GR_RETURN_IF_ERROR(CheckSpanned(recvbuf, extent, "recvbuf at the root"));
  GR_RETURN_IF_ERROR(CheckSelfBlock(recvcounts[root], "recvcounts[root]", sendcount, "the root's sendcount"));
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, extent}, "recvbuf",
                                  Offset(recvbuf, displs[root] * es),
                                  "in place at the root means sendbuf == recvbuf + displs[root] elements")
                         .status());
  return GathervCall{sendbuf, sendcount, recvbuf, Blocks::Explicit(recvcounts, displs), es, root};
}

StatusOr<ScattervCall> CheckScatter(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                    grDataType_t type, int root) {
  if (size_t es = 0; QuickRooted(comm, recvbuf, sendbuf, count, type, root, &es)) [[likely]] {
    return ScattervCall{comm.rank == root ? sendbuf : nullptr, Blocks::Uniform(count), recvbuf, count, es, root};
  }
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_RETURN_IF_ERROR(CheckRoot(comm, root));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(recvbuf, count, type, "recvbuf"));
  GR_ASSIGN_OR_RETURN(const size_t total, Times(count, comm.size, "count times the communicator's size"));
  if (comm.rank != root) return ScattervCall{nullptr, Blocks::Uniform(count), recvbuf, count, es, root};
  GR_ASSIGN_OR_RETURN(const size_t total_bytes, BufferBytes(sendbuf, total, type, "sendbuf at the root"));
  GR_RETURN_IF_ERROR(CheckOverlap({recvbuf, bytes}, "recvbuf", {sendbuf, total_bytes}, "sendbuf",
                                  Offset(sendbuf, root * count * es),
                                  "in place at the root means recvbuf == sendbuf + root * count elements")
                         .status());
  return ScattervCall{sendbuf, Blocks::Uniform(count), recvbuf, count, es, root};
}

StatusOr<ScattervCall> CheckScatterv(const grComm& comm, const void* sendbuf, const size_t* sendcounts,
                                     const size_t* displs, void* recvbuf, size_t recvcount, grDataType_t type,
                                     int root) {
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_RETURN_IF_ERROR(CheckRoot(comm, root));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(recvbuf, recvcount, type, "recvbuf"));
  if (comm.rank != root) return ScattervCall{nullptr, Blocks::Explicit(nullptr, nullptr), recvbuf, recvcount, es, root};
  GR_ASSIGN_OR_RETURN(const size_t extent,
                      CheckBlocks(comm, sendcounts, displs, es, "sendcounts", "displs", /*disjoint=*/false));
  GR_RETURN_IF_ERROR(CheckSpanned(sendbuf, extent, "sendbuf at the root"));
  GR_RETURN_IF_ERROR(CheckSelfBlock(sendcounts[root], "sendcounts[root]", recvcount, "the root's recvcount"));
  GR_RETURN_IF_ERROR(CheckOverlap({recvbuf, bytes}, "recvbuf", {sendbuf, extent}, "sendbuf",
                                  Offset(sendbuf, displs[root] * es),
                                  "in place at the root means recvbuf == sendbuf + displs[root] elements")
                         .status());
  return ScattervCall{sendbuf, Blocks::Explicit(sendcounts, displs), recvbuf, recvcount, es, root};
}

}  // namespace gpurun
