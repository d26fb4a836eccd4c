// Engine: the point-to-point layer of one rank. It owns the wires (shm, ucx),
// routes each peer to one wire (GPURUN_P2P_TRANSPORT), and does MPI matching:
// posted-receive and unexpected-message queues per communicator context,
// wildcards, non-overtaking order per (source, tag, context), truncation
// reported in the status, never a memory overwrite.
//
// Blocking calls (Wait, WaitAny, Probe) poll the wires, spin for
// GPURUN_PROGRESS_SPIN polls, then yield and back off up to
// GPURUN_PROGRESS_MAX_SLEEP, so oversubscribed jobs still move. Each fails
// with grTimeout after GPURUN_TIMEOUT naming what it waited for, and with
// grRemoteError naming the peer when the peer died or aborted.
//
// Thread safety: every public method may be called from any thread; the engine
// serialises them with one lock (MPI_THREAD_SERIALIZED-like behaviour).
#ifndef GPURUN_P2P_ENGINE_H_
#define GPURUN_P2P_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpurun/gpurun.h"
#include "p2p/wire.h"
#include "runtime/base/status.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {

class Request;  // an outstanding send or receive, owned by the engine

struct SendArgs {
  uint32_t context = 0;  // the communicator's matching context
  int source = 0;        // this rank's rank in the communicator
  int dest = 0;          // destination's rank in the communicator
  int dest_world = 0;    // destination's world rank (routes to a wire)
  int tag = 0;           // 0..kMaxTag
  const void* data = nullptr;
  size_t bytes = 0;
};

struct RecvArgs {
  uint32_t context = 0;
  int source = GR_ANY_SOURCE;  // rank in the communicator, or GR_ANY_SOURCE
  int source_world = -1;       // world rank of `source`, -1 for GR_ANY_SOURCE
  int tag = GR_ANY_TAG;
  void* data = nullptr;
  size_t capacity = 0;   // bytes available at data
  size_t type_size = 1;  // for grStatus_t::count
};

class Engine : public WireSink {
 public:
  // Collective over the job: creates and connects the wires that
  // GPURUN_P2P_TRANSPORT and the peer table call for.
  static StatusOr<std::unique_ptr<Engine>> Create(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers);
  // For tests: given wires, and for each world rank the index of the wire that
  // reaches it (-1 for this rank itself, whose messages the engine loops back).
  static std::unique_ptr<Engine> CreateForTest(int world_rank, std::vector<std::unique_ptr<Wire>> wires,
                                               std::vector<int> wire_of_peer);

  ~Engine() override;

  // Declares a communicator context and its members (world ranks, indexed by
  // communicator rank) so that a member's death fails receives on it.
  Status AddContext(uint32_t context, std::vector<int> world_ranks);
  // Forgets a context; InvalidUsage while requests are pending on it.
  Status RemoveContext(uint32_t context);

  StatusOr<Request*> Isend(const SendArgs& args);
  StatusOr<Request*> Irecv(const RecvArgs& args);

  // Waits, fills *status (may be null), frees the request. Returns the
  // operation's error.
  Status Wait(Request* request, grStatus_t* status);
  // Never blocks; when done, as Wait and *done = true.
  Status Test(Request* request, bool* done, grStatus_t* status);
  // Waits for one of `requests` (nulls are skipped): returns its index after
  // freeing it and setting requests[index] = nullptr; -1 if all are null.
  StatusOr<int> WaitAny(std::span<Request*> requests, grStatus_t* status);
  // Probe (blocking) / Iprobe: fills *status of the first matching message.
  Status Probe(uint32_t context, int source, int tag, bool block, bool* found, grStatus_t* status);

  // Cancels every pending request (grFinalize): each completes with an error;
  // returns how many there were.
  int CancelAll(const Status& why);

  // Name of the wire that reaches `world_peer` ("shm", "ucx", "self").
  const char* WireFor(int world_peer) const;

  // WireSink.
  void OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) override;
  void OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) override;
  void OnPeerFailed(int world_peer, const Status& why) override;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_ENGINE_H_
