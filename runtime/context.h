// Context: the one per-process runtime object, created by grInit and destroyed
// by grFinalize. It owns the bootstrap, the peer table and the world
// communicator, and is a facade over those parts (later: transports, topology,
// collective engine), not a god struct.
#ifndef GPURUN_RUNTIME_CONTEXT_H_
#define GPURUN_RUNTIME_CONTEXT_H_

#include <memory>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/comm.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun {

class Context {
 public:
  // Reads the parameters, configures the logger, creates the bootstrap and
  // exchanges peer information. Collective over the job.
  static StatusOr<std::unique_ptr<Context>> Create();
  // Same, over a given bootstrap (tests use an in-process one).
  static StatusOr<std::unique_ptr<Context>> CreateWith(std::unique_ptr<Bootstrap> bootstrap);

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Collective: leaves the bootstrap. The context is unusable afterwards.
  Status Finalize();

  Bootstrap& bootstrap() { return *bootstrap_; }
  const std::vector<PeerInfo>& peers() const { return peers_; }
  grComm* world() { return &world_; }

 private:
  explicit Context(std::unique_ptr<Bootstrap> bootstrap) : bootstrap_(std::move(bootstrap)) {}

  std::unique_ptr<Bootstrap> bootstrap_;
  std::vector<PeerInfo> peers_;
  grComm world_;
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_CONTEXT_H_
