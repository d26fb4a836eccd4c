// CollQueue: the progress thread of one communicator's nonblocking
// collectives. MPI_I* calls push a task and return; the thread runs the tasks
// one at a time in call order on the communicator's hidden `coll` gpurun
// communicator, so a nonblocking collective moves whatever the program does
// meanwhile (MPI's progress rule: MPI_Ibarrier then MPI_Ssend/MPI_Recv does
// not deadlock). Every task's waits are gpurun's (bounded by GPURUN_TIMEOUT);
// the thread's own wait for work wakes up to see a stop request.
#ifndef GPURUN_COMPAT_MPI_COLL_QUEUE_H_
#define GPURUN_COMPAT_MPI_COLL_QUEUE_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "compat/mpi/errors.h"

namespace gpurun::mpi {

// One nonblocking collective: what it runs and, once run, its result.
struct CollTask {
  std::function<Error()> run;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Error result;

  // Whether it has run (never blocks).
  bool Done();
  // Waits until it has run; returns its result.
  Error Wait();
  void Finish(Error e);
};

class CollQueue {
 public:
  CollQueue();
  // Tasks not started yet complete with MPI_ERR_COMM; the running one is
  // waited for (its gpurun calls are bounded by GPURUN_TIMEOUT).
  ~CollQueue();
  CollQueue(const CollQueue&) = delete;
  CollQueue& operator=(const CollQueue&) = delete;

  void Push(std::shared_ptr<CollTask> task);
  // Returns once every task pushed so far has run.
  void Drain();

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<CollTask>> tasks_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_COLL_QUEUE_H_
