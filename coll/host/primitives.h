// The executor's primitives (NCCL's prims: send, recv, recvReduceSend,
// recvReduceCopySend, recvCopySend, recvReduceCopy, copySend), templated on
// the protocol policy types of wire_format.h and run by the calling thread.
// One Prims object serves one work: up to two receive and two send peers
// (tree: children and parent), each primitive call moving one chunk over all
// of them and consuming chunk_steps FIFO steps on every connection (Simple:
// slices of slice_steps steps; empty slices too), so both ends of an edge
// agree on step numbers from the call count alone.
//
// Data flow of one slice: inputs are the local source (kSrc) and what each
// receive peer sent (kRecv); they are reduced (or, for one input, copied)
// into the output buffer (kDst) or else straight into the first send slot
// (one input and neither kDst nor kPost: nothing is written, it is sent from
// where it is); kPost applies avg's division once; the result then goes to
// every send peer (LL / LL128 on this host pack their lines straight from it).
#ifndef GPURUN_COLL_HOST_PRIMITIVES_H_
#define GPURUN_COLL_HOST_PRIMITIVES_H_

#include <cstddef>
#include <cstdint>

#include "coll/host/connector.h"
#include "coll/host/reduce.h"
#include "coll/host/wait.h"
#include "coll/patterns/chunking.h"
#include "coll/wire_format.h"
#include "runtime/base/status.h"

// GR_RETURN_IF_ERROR without its copy of the Status on success: for the
// executor's per-call path.
#define GR_PRIMS_RETURN_IF_ERROR(expr)                                                   \
  do {                                                                                   \
    if (::gpurun::Status gr_prims_status_ = (expr); !gr_prims_status_.ok()) [[unlikely]] \
      return gr_prims_status_;                                                           \
  } while (0)

namespace gpurun::coll {

inline constexpr int kMaxPrimPeers = 2;

// What the primitives of one work share.
struct PrimConfig {
  WaitSite site;
  ReduceFn reduce = nullptr;
  DivideFn divide = nullptr;
  uint64_t divisor = 1;  // avg: the rank count
  int elem_size = 1;
  ChunkSteps steps;
  uint64_t step_elems = 0;    // data elements per step
  uint64_t buffer_bytes = 0;  // FIFO size
  // LL / LL128: one step of unpacked data per receive peer, and one to send.
  std::byte* recv_scratch[kMaxPrimPeers] = {};
  std::byte* send_scratch = nullptr;
};

template <typename P>
class Prims {
 public:
  enum : unsigned { kRecv = 1, kSend = 2, kSrc = 4, kDst = 8, kPost = 16 };

  // Connection steps are rounded up to a multiple of chunk_steps first (as
  // NCCL's loadRecvConn/loadSendConn), so that Simple slices never wrap. A
  // shared-memory receiver releases the steps it skips at once: they carry
  // nothing, and the sender's credit counts from the head, so leaving it
  // behind shrank the FIFO by up to chunk_steps - 1 slots. A ring allgather
  // then deadlocked (every rank holding a received chunk while it waited for
  // credit to send the next: 4 ranks, four 1.2 MB reduces with one step per
  // chunk, then a 1.2 MB allgather with four). NET receivers release them
  // in SkipNet, once the proxy has them.
  Prims(const PrimConfig& config, RecvConn* const* recv, int nrecv, SendConn* const* send, int nsend)
      : cfg_(config), nrecv_(nrecv), nsend_(nsend) {
    const auto round = static_cast<uint64_t>(config.steps.chunk_steps);
    for (int k = 0; k < nrecv; ++k) {
      recv_[k] = recv[k];
      recv_from_[k] = recv_[k]->step;
      if (round != 1) recv_[k]->step = AlignUp(recv_[k]->step, round);
      if (recv_[k]->step != recv_from_[k]) {
        if (recv_[k]->net) {
          net_skip_ = true;
        } else {
          recv_[k]->header->head.post(recv_[k]->step);
        }
      }
    }
    for (int k = 0; k < nsend; ++k) {
      send_[k] = send[k];
      send_from_[k] = send_[k]->step;
      if (round != 1) send_[k]->step = AlignUp(send_[k]->step, round);
      net_skip_ = net_skip_ || (send_[k]->net && send_[k]->step != send_from_[k]);
    }
  }

  Status Send(const void* src, uint64_t n) { return Op(src, nullptr, n, kSrc | kSend); }
  Status Recv(void* dst, uint64_t n) { return Op(nullptr, dst, n, kRecv | kDst); }
  Status RecvReduceSend(const void* src, uint64_t n) { return Op(src, nullptr, n, kRecv | kSrc | kSend); }
  Status RecvReduceCopySend(const void* src, void* dst, uint64_t n, bool post) {
    return Op(src, dst, n, kRecv | kSrc | kDst | kSend | (post ? kPost : 0u));
  }
  Status RecvCopySend(void* dst, uint64_t n) { return Op(nullptr, dst, n, kRecv | kDst | kSend); }
  Status RecvReduceCopy(const void* src, void* dst, uint64_t n, bool post) {
    return Op(src, dst, n, kRecv | kSrc | kDst | (post ? kPost : 0u));
  }
  // Copies src to dst (skipped when they are the same) and sends it.
  Status CopySend(const void* src, void* dst, uint64_t n) { return Op(src, dst, n, kSrc | kDst | kSend); }

  // Ends the work (call once per work): nothing is left to complete, since
  // the NET proxy sends what was published after the call returns.
  Status Finish() { return OkStatus(); }

 private:
  Status Op(const void* src, void* dst, uint64_t n, unsigned flags);
  // NET edges whose step the rounding moved: the steps skipped still travel,
  // as empty messages (the receiver's proxy has a receive posted for each),
  // before the first slice of this work.
  Status SkipNet();
  // Op's steps, inlined into it (primitives.cc): no call or Status
  // round trip per step on the hot path.
  [[gnu::always_inline]] Status RecvSlice(RecvConn& c, int k, uint64_t step, int nsteps, uint64_t bytes,
                                          const std::byte** data);
  [[gnu::always_inline]] void ReleaseRecv(RecvConn& c, uint64_t step, int nsteps);
  [[gnu::always_inline]] Status SendSlot(SendConn& c, uint64_t step, int nsteps, uint64_t bytes, std::byte** slot);
  [[gnu::always_inline]] Status PublishSend(SendConn& c, uint64_t step, int nsteps, const std::byte* data,
                                            uint64_t bytes);

  const PrimConfig& cfg_;
  RecvConn* recv_[kMaxPrimPeers] = {};
  SendConn* send_[kMaxPrimPeers] = {};
  int nrecv_;
  int nsend_;
  uint64_t recv_from_[kMaxPrimPeers] = {};  // steps before rounding
  uint64_t send_from_[kMaxPrimPeers] = {};
  bool net_skip_ = false;  // a NET edge has skipped steps to move (SkipNet)
};

extern template class Prims<ProtoLL>;
extern template class Prims<ProtoLL128>;
extern template class Prims<ProtoSimple>;

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_PRIMITIVES_H_
