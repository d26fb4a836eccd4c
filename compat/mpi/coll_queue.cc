// The nonblocking collectives' progress thread.
#include "compat/mpi/coll_queue.h"

#include <chrono>

namespace gpurun::mpi {

bool CollTask::Done() {
  std::lock_guard<std::mutex> lock(mu);
  return done;
}

Error CollTask::Wait() {
  std::unique_lock<std::mutex> lock(mu);
  // The task's own gpurun calls are bounded by GPURUN_TIMEOUT, so it ends.
  while (!done) cv.wait_for(lock, std::chrono::milliseconds(100));
  return result;
}

void CollTask::Finish(Error e) {
  std::lock_guard<std::mutex> lock(mu);
  result = std::move(e);
  done = true;
  cv.notify_all();
}

CollQueue::CollQueue() : thread_([this] { Loop(); }) {}

CollQueue::~CollQueue() {
  std::deque<std::shared_ptr<CollTask>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    dropped.swap(tasks_);
    cv_.notify_all();
  }
  for (auto& t : dropped) t->Finish(Fail(MPI_ERR_COMM, "the communicator was freed before the collective ran"));
  thread_.join();
}

void CollQueue::Push(std::shared_ptr<CollTask> task) {
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.push_back(std::move(task));
  cv_.notify_all();
}

void CollQueue::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  while (busy_ || !tasks_.empty()) cv_.wait_for(lock, std::chrono::milliseconds(100));
}

void CollQueue::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    while (!stop_ && tasks_.empty()) cv_.wait_for(lock, std::chrono::milliseconds(200));
    if (tasks_.empty()) return;  // stop requested
    std::shared_ptr<CollTask> task = std::move(tasks_.front());
    tasks_.pop_front();
    busy_ = true;
    lock.unlock();
    Error result = task->run();
    task->run = nullptr;  // drop captured buffers before reporting done
    task->Finish(std::move(result));
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace gpurun::mpi
