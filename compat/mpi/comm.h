// Communicators of the MPI layer. Each MPI communicator owns two gpurun
// communicators: `gr` carries the user's messages, `coll` (a hidden
// duplicate) every collective — blocking ones inline, nonblocking ones on the
// communicator's CollQueue thread, never both at once — and the layer's own
// messages for collectives gpurun lacks (scan, host reductions).
#ifndef GPURUN_COMPAT_MPI_COMM_H_
#define GPURUN_COMPAT_MPI_COMM_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compat/mpi/errors.h"
#include "gpurun/gpurun.h"
#include "mpi.h"

namespace gpurun::mpi {

class CollQueue;  // coll_queue.h

struct Comm {
  grComm_t gr = GR_COMM_NULL;
  grComm_t coll = GR_COMM_NULL;
  int rank = 0;
  int size = 0;
  std::vector<int> world_ranks;  // the group: world rank of each rank
  std::atomic<MPI_Errhandler> errhandler{MPI_ERRORS_ARE_FATAL};
  std::string name;
  bool predefined = false;  // MPI_COMM_WORLD / MPI_COMM_SELF: never freed by the user
  bool owns_gr = true;      // false for gpurun's world communicator
  // Cartesian topology (MPI_Cart_create), empty otherwise.
  std::vector<int> cart_dims, cart_periods;
  // Sequence number of the layer's own collective messages on `coll` (every
  // rank runs the same collectives in the same order, so numbers agree).
  uint32_t coll_seq = 0;
  std::mutex queue_mu;
  std::unique_ptr<CollQueue> queue;  // made at the first nonblocking collective
  ~Comm();
};

// The live communicator of a handle, or null.
std::shared_ptr<Comm> FindComm(MPI_Comm comm);
// A live communicator, or MPI_ERR_COMM.
Error CheckComm(MPI_Comm comm, std::shared_ptr<Comm>* out);
// Wraps gpurun communicator `gr` (taken over) into a new MPI communicator:
// makes its hidden duplicate and learns its group. Collective over gr.
Error MakeComm(grComm_t gr, std::shared_ptr<Comm>* out);
// Registers a communicator under a new handle.
MPI_Comm InsertComm(std::shared_ptr<Comm> comm, MPI_Comm fixed = MPI_COMM_NULL);
// Frees every communicator (MPI_Finalize): stops queues, frees gpurun comms.
void FreeAllComms();

// Waits until the nonblocking collectives started on `comm` have run, so a
// blocking collective may use `coll` (collectives are ordered per comm).
Error DrainQueue(Comm& comm);

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_COMM_H_
