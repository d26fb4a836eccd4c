// The process's one Context between grInit and grFinalize.
#ifndef GPURUN_RUNTIME_GLOBAL_CONTEXT_H_
#define GPURUN_RUNTIME_GLOBAL_CONTEXT_H_

#include <memory>

#include "runtime/context.h"

namespace gpurun {

// The current context, or null outside grInit..grFinalize. Lock-free.
Context* CurrentContext();

// Creates and installs the context (grInit); InvalidUsage if one exists or
// one was finalized already (like MPI, the runtime starts once per process).
Status InitGlobalContext();

// Finalizes and destroys the context (grFinalize).
Status FinalizeGlobalContext();

// Checks that `comm` is a live communicator of the current context.
StatusOr<grComm*> CheckComm(grComm_t comm);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_GLOBAL_CONTEXT_H_
