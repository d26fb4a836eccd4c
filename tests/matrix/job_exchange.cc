// All-to-all exchange over point-to-point and the barrier check
// (job_exchange.h).
#include "tests/matrix/job_exchange.h"

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "tests/matrix/device_buffer.h"

namespace gpurun::matrix {
namespace {

constexpr int kExchangeTag = 0x3A7;

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);  // one clock for every process of the host
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

[[noreturn]] void P2pFailed(const PlanContext& x, const char* what, grResult_t r) {
  std::printf("FAIL rank=%d: %s failed: %s: %s (aborting)\n", x.rank, what, grGetErrorString(r),
              grGetLastErrorMessage());
  std::fflush(stdout);
  grAbort(x.comm, 2);
  std::abort();
}

// Device mode: a barrier on a stream has passed once the stream has.
void WaitForDevice(const PlanContext& x, const Case& c, Reporter& reporter) {
  const std::string error = x.device->Wait();
  if (error.empty()) return;
  reporter.Fail(c, "waiting for the barrier's stream: " + error + " (aborting)");
  grAbort(x.comm, 2);
  std::abort();
}

}  // namespace

std::vector<std::vector<uint64_t>> ExchangeAll(const PlanContext& x, const std::vector<uint64_t>& mine) {
  std::vector<std::vector<uint64_t>> all(x.nranks, std::vector<uint64_t>(mine.size()));
  all[x.rank] = mine;
  std::vector<grRequest_t> requests;
  for (int r = 0; r < x.nranks; ++r) {
    if (r == x.rank) continue;
    requests.push_back(GR_REQUEST_NULL);
    grResult_t res =
        grIrecv(all[r].data(), mine.size(), grUint64, r, kExchangeTag, x.comm, GR_STREAM_HOST, &requests.back());
    if (res != grSuccess) P2pFailed(x, "grIrecv", res);
    requests.push_back(GR_REQUEST_NULL);
    res = grIsend(mine.data(), mine.size(), grUint64, r, kExchangeTag, x.comm, GR_STREAM_HOST, &requests.back());
    if (res != grSuccess) P2pFailed(x, "grIsend", res);
  }
  const grResult_t res = grWaitall(static_cast<int>(requests.size()), requests.data(), GR_STATUSES_IGNORE);
  if (res != grSuccess) P2pFailed(x, "grWaitall", res);
  return all;
}

void RunBarrierChecks(const PlanContext& x, Algo algo, Proto proto, int rounds, int late_ms, Reporter& reporter) {
  Case c;
  c.coll = Coll::kBarrier;
  c.algo = algo;
  c.proto = proto;
  const bool reject = ExpectRejected(c.coll, algo, proto);
  for (int k = 0; k < rounds; ++k) {
    if (x.rank == k % x.nranks) std::this_thread::sleep_for(std::chrono::milliseconds(late_ms));
    const uint64_t entered = MonotonicNs();
    const grResult_t r = grBarrier(x.comm, x.stream);
    const std::string message = r == grSuccess ? "" : grGetLastErrorMessage();
    if (x.device != nullptr) WaitForDevice(x, c, reporter);
    const uint64_t left = MonotonicNs();
    const bool unsupported = r == grUnsupported && MayBeUnsupported(x, c.coll);
    if (r != grSuccess && r != grInvalidUsage && !unsupported) {
      reporter.Fail(c, std::string("call failed: ") + grGetErrorString(r) + ": " + message + " (aborting)");
      grAbort(x.comm, 2);
      std::abort();
    }
    const auto all = ExchangeAll(x, {entered});
    if (unsupported) {
      reporter.Unsupported(c, message);
      continue;
    }
    if (reject != (r == grInvalidUsage)) {
      reporter.Fail(c, r == grSuccess ? "accepted, but expected grInvalidUsage"
                                      : "rejected unexpectedly: invalid usage: " + message);
      continue;
    }
    if (reject) {
      reporter.Skip(c, message);
      continue;
    }
    int last = 0;
    for (int q = 1; q < x.nranks; ++q) {
      if (all[q][0] > all[last][0]) last = q;
    }
    if (left < all[last][0]) {
      reporter.Fail(c, "returned " + std::to_string((all[last][0] - left) / 1000) + " us before rank " +
                           std::to_string(last) + " entered the barrier (round " + std::to_string(k) + ")");
    } else {
      reporter.Pass();
    }
  }
}

}  // namespace gpurun::matrix
