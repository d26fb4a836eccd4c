// Request blocks and the free list (see request_pool.h).
#include "p2p/request_pool.h"

namespace gpurun::p2p {
namespace {
constexpr size_t kFirstBlock = 16;
}  // namespace

bool RequestPool::InUse(const Request* p) const {
  const auto address = reinterpret_cast<uintptr_t>(p);
  // Newest block first: it is the largest, so it holds most requests.
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
    const Block& block = *it;
    const auto begin = reinterpret_cast<uintptr_t>(block.requests.get());
    if (address < begin || address >= begin + block.count * sizeof(Request)) continue;
    if ((address - begin) % sizeof(Request) != 0) return false;
    return block.requests[(address - begin) / sizeof(Request)].in_use;
  }
  return false;
}

void RequestPool::Grow() {
  const size_t count = blocks_.empty() ? kFirstBlock : 2 * blocks_.back().count;
  blocks_.push_back(Block{std::make_unique<Request[]>(count), count});
  Request* requests = blocks_.back().requests.get();
  // Chain the new requests in address order onto the free list.
  for (size_t i = count; i-- > 0;) {
    requests[i].next_free = free_;
    free_ = &requests[i];
  }
}

}  // namespace gpurun::p2p
