// UcxOp: one UCX request the wire tracks (a send, a frame or payload receive,
// a drain, an endpoint close), and the UCX callbacks that report on it.
// Callbacks only record the outcome; UcxCore::Finish acts on it later from
// Progress (or at once when UCX completed the request inline), so no user
// code runs inside UCX.
#ifndef GPURUN_P2P_UCX_UCX_OP_H_
#define GPURUN_P2P_UCX_UCX_OP_H_

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "p2p/wire.h"

namespace gpurun::p2p {

class UcxCore;

enum class UcxOpKind {
  kSend,      // user payload or eager frame; `done` is the user's
  kAnnounce,  // announce frame ahead of a large payload
  kFrame,     // receive of an eager or announce frame into the reused buffer
  kFetch,     // receive of a large payload for PendingPayload::Fetch
  kDrain,     // receive of a dropped large payload, discarded
  kClose,     // ucp_ep_close_nbx
};

struct UcxOp {
  UcxCore* core = nullptr;
  UcxOpKind kind = UcxOpKind::kSend;
  int peer = -1;                       // world rank of the remote side (-1: not known yet)
  Completion done;                     // user completion, empty for internal ops or once delivered
  std::unique_ptr<std::byte[]> owned;  // frame being sent, temporary receive buffer
  std::byte* data = nullptr;           // where the bytes are (owned, the reused frame buffer, or user memory)
  size_t size = 0;                     // bytes at data
  void* copy_dst = nullptr;            // truncating fetch: copy copy_bytes from data to here
  size_t copy_bytes = 0;
  uint64_t tag = 0;         // kFrame: the sender's tag
  void* request = nullptr;  // UCX request once it is not complete inline
  ucs_status_t status = UCS_INPROGRESS;
};

// UCX callbacks; `user_data` / `arg` is the UcxOp (or the peer slot for errors).
void UcxSendCallback(void* request, ucs_status_t status, void* user_data);
void UcxRecvCallback(void* request, ucs_status_t status, const ucp_tag_recv_info_t* info, void* user_data);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_OP_H_
