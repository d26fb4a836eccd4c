// Stream-ordered point-to-point collectives on GPU buffers (coll_p2p_stream.h).
#include "runtime/coll_p2p_stream.h"

#include <algorithm>
#include <cstdint>

#include "runtime/comm.h"
#if GPURUN_HAVE_GPU_COLL
#include <cuda_runtime.h>

#include "coll/gpu/stream_p2p.h"
#include "p2p/cuda_ipc/cuda_status.h"
#endif

namespace gpurun {

#if GPURUN_HAVE_GPU_COLL
namespace {

const std::byte* At(const void* base, const Blocks& b, int i, size_t elem) {
  return static_cast<const std::byte*>(base) + b.Displ(i) * elem;
}
std::byte* At(void* base, const Blocks& b, int i, size_t elem) {
  return static_cast<std::byte*>(base) + b.Displ(i) * elem;
}

coll::StreamP2p& P2p(const StreamTarget& t) { return *static_cast<coll::StreamP2p*>(t.p2p); }

Status Step(const StreamTarget& t, const void* send, uint64_t send_bytes, int to, void* recv, uint64_t recv_bytes,
            int from, int tag) {
  const coll::StreamSend s{send, send_bytes, to, tag};
  coll::StreamRecv r;
  r.buf = recv;
  r.room = recv_bytes;
  r.peer = from;
  r.tag = tag;
  return P2p(t).Run(to >= 0 ? &s : nullptr, from >= 0 ? &r : nullptr, t.stream);
}

Status CopyOnStream(const StreamTarget& t, void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return OkStatus();
  GR_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(t.stream)));
  return OkStatus();
}

// From this size on, the block to itself is copied beside the messages;
// below, the fork and join (two events, ~2 us measured on H200, run 15)
// cost more than the copy they hide.
constexpr size_t kCopyBesideBytes = size_t{1} << 20;

// The block to itself: beside the messages (joined by Finish) when large.
Status CopyBeside(const StreamTarget& t, void* dst, const void* src, size_t bytes) {
  if (bytes < kCopyBesideBytes) return CopyOnStream(t, dst, src, bytes);
  return P2p(t).CopyBeside(dst, src, bytes, t.stream);
}

// Joins the copy beside, whatever `status` is (the copy was enqueued).
Status Finish(const StreamTarget& t, const Status& status) {
  const Status joined = P2p(t).JoinCopies(t.stream);
  return !status.ok() ? status : joined;
}

}  // namespace

Status StreamAlltoallv(RuntimeLink& link, const StreamTarget& t, const AlltoallvCall& call) {
  if (call.recv_blocks.uniformly_empty()) return OkStatus();
  const int n = link.size(), me = link.rank();
  const size_t e = call.elem_size;
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(t.device));
  if (!call.in_place) {
    GR_RETURN_IF_ERROR(CopyBeside(t, At(call.recv, call.recv_blocks, me, e), At(call.send, call.send_blocks, me, e),
                                  call.send_blocks.Count(me) * e));
    Status status;
    for (int k = 1; k < n && status.ok(); ++k) {
      const int to = (me + k) % n, from = (me - k + n) % n;
      status = Step(t, At(call.send, call.send_blocks, to, e), call.send_blocks.Count(to) * e, to,
                    At(call.recv, call.recv_blocks, from, e), call.recv_blocks.Count(from) * e, from, kTagP2pAlltoall);
    }
    return Finish(t, status);
  }
  // In place: the outgoing block goes through scratch, the incoming one
  // lands where it was; partner (k - me) mod n is at the same step.
  size_t most = 0;
  for (int i = 0; i < n; ++i) most = std::max(most, call.recv_blocks.Count(i) * e);
  GR_ASSIGN_OR_RETURN(std::byte * tmp, link.device_scratch().Get(t.device, most));
  for (int k = 0; k < n; ++k) {
    const int partner = ((k - me) % n + n) % n;
    if (partner == me) continue;
    const size_t bytes = call.recv_blocks.Count(partner) * e;
    std::byte* block = At(call.recv, call.recv_blocks, partner, e);
    GR_RETURN_IF_ERROR(CopyOnStream(t, tmp, block, bytes));
    GR_RETURN_IF_ERROR(Step(t, tmp, bytes, partner, block, bytes, partner, kTagP2pAlltoall));
  }
  return OkStatus();
}

Status StreamGatherv(RuntimeLink& link, const StreamTarget& t, const GathervCall& call) {
  const int n = link.size(), me = link.rank();
  const size_t e = call.elem_size;
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(t.device));
  if (me != call.root) return Step(t, call.send, call.send_count * e, call.root, nullptr, 0, -1, kTagP2pGather);
  GR_RETURN_IF_ERROR(CopyBeside(t, At(call.recv, call.recv_blocks, me, e), call.send, call.send_count * e));
  Status status;
  for (int i = 0; i < n && status.ok(); ++i) {
    if (i == me) continue;
    status =
        Step(t, nullptr, 0, -1, At(call.recv, call.recv_blocks, i, e), call.recv_blocks.Count(i) * e, i, kTagP2pGather);
  }
  return Finish(t, status);
}

Status StreamScatterv(RuntimeLink& link, const StreamTarget& t, const ScattervCall& call) {
  const int n = link.size(), me = link.rank();
  const size_t e = call.elem_size;
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(t.device));
  if (me != call.root) return Step(t, nullptr, 0, -1, call.recv, call.recv_count * e, call.root, kTagP2pScatter);
  GR_RETURN_IF_ERROR(CopyBeside(t, call.recv, At(call.send, call.send_blocks, me, e), call.recv_count * e));
  Status status;
  for (int i = 0; i < n && status.ok(); ++i) {
    if (i == me) continue;
    status = Step(t, At(call.send, call.send_blocks, i, e), call.send_blocks.Count(i) * e, i, nullptr, 0, -1,
                  kTagP2pScatter);
  }
  return Finish(t, status);
}

Status StreamAllgatherv(RuntimeLink& link, const StreamTarget& t, const AllgathervCall& call) {
  const int n = link.size(), me = link.rank();
  const size_t e = call.elem_size;
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(t.device));
  const std::byte* mine = At(call.recv, call.recv_blocks, me, e);
  GR_RETURN_IF_ERROR(CopyOnStream(t, const_cast<std::byte*>(mine), call.send, call.send_count * e));
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = (me - k + n) % n;
    GR_RETURN_IF_ERROR(Step(t, mine, call.send_count * e, to, At(call.recv, call.recv_blocks, from, e),
                            call.recv_blocks.Count(from) * e, from, kTagP2pAllgatherv));
  }
  return OkStatus();
}

#else

Status StreamAlltoallv(RuntimeLink&, const StreamTarget&, const AlltoallvCall&) {
  return Unsupported("this build has no GPU path");
}
Status StreamGatherv(RuntimeLink&, const StreamTarget&, const GathervCall&) {
  return Unsupported("this build has no GPU path");
}
Status StreamScatterv(RuntimeLink&, const StreamTarget&, const ScattervCall&) {
  return Unsupported("this build has no GPU path");
}
Status StreamAllgatherv(RuntimeLink&, const StreamTarget&, const AllgathervCall&) {
  return Unsupported("this build has no GPU path");
}

#endif

}  // namespace gpurun
