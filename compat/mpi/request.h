// Requests of the MPI layer: a gpurun request (point-to-point), a
// nonblocking collective's task, or an operation already complete when it
// started (MPI_PROC_NULL, buffered sends). A receive into a non-contiguous
// datatype lands in a staging buffer, unpacked when it completes.
#ifndef GPURUN_COMPAT_MPI_REQUEST_H_
#define GPURUN_COMPAT_MPI_REQUEST_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "compat/mpi/coll_queue.h"
#include "compat/mpi/datatype.h"
#include "compat/mpi/errors.h"
#include "gpurun/gpurun.h"
#include "mpi.h"

namespace gpurun::mpi {

struct RequestEntry {
  MPI_Comm comm = MPI_COMM_WORLD;
  grRequest_t gr = GR_REQUEST_NULL;
  std::shared_ptr<CollTask> task;
  bool complete = false;  // done (at start, or completed early): `status` and `result` are final
  Error result;
  MPI_Status status{MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
  bool recv = false;
  // A receive through `staging`: unpacked into count instances of type at buf.
  std::vector<std::byte> staging;
  void* buf = nullptr;
  size_t count = 0;
  std::shared_ptr<const Datatype> type;
  // A send of packed data, kept alive until it completes.
  std::vector<std::byte> packed;
};

// Registers a started operation; returns its handle.
MPI_Request AddRequest(std::unique_ptr<RequestEntry> entry);

// An empty status (MPI_PROC_NULL and completed sends).
MPI_Status EmptyStatus(int source = MPI_ANY_SOURCE);

// Completes request *handle if done (block: waits): fills *status (may be
// null), frees it, sets *handle to MPI_REQUEST_NULL, *done = true; returns the
// operation's error. A null handle is done with an empty status.
Error CompleteRequest(MPI_Request* handle, bool block, bool* done, MPI_Status* status);

// Marks a request cancelled and complete (MPI_Cancel of a receive gpurun
// withdrew). MPI_ERR_REQUEST if the handle is not a request.
Error MarkCancelled(MPI_Request handle);
// The entry of a live request, or null (valid until it completes).
RequestEntry* FindRequest(MPI_Request handle);

// Waits for the requests given up by MPI_Request_free (MPI_Finalize).
void CompleteDetached();

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_REQUEST_H_
