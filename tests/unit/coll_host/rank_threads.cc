// Multi-rank test drivers (rank_threads.h).
#include "tests/unit/coll_host/rank_threads.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "p2p/shm/shm_names.h"

namespace gpurun::coll {

std::string NewUnique() {
  static std::atomic<int> counter{0};
  return "ut" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

int SegmentsLeft(const std::string& unique) {
  const std::string prefix = p2p::ShmSegmentPrefix(unique).substr(1, p2p::ShmSegmentPrefix(unique).size() - 2);
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm")) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

std::string RunRanks(ThreadWorld& world, const RankFn& fn) {
  std::vector<std::string> errors(static_cast<size_t>(world.size()));
  std::vector<std::thread> threads;
  for (int r = 0; r < world.size(); ++r) {
    threads.emplace_back([&, r] {
      ThreadLink link(world, r);
      auto coll = HostCollImpl::CreateImpl(link);
      if (!coll.ok()) {
        errors[static_cast<size_t>(r)] = coll.status().ToString();
        return;
      }
      errors[static_cast<size_t>(r)] = fn(r, **coll, world);
    });
  }
  for (auto& t : threads) t.join();
  std::string all;
  for (int r = 0; r < world.size(); ++r) {
    if (!errors[static_cast<size_t>(r)].empty())
      all += "rank " + std::to_string(r) + ": " + errors[static_cast<size_t>(r)] + "\n";
  }
  return all;
}

std::string RunCases(ThreadWorld& world, const std::vector<CollCase>& cases) {
  return RunRanks(world, [&](int rank, HostCollImpl& coll, ThreadWorld& w) -> std::string {
    for (const CollCase& c : cases) {
      std::string e = RunAndCheck(coll, rank, w.size(), c);
      if (!e.empty()) {
        w.MarkDead(rank);  // let the others fail fast instead of waiting out the timeout
        return e;
      }
    }
    return "";
  });
}

}  // namespace gpurun::coll
