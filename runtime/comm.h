// The object behind grComm_t: a group of ranks (communicator rank → world
// rank) and its two matching contexts, `context_id` for the user's messages
// and `internal_context_id` for the runtime's own (split/dup agreement,
// later collectives), so that neither ever matches the other. The world
// communicator uses contexts 0 and 1; grCommSplit/grCommDup give each new
// communicator a fresh pair (comm_split.h). On the internal context, tags 1
// and 2 belong to the split agreement; later users take other tags.
// Communicators are owned by the Context, which also knows which are live.
#ifndef GPURUN_RUNTIME_COMM_H_
#define GPURUN_RUNTIME_COMM_H_

#include <cstdint>
#include <vector>

#include "gpurun/gpurun.h"

namespace gpurun {
class Context;
}  // namespace gpurun

struct grComm {
  gpurun::Context* context = nullptr;
  int rank = 0;  // this process's rank in the communicator
  int size = 0;
  std::vector<int> world_ranks;      // communicator rank → world rank
  uint32_t context_id = 0;           // matching context of user messages
  uint32_t internal_context_id = 1;  // matching context of the runtime's messages
  bool is_world = false;
};

#endif  // GPURUN_RUNTIME_COMM_H_
