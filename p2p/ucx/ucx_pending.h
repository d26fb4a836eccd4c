// UcxPendingPayload: a large message probed from UCX (its ucp_tag_message_h)
// whose payload stays in UCX until the engine matches a receive and calls
// Fetch. Destroying it unfetched drains the message, so UCX releases it and
// the sender's send completes. Holds the wire's core alive; once the wire is
// shut down, Fetch fails and destruction does nothing.
#ifndef GPURUN_P2P_UCX_UCX_PENDING_H_
#define GPURUN_P2P_UCX_UCX_PENDING_H_

#include <ucp/api/ucp.h>

#include <cstddef>
#include <memory>

#include "p2p/wire.h"

namespace gpurun::p2p {

class UcxCore;

class UcxPendingPayload : public PendingPayload {
 public:
  UcxPendingPayload(std::shared_ptr<UcxCore> core, ucp_tag_message_h message, size_t length, int world_source)
      : core_(std::move(core)), message_(message), length_(length), world_source_(world_source) {}
  ~UcxPendingPayload() override;
  UcxPendingPayload(const UcxPendingPayload&) = delete;
  UcxPendingPayload& operator=(const UcxPendingPayload&) = delete;

  // Receives the message; when `bytes` < its length, into a temporary buffer
  // of full length, then copies `bytes` bytes to `dst` (nothing beyond).
  // `done` runs from this call or a later Progress(). Call at most once.
  void Fetch(void* dst, size_t bytes, Completion done) override;

 private:
  std::shared_ptr<UcxCore> core_;
  ucp_tag_message_h message_;
  size_t length_;
  int world_source_;
  bool used_ = false;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_PENDING_H_
