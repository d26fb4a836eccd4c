// Request: the engine's record of one outstanding send or receive. Engine::
// Isend/Irecv create requests; the engine owns them (in its RequestPool,
// request_pool.h) and hands them out as opaque pointers (grRequest_t);
// Wait/Test/WaitAny/WaitAll free them.
//
// Life cycle: a receive is `posted` (queued in its context's posted queue)
// until a message matches, then its payload is copied or fetched, then it is
// `complete` (status and error final). Independently, `wire_busy` says a wire
// still holds the request's buffer (a send in flight, a fetch in progress) and
// will call back, and `released` says the user has given the request up; the
// engine deletes a request once it is released and no wire is busy with it.
#ifndef GPURUN_P2P_REQUEST_H_
#define GPURUN_P2P_REQUEST_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpurun/gpurun.h"
#include "p2p/device_transfer.h"
#include "p2p/match_header.h"
#include "p2p/wire.h"
#include "runtime/base/status.h"

namespace gpurun::p2p {

enum class RequestKind { kSend, kRecv };

class Request {
 public:
  RequestKind kind = RequestKind::kRecv;
  const char* what = "";  // the operation's name in messages ("grIrecv")
  uint32_t context = 0;
  int peer = 0;        // send: destination; receive: source or GR_ANY_SOURCE (communicator ranks)
  int peer_world = 0;  // world rank of `peer`; -1 for GR_ANY_SOURCE
  int tag = 0;         // receive: may be GR_ANY_TAG
  void* data = nullptr;
  size_t bytes = 0;      // send: message size; receive: buffer capacity
  size_t type_size = 1;  // receive: element size, for grStatus_t::count

  bool posted = false;     // in its context's posted-receive queue
  bool complete = false;   // error and status are final
  bool wire_busy = false;  // a wire holds `data` and will call back
  bool released = false;   // the user gave it up; delete when !wire_busy
  bool device = false;     // `data` is GPU memory (device_transfer.h)
  int matched_world = -1;  // receive: world rank of the matched message's sender
  MatchHeader matched;     // receive: the matched message's envelope, while its payload is fetched

  Status error;
  grStatus_t status{GR_ANY_SOURCE, GR_ANY_TAG, grSuccess, 0, 0};
  // The rendezvous handle of the matched message, kept until the request is
  // deleted (the wire may still reference it after calling back).
  std::unique_ptr<PendingPayload> payload;
  // Device send: the DeviceRts the wire carries, and its id (non-zero while
  // the send waits for the receiver's DeviceFin). Device receive of a host
  // payload that the wire fetches later: the host bytes, copied in when done.
  DeviceRts rts;
  uint64_t device_send_id = 0;
  std::unique_ptr<std::byte[]> staging;

  // Bookkeeping of the pool (request_pool.h) and the posted queue (match_queue.h).
  bool in_use = false;            // handed out by the pool, not freed yet
  bool listed = false;            // marked while a list of requests is checked for repeats
  Request* queue_prev = nullptr;  // posted-queue neighbours while `posted`
  Request* queue_next = nullptr;
  Request* next_free = nullptr;  // the pool's free list

  // Back to the state of a new request (pool bookkeeping aside).
  void Reset();

  // "grRecv from rank 3 (world 3) tag 7 on context 0",
  // "grIsend to rank 1 (world 5) tag 0 on context 2".
  std::string Describe() const;
  // Completes with `error` (OK for success); a non-OK error gets Describe() as
  // context unless it already starts with it.
  void Complete(const Status& error);
  // Complete(OkStatus()), inline for the hot paths.
  void CompleteOk() {
    complete = true;
    posted = false;
    status.error = grSuccess;
    if (!error.ok()) error = OkStatus();  // normally OK already: a request completes once
  }
  // Completes a receive of a message `header` of which `written` bytes were
  // stored: fills the status, and fails with grTruncated when the message was
  // larger than the buffer.
  void CompleteReceive(const MatchHeader& header, size_t written) {
    status.source = header.source;
    status.tag = header.tag;
    status.bytes = written;
    status.count = type_size == 0 ? 0 : written / type_size;
    if (header.bytes <= bytes) {
      CompleteOk();
    } else {
      CompleteTruncated(header, written);
    }
  }

 private:
  void CompleteTruncated(const MatchHeader& header, size_t written);
};

// "grRecv from rank 3 (world 3) tag 7 on context 0" (send: "to"); source may be
// GR_ANY_SOURCE ("from any rank"), tag GR_ANY_TAG ("with any tag").
std::string DescribeOperation(const char* what, bool send, int peer, int peer_world, int tag, uint32_t context);

// A status for "nothing received": GR_ANY_SOURCE, GR_ANY_TAG, no bytes.
inline grStatus_t EmptyStatus(grResult_t error = grSuccess) {
  return grStatus_t{GR_ANY_SOURCE, GR_ANY_TAG, error, 0, 0};
}

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_REQUEST_H_
