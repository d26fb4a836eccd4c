// Device primitives of the LL128 protocol (NCCL prims_ll128.h; wire format
// in coll/wire_format.h): 128-byte lines of 15 data words and a flag word,
// each line stored by 8 lanes of a warp with one 16-byte volatile store
// apiece, lane 7 carrying the flag in its second word. It relies on a
// warp's 128-byte store arriving whole at the peer, which NVLink gives and
// PCIe does not (the GPU tuner offers LL128 only over CUDA IPC between GPUs
// joined by NVLink). Same calls as PrimsSimple / PrimsLL; a chunk is one
// FIFO step (prims_one_step.cuh). Per call each warp takes 4 lines per round (lines (round * warps + warp) * 4 + lane /
// 8): the receiving lanes load their 16 bytes, lane 7 of each line checks the flag and the whole warp reloads until
// every line it holds carries it (NCCL's warp-wide poll), then each lane combines its two words with the source's,
// stores them to the next rank's FIFO and/or the destination. User buffers are read and written a word at a time by the
// widest access their alignment allows (ll_words.cuh): 16-byte pieces of a 120-byte line are only 8-byte aligned on
// every other line anyway. Flags are 64-bit step numbers: they never wrap, so no clean-up is needed.
#ifndef GPURUN_COLL_DEVICE_PRIMS_LL128_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_LL128_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/device/ll_words.cuh"
#include "coll/device/prims_one_step.cuh"
#include "coll/device/sync.cuh"
#include "coll/int_math.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

// Data bytes of one LL128 line.
inline constexpr uint64_t kLL128LineData = GeometryOf(Protocol::kLL128).line_data_bytes;

template <DataType D, typename RedFn, int Fan = 1>
class PrimsLL128 : public PrimsOneStep<PrimsLL128<D, RedFn, Fan>, D, Fan> {
  using Base = PrimsOneStep<PrimsLL128<D, RedFn, Fan>, D, Fan>;

 public:
  using S = typename Base::S;
  __device__ PrimsLL128(const DevLaunch& l, const WorkDesc& w, const DevPeers<Fan>* peers, int* failed)
      : Base(l, w, peers, failed) {}

  // Never on NET connections: a 128-byte line must arrive whole, which
  // the proxy's messages do not promise (the ring refuses LL128 there).
  static constexpr bool kNetCapable = false;

  // Warp-collective: every lane of the warp calls it, `active` or not. Loads
  // this lane's 16 bytes of its line until lane 7 of every active line of the
  // warp saw `flag`; false when the wait gave up (recorded).
  __device__ bool RecvPiece(const uint64_t* piece, bool active, int lane, uint64_t flag, WaitWhat what, uint64_t* w0,
                            uint64_t* w1) {
    PollGuard<DevLaunch> guard{this->l_, what};
    for (;;) {
      if (active) {
        asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2];" : "=l"(*w0), "=l"(*w1) : "l"(piece) : "memory");
      }
      const bool mine = !active || (lane & 7) != kLL128FlagLane || *w1 == flag;
      const bool line_ready = __shfl_sync(0xffffffffu, mine, (lane & ~7) + kLL128FlagLane);
      if (__all_sync(0xffffffffu, line_ready)) return true;
      const bool give_up = !line_ready && !guard.Keep(flag, (lane & 7) == kLL128FlagLane ? *w1 : 0);
      if (__any_sync(0xffffffffu, give_up)) return false;
    }
  }

  // Called by Base::Run; false when a wait gave up (recorded).
  __device__ bool Move(unsigned flags, const S* src, S* dst, uint64_t n, uint64_t rstep, uint64_t sstep) {
    const uint64_t bytes = n * sizeof(S);
    const uint64_t lines = DivUp(bytes, kLL128LineData);
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int part = lane & 7;  // which 16 bytes of the line
    const uint64_t warp = threadIdx.x / 32, warps = blockDim.x / 32;
    const DevPeers<Fan>& p = *this->peers_;
    const uint64_t rslot = SlotOffset(rstep, this->l_.ll128_buffer_bytes);
    const uint64_t sslot = SlotOffset(sstep, this->l_.ll128_buffer_bytes);
    const auto* src8 = reinterpret_cast<const uint8_t*>(src);
    auto* dst8 = reinterpret_cast<uint8_t*>(dst);
    const uint64_t rflag = LL128Flag(rstep);
    const uint64_t sflag = LL128Flag(sstep);
    const int nrecv = (flags & kPrimRecv) ? p.nrecv : 0;
    const int nsend = (flags & kPrimSend) ? p.nsend : 0;
    const uint64_t rounds = DivUp(lines, 4 * warps);
    for (uint64_t r = 0; r < rounds; ++r) {
      const uint64_t line = (r * warps + warp) * 4 + static_cast<uint64_t>(lane / 8);
      const bool active = line < lines;
      const uint64_t off = line * kLL128LineData + 16 * static_cast<uint64_t>(part);
      // Data bytes of this lane's two words (lane 7's second word is the flag).
      const uint64_t nb0 = active && off < bytes ? Min<uint64_t>(8, bytes - off) : 0;
      const uint64_t nb1 = active && part != kLL128FlagLane && off + 8 < bytes ? Min<uint64_t>(8, bytes - off - 8) : 0;
      uint64_t w0 = 0, w1 = 0;
      if ((flags & kPrimSrc) && active) {
        w0 = nb0 > 0 ? LoadChunk(src8 + off, nb0) : 0;
        w1 = nb1 > 0 ? LoadChunk(src8 + off + 8, nb1) : 0;
      }
      for (int k = 0; k < Fan && k < nrecv; ++k) {
        const auto* in = reinterpret_cast<const uint64_t*>(p.recv[k].ll128_fifo + rslot);
        uint64_t g0 = 0, g1 = 0;
        if (!RecvPiece(in + line * kLL128LineWords + LL128LaneWord(part), active, lane, rflag, p.What(k, false), &g0,
                       &g1)) {
          return false;
        }
        const bool first = k == 0 && !(flags & kPrimSrc);
        w0 = first ? g0 : CombineWord<D, RedFn>(w0, g0);
        w1 = first ? g1 : CombineWord<D, RedFn>(w1, g1);
      }
      if (!active) continue;
      if ((flags & kPrimPost) && this->divisor_ != 0) {
        w0 = DivideWord<D>(w0, this->divisor_);
        w1 = DivideWord<D>(w1, this->divisor_);
      }
      for (int k = 0; k < Fan && k < nsend; ++k) {
        auto* out = reinterpret_cast<LL128Line*>(p.send[k].ll128_fifo + sslot);
        out[line].writeLane(part, w0, part == kLL128FlagLane ? sflag : w1);
      }
      if (flags & kPrimDst) {
        if (nb0 > 0) StoreChunk(dst8 + off, w0, nb0);
        if (nb1 > 0) StoreChunk(dst8 + off + 8, w1, nb1);
      }
    }
    return true;
  }
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_LL128_CUH_
