// LaunchBatch (launch_batch.h).
#include "coll/gpu/launch_batch.h"

namespace gpurun::coll {
namespace {

// Whether [a, b) and [c, d) share a byte.
bool Overlap(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d) { return a < b && c < d && a < d && c < b; }

// Lanes: a ring channel, or a tree's (channel, tree).
constexpr int kMaxLanes = 2 * kMaxDeviceChannels;

}  // namespace

CallBytes BytesOfCall(const CollCall& call, int nranks, int rank) {
  const uint64_t block = call.count * static_cast<uint64_t>(ElemSize(call.type));
  uint64_t in = block, out = block;
  switch (call.func) {
    case Func::kAllGather: out = block * static_cast<uint64_t>(nranks); break;
    case Func::kReduceScatter: in = block * static_cast<uint64_t>(nranks); break;
    case Func::kBroadcast: in = rank == call.root ? block : 0; break;
    case Func::kReduce: out = rank == call.root ? block : 0; break;
    case Func::kAllReduce: break;
  }
  CallBytes b;
  if (call.send != nullptr && in > 0) {
    b.read_begin = reinterpret_cast<uintptr_t>(call.send);
    b.read_end = b.read_begin + in;
  }
  if (call.recv != nullptr && out > 0) {
    b.write_begin = reinterpret_cast<uintptr_t>(call.recv);
    b.write_end = b.write_begin + out;
  }
  return b;
}

bool CallsConflict(const CallBytes& y, const CallBytes& x) {
  return Overlap(x.read_begin, x.read_end, y.write_begin, y.write_end) ||
         Overlap(x.write_begin, x.write_end, y.write_begin, y.write_end) ||
         Overlap(x.write_begin, x.write_end, y.read_begin, y.read_end);
}

bool LaunchBatch::Conflicts(const CallBytes& x) const {
  for (int c = 0; c < ncalls_; ++c) {
    if (CallsConflict(bytes_[static_cast<size_t>(c)], x)) return true;
  }
  return false;
}

bool LaunchBatch::Accepts(const void* kernel, int nworks, const CallBytes& bytes) const {
  if (empty()) return nworks <= kMaxDeviceWorks;
  return kernel == kernel_ && nworks_ + nworks <= kMaxDeviceWorks && !Conflicts(bytes);
}

void LaunchBatch::Add(const void* kernel, bool tree, const WorkDesc* works, int nworks, const DevBuffers& buffers,
                      const CallBytes& bytes) {
  kernel_ = kernel;
  tree_ = tree;
  const auto call = static_cast<uint16_t>(ncalls_++);
  buffers_[call] = buffers;
  bytes_[call] = bytes;
  for (int i = 0; i < nworks; ++i) {
    const WorkDesc& w = works[i];
    const auto at = static_cast<size_t>(nworks_++);
    works_[at] = w;
    call_of_[at] = call;
    lane_[at] = static_cast<uint16_t>(tree ? w.channel * 2 + w.tree : w.channel);
  }
}

void LaunchBatch::Fill(DevLaunch* l) const {
  std::array<int16_t, kMaxLanes> block_of;
  block_of.fill(-1);
  std::array<uint16_t, kMaxDeviceChannels + 1> count{};
  int nblocks = 0;
  for (int i = 0; i < nworks_; ++i) {
    int16_t& b = block_of[lane_[static_cast<size_t>(i)]];
    if (b < 0) b = static_cast<int16_t>(nblocks++);
    ++count[static_cast<size_t>(b)];
  }
  // block_first by prefix sums, then each work at its block's next place.
  l->block_first[0] = 0;
  for (int b = 0; b < nblocks; ++b) {
    l->block_first[b + 1] = static_cast<uint16_t>(l->block_first[b] + count[static_cast<size_t>(b)]);
  }
  std::array<uint16_t, kMaxDeviceChannels> next{};
  for (int b = 0; b < nblocks; ++b) next[static_cast<size_t>(b)] = l->block_first[b];
  for (int i = 0; i < nworks_; ++i) {
    const auto b = static_cast<size_t>(block_of[lane_[static_cast<size_t>(i)]]);
    const uint16_t at = next[b]++;
    l->work[at] = works_[static_cast<size_t>(i)];
    l->buffers[at] = buffers_[call_of_[static_cast<size_t>(i)]];
  }
  l->nblocks = nblocks;
}

void LaunchBatch::Clear() {
  kernel_ = nullptr;
  nworks_ = 0;
  ncalls_ = 0;
}

}  // namespace gpurun::coll
