// DirectBatch (direct_batch.h).
#include "coll/gpu/direct_batch.h"

namespace gpurun::coll {

bool DirectBatch::Accepts(const void* kernel, const CallBytes& bytes) const {
  if (empty()) return true;
  if (kernel != kernel_ || ncalls_ == kOneShotBatchCalls) return false;
  for (int c = 0; c < ncalls_; ++c) {
    if (CallsConflict(bytes_[static_cast<size_t>(c)], bytes)) return false;
  }
  return true;
}

void DirectBatch::Add(const void* kernel, const void* send, void* recv, uint64_t data_bytes, uint32_t nblocks,
                      uint32_t divisor, const CallBytes& bytes) {
  kernel_ = kernel;
  divisor_ = divisor;
  const auto c = static_cast<size_t>(ncalls_++);
  args_[c] = DevDirectCallArgs{send, recv, data_bytes, 0, nblocks};
  bytes_[c] = bytes;
}

int DirectBatch::Fill(DevOneShotLaunch* l) const {
  uint32_t blocks = 0;
  for (int c = 0; c < ncalls_; ++c) {
    l->call[c] = args_[static_cast<size_t>(c)];
    l->call[c].first_block = blocks;
    blocks += l->call[c].nblocks;
  }
  l->ncalls = ncalls_;
  return static_cast<int>(blocks);
}

void DirectBatch::Clear() {
  kernel_ = nullptr;
  divisor_ = 0;
  ncalls_ = 0;
}

}  // namespace gpurun::coll
