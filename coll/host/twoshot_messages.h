// The host executor's two-shot AllReduce as point-to-point messages: a
// reduce-scatter then an all-gather, each one message per peer sent straight
// from the caller's buffer (MPI's "reduce-scatter + allgather", NCCL's
// two-shot, Rabenseifner's shape with direct exchanges instead of halving).
//
//   Phase 1: rank r sends block b of its input to rank b (every b != r) and
//            receives block r of every peer's input into a scratch buffer;
//            then it reduces block r, its own copy first, then the peers' in
//            the order it received them, into its output (one rank reduces
//            each block, so every rank gets the same bits), and divides for
//            avg.
//   Phase 2: rank r sends its reduced block to every peer and receives each
//            peer's reduced block into its output where it belongs.
//
// Blocks split `count` elements evenly, the first count % n blocks one
// element longer; an empty block sends nothing. Every byte crosses a wire
// once per phase: on one host the engine moves a message above
// GPURUN_SHM_EAGER_LIMIT as one copy out of the sender's memory
// (process_vm_readv); across hosts UCX's rendezvous sends the user's buffer
// itself. The ring instead copies every byte into a connector FIFO, which
// across hosts the NET proxy then sends: one more copy per step.
//
// Protocol simple, one channel, like oneshot_messages.h (the choice refuses
// others). Tags kTwoShotScatterTag and kTwoShotGatherTag; the steps go
// through a StepWindow: at most kMaxStepsInFlight peers in flight, waits
// bounded by GPURUN_TIMEOUT and naming the peer, a message of another size
// than this rank's count grInvalidUsage. In place is allowed: phase 1 sends
// complete (the peer has read them) before phase 2 overwrites their source.
#ifndef GPURUN_COLL_HOST_TWOSHOT_MESSAGES_H_
#define GPURUN_COLL_HOST_TWOSHOT_MESSAGES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/coll_types.h"
#include "coll/host/comm_link.h"
#include "coll/host/host_coll.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

inline constexpr int kTwoShotScatterTag = kCollExecutorTagBase + 2;
inline constexpr int kTwoShotGatherTag = kCollExecutorTagBase + 3;

// Elements [start, start + count) of block `b` when `total` elements split
// over `n` blocks: the first total % n blocks hold one element more.
struct Block {
  uint64_t start = 0;
  uint64_t count = 0;
};
Block TwoShotBlock(uint64_t total, int n, int b);

// `call.func` must be AllReduce, count > 0, 2 or more ranks. `scratch`
// grows to (n - 1) blocks of this rank's and is kept for the next call.
Status TwoShotAllReduce(CommLink& link, const CollCall& call, std::vector<std::byte>& scratch);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_TWOSHOT_MESSAGES_H_
