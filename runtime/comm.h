// The object behind grComm_t. Today only the world communicator exists; later
// issues add split/dup with their own matching contexts.
#ifndef GPURUN_RUNTIME_COMM_H_
#define GPURUN_RUNTIME_COMM_H_

#include <vector>

#include "gpurun/gpurun.h"

namespace gpurun {
class Context;
}  // namespace gpurun

struct grComm {
  gpurun::Context* context = nullptr;
  int rank = 0;  // this process's rank in the communicator
  int size = 0;
  std::vector<int> world_ranks;  // communicator rank → world rank
};

#endif  // GPURUN_RUNTIME_COMM_H_
