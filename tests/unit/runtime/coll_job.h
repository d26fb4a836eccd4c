// An in-process job for the collective tests: one thread per rank, each with
// its own Context over the in-process bootstrap and engines over a
// FakeNetwork (or the real shm/ucx wires, which also work between threads).
#ifndef GPURUN_TESTS_UNIT_RUNTIME_COLL_JOB_H_
#define GPURUN_TESTS_UNIT_RUNTIME_COLL_JOB_H_

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "fake_network.h"
#include "runtime/bootstrap/inproc_bootstrap.h"
#include "runtime/context.h"

namespace gpurun::testing {

struct JobOptions {
  int ranks_per_node = 0;  // 0: all on one node
  bool real_wires = false;
  size_t eager_limit = 64;                         // fake network: larger messages go by rendezvous
  Context::HostCollFactory host_coll;              // installed on every rank when set
  std::shared_ptr<p2p::testing::FakeNetwork> net;  // made when null
};

// Runs body(ctx, net) on n ranks; returns each rank's first failure.
inline std::vector<Status> RunJob(int n, JobOptions options,
                                  const std::function<Status(Context&, p2p::testing::FakeNetwork&)>& body) {
  auto group = InprocGroup::Create(n, {.ranks_per_node = options.ranks_per_node, .timeout_s = 60.0});
  if (!group.ok()) return std::vector<Status>(n, group.status());
  auto boots = group->TakeAll();
  auto net = options.net != nullptr ? options.net
                                    : std::make_shared<p2p::testing::FakeNetwork>(
                                          n, p2p::testing::FakeOptions{.eager_limit = options.eager_limit});
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      auto ctx =
          Context::CreateWith(std::move(boots[r]), options.real_wires ? nullptr : p2p::testing::FakeEngineFactory(net));
      if (!ctx.ok()) {
        results[r] = ctx.status();
        return;
      }
      if (options.host_coll) (*ctx)->set_host_coll_factory(options.host_coll);
      results[r] = body(**ctx, *net);
      const Status fin = (*ctx)->Finalize();
      if (results[r].ok()) results[r] = fin;
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace gpurun::testing

#endif  // GPURUN_TESTS_UNIT_RUNTIME_COLL_JOB_H_
