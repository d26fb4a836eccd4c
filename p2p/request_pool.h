// RequestPool: where the engine's requests live. Requests are carved from
// blocks (16, 32, 64, ... of them) that stay until the pool dies and are
// recycled through a free list, so starting an operation allocates nothing
// once the pool has grown to the job's largest number of outstanding
// requests. Because the blocks are known, any pointer can be checked for
// being a request of this pool without dereferencing foreign memory (grWait
// on a stale or made-up handle is an error, not a crash).
//
// Thread safety: none; the engine calls it under its lock.
#ifndef GPURUN_P2P_REQUEST_POOL_H_
#define GPURUN_P2P_REQUEST_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "p2p/request.h"

namespace gpurun::p2p {

class RequestPool {
 public:
  RequestPool() = default;
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  // A request in the state of a new one, marked in use.
  Request* Acquire() {
    if (free_ == nullptr) Grow();
    Request* r = free_;
    free_ = r->next_free;
    r->next_free = nullptr;
    r->in_use = true;
    ++in_use_;
    return r;
  }

  // Gives `r` (acquired here, in use) back, reset (its payload handle dropped).
  void Free(Request* r) {
    r->in_use = false;
    r->Reset();
    r->next_free = free_;
    free_ = r;
    --in_use_;
  }

  // Whether `p` points at a request of this pool that is in use. Any value
  // may be passed; only pool memory is read.
  bool InUse(const Request* p) const;

  // Calls f(Request&) for every request in use (in no particular order).
  template <typename F>
  void ForEachInUse(F&& f) {
    for (const Block& block : blocks_) {
      for (size_t i = 0; i < block.count; ++i) {
        if (block.requests[i].in_use) f(block.requests[i]);
      }
    }
  }

  // Drops the payload handles of all requests in use (the engine's teardown,
  // before the wires that made them go).
  void DropPayloads() {
    ForEachInUse([](Request& r) { r.payload.reset(); });
  }

  size_t in_use() const { return in_use_; }

 private:
  struct Block {
    std::unique_ptr<Request[]> requests;
    size_t count;
  };

  void Grow();

  std::vector<Block> blocks_;
  Request* free_ = nullptr;
  size_t in_use_ = 0;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_REQUEST_POOL_H_
