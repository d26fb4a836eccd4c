// Context: the one per-process runtime object, created by grInit and destroyed
// by grFinalize. It owns the bootstrap, the peer table, the point-to-point
// engine (created after the peer exchange) and the communicators (world and
// those made by split/dup), and is a facade over those parts, not a god struct.
//
// Thread safety: the accessors and the communicator registry may be used from
// any thread. Collective communicator calls (split, dup) on one process must
// not run concurrently with each other, as MPI requires for one communicator.
#ifndef GPURUN_RUNTIME_CONTEXT_H_
#define GPURUN_RUNTIME_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "coll/host/host_coll.h"
#include "p2p/engine.h"
#include "runtime/base/status.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/bootstrap/peer_info.h"
#include "runtime/comm.h"

namespace gpurun {

class Context {
 public:
  // Makes the engine once the peer table is known; collective over the job.
  using EngineFactory = std::function<StatusOr<std::unique_ptr<p2p::Engine>>(Bootstrap&, const std::vector<PeerInfo>&)>;

  // Makes a communicator's collective engine on host buffers (comm_coll.h).
  using HostCollFactory = std::function<StatusOr<std::unique_ptr<coll::HostColl>>(coll::CommLink&)>;

  // Reads the parameters, configures the logger, creates the bootstrap,
  // exchanges peer information and creates the engine. Collective over the job.
  static StatusOr<std::unique_ptr<Context>> Create();
  // Same, over a given bootstrap (tests use an in-process one) and engine
  // factory (null: p2p::Engine::Create with the real wires).
  static StatusOr<std::unique_ptr<Context>> CreateWith(std::unique_ptr<Bootstrap> bootstrap,
                                                       const EngineFactory& make_engine = nullptr);
  ~Context();

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Collective: cancels pending point-to-point requests (a warning says how
  // many), waits for every rank, shuts the engine down and leaves the
  // bootstrap. The context is unusable afterwards.
  Status Finalize();

  Bootstrap& bootstrap() { return *bootstrap_; }
  const std::vector<PeerInfo>& peers() const { return peers_; }
  grComm* world() { return &world_; }
  p2p::Engine& engine() { return *engine_; }

  // Whether `comm` is the world or a live communicator made by split/dup.
  // Compares the pointer only: safe on a dangling handle.
  bool IsLive(const grComm* comm) const { return comm == &world_ || IsLiveSplit(comm); }
  // Takes ownership of a new communicator and declares its two contexts to
  // the engine.
  StatusOr<grComm*> AdoptComm(std::unique_ptr<grComm> comm);
  // Forgets its contexts and destroys it: InvalidUsage for the world or while
  // requests on it are outstanding.
  Status FreeComm(grComm* comm);

  // The factory of communicators' HostColl: coll::HostColl::Create when the
  // host executor is built in (DefaultHostCollFactory); tests install their
  // own before the first collective.
  const HostCollFactory& host_coll_factory() const { return make_host_coll_; }
  void set_host_coll_factory(HostCollFactory make) { make_host_coll_ = std::move(make); }

  // The lowest context id no communicator of this process has used; ids are
  // handed out increasingly and never reused (comm_split.h).
  uint32_t next_context_id() const;
  void set_next_context_id(uint32_t id);

 private:
  explicit Context(std::unique_ptr<Bootstrap> bootstrap);
  Status CreateEngine(const EngineFactory& make_engine);
  bool IsLiveSplit(const grComm* comm) const;  // IsLive for any but the world
  void ReleaseCollectives();                   // every communicator's collective state

  std::unique_ptr<Bootstrap> bootstrap_;
  std::vector<PeerInfo> peers_;
  std::unique_ptr<p2p::Engine> engine_;
  HostCollFactory make_host_coll_;
  grComm world_;
  mutable std::mutex comms_mu_;
  std::unordered_map<const grComm*, std::unique_ptr<grComm>> comms_;  // guarded by comms_mu_
  uint32_t next_context_id_ = 2;                                      // guarded by comms_mu_
};

// coll::HostColl::Create where coll/host is built in; otherwise a factory
// that fails with grUnsupported naming what is missing (host_coll_factory.cc).
Context::HostCollFactory DefaultHostCollFactory();

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_CONTEXT_H_
