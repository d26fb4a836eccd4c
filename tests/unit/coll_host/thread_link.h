// ThreadWorld / ThreadLink: an in-process CommLink for unit tests, each rank
// a thread of one process. AllGather is a generation barrier; Isend copies
// into a mailbox at once (eager) and Irecv matches the oldest message of
// (source, tag) in posting order; SameHost follows a configurable host of
// each rank, so cross-host connectors are tested too; CheckPeer reports a
// rank marked dead. Every wait gives up after the world's timeout.
#ifndef GPURUN_TESTS_UNIT_COLL_HOST_THREAD_LINK_H_
#define GPURUN_TESTS_UNIT_COLL_HOST_THREAD_LINK_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "coll/host/comm_link.h"

namespace gpurun::coll {

// The in-process request behind LinkRequest* (this test's definition).
struct LinkRequest {
  bool is_send = false;
  int src = -1;
  int dst = -1;
  int tag = 0;
  void* data = nullptr;
  size_t bytes = 0;
  bool done = false;
  Status status;
  bool wrong_size = false;  // a receive matched a message of another size (status says which)
};

class ThreadWorld {
 public:
  // `host_of[r]` is rank r's host number; `unique` names its segments.
  ThreadWorld(std::vector<int> host_of, std::string unique);

  int size() const { return static_cast<int>(host_of_.size()); }
  int host_of(int rank) const { return host_of_[static_cast<size_t>(rank)]; }
  const std::string& unique() const { return unique_; }
  void MarkDead(int rank);
  bool IsDead(int rank);

  Status AllGather(int rank, const void* mine, size_t bytes, void* all);
  void Post(LinkRequest* request);    // Isend (completes at once) or Irecv
  Status Poll(LinkRequest* request);  // tries to complete a receive

 private:
  using Key = std::tuple<int, int, int>;  // src, dst, tag
  std::vector<int> host_of_;
  std::string unique_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<bool> dead_;
  std::vector<uint64_t> calls_;  // AllGather calls per rank
  uint64_t generation_ = 0;      // completed AllGathers
  int arrived_ = 0;
  std::vector<std::vector<char>> slots_[2];  // per parity, per rank
  std::map<Key, std::deque<std::vector<char>>> mail_;
  std::map<Key, std::deque<LinkRequest*>> posted_;
};

class ThreadLink final : public CommLink {
 public:
  ThreadLink(ThreadWorld& world, int rank) : world_(world), rank_(rank) {}

  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  bool SameHost(int peer) const override { return world_.host_of(peer) == world_.host_of(rank_); }
  int LocalSize() const override;
  // Ranks are threads of this process: they share cores when they outnumber the machine's.
  bool SharesCores() const override;
  int HostOf(int peer) const override { return world_.host_of(peer); }
  std::string DescribePeer(int peer) const override;
  std::string UniqueName() const override { return world_.unique(); }
  Status AllGather(const void* mine, size_t bytes, void* all) override {
    return world_.AllGather(rank_, mine, bytes, all);
  }
  using CommLink::Irecv;
  using CommLink::Isend;
  StatusOr<LinkRequest*> Isend(int peer, int tag, const void* data, size_t bytes, const char* what) override;
  StatusOr<LinkRequest*> Irecv(int peer, int tag, void* data, size_t bytes, const char* what) override;
  Status WaitAllSized(std::span<LinkRequest*> requests, const char* what, grResult_t mismatch) override;
  Status Test(LinkRequest** request, bool* done) override;
  Status CheckPeer(int peer) override;

 private:
  ThreadWorld& world_;
  int rank_;
};

}  // namespace gpurun::coll

#endif  // GPURUN_TESTS_UNIT_COLL_HOST_THREAD_LINK_H_
