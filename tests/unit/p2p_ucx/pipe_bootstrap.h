// PipeBootstrap: a two-rank Bootstrap over a connected stream socket, for
// tests and benchmarks that fork() their second rank (so UCX runs in two real
// processes). Collectives write this rank's blob and read the other's.
//
//   ForkedPair pair = ForkPair();   // in both processes afterwards
//   if (pair.rank == 1) { ...; _exit(code); }
#ifndef GPURUN_TESTS_UNIT_P2P_UCX_PIPE_BOOTSTRAP_H_
#define GPURUN_TESTS_UNIT_P2P_UCX_PIPE_BOOTSTRAP_H_

#include <sys/types.h>

#include <memory>

#include "runtime/bootstrap/bootstrap.h"

namespace gpurun::p2p::testing {

class PipeBootstrap final : public Bootstrap {
 public:
  // Rank `rank` (0 or 1) of two; owns `fd`.
  PipeBootstrap(int rank, int fd);
  ~PipeBootstrap() override;

  const RankIdentity& identity() const override { return identity_; }
  const char* name() const override { return "pipe"; }
  StatusOr<std::vector<std::vector<std::byte>>> AllGather(std::span<const std::byte> mine) override;
  Status Barrier() override;
  Status Abort(int code, const std::string& message) override;
  Status Finalize() override;
  // Whether the other rank has written something not read yet (it entered a
  // collective): lets a rank keep progressing until its peer is ready.
  bool PeerWaiting() const;

 private:
  RankIdentity identity_;
  int fd_;
};

struct ForkedPair {
  int rank = -1;     // 0 in the parent, 1 in the child; -1 if fork failed
  pid_t child = -1;  // in the parent
  std::unique_ptr<PipeBootstrap> bootstrap;
};

// Forks this process; both sides get a bootstrap connected to the other.
ForkedPair ForkPair();

}  // namespace gpurun::p2p::testing

#endif  // GPURUN_TESTS_UNIT_P2P_UCX_PIPE_BOOTSTRAP_H_
