// The embedded OpenPMIx server: it lets the ranks' PMIx_Init connect, answers
// their fences (one node: the collected data goes straight back), and turns
// connect, finalize and abort into events on the launcher's event loop.
//
// Threading: PMIx calls the module from its own progress thread; every call
// is posted onto `io` and handled there, where the PMIx callback is invoked.
// PmixEvents are thus called on the thread that runs `io`. There is at most
// one server per process (a PMIx rule).
//
//   auto server = PmixServer::Start(tmpdir, io, events);
//   server->RegisterJob(nspace, layout, job_id, timeout_s);
//   auto vars = server->ForkEnv(rank);   // before fork; then exec the rank
#ifndef GPURUN_RUNTIME_LAUNCHER_PMIX_SERVER_H_
#define GPURUN_RUNTIME_LAUNCHER_PMIX_SERVER_H_

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/launcher/job_layout.h"
#include "runtime/launcher/topology.h"

namespace gpurun::launcher {

// What the ranks tell the launcher, on the io_context thread.
class PmixEvents {
 public:
  virtual ~PmixEvents() = default;
  virtual void OnClientConnected(int rank) = 0;
  virtual void OnClientFinalized(int rank) = 0;
  // The rank called PMIx_Abort(code, message); its call returns once this has run.
  virtual void OnAbort(int rank, int code, const std::string& message) = 0;
};

class PmixServer {
 public:
  // PMIx_server_init with rendezvous files in `tmpdir` (PMIX_SERVER_TMPDIR and
  // PMIX_SYSTEM_TMPDIR), without tool or system support, using `topology`
  // (PMIX_TOPOLOGY2) instead of discovering its own, and sharing it with the
  // ranks (PMIX_SERVER_SHARE_TOPOLOGY: a PMIx client would otherwise discover
  // it in PMIx_Init, with I/O and GPUs, slowly). Unless PMIX_MCA_gds is
  // set, it is set to "hash" (also for the ranks, which inherit it): PMIx's
  // shared-memory store costs tens of ms per job to set up and gains nothing
  // at this scale. `topology`, `io` and `events` must outlive the server.
  static StatusOr<std::unique_ptr<PmixServer>> Start(const std::string& tmpdir, const Topology& topology,
                                                     boost::asio::io_context& io, PmixEvents& events);
  // Runs PMIx's pending callbacks, deregisters the job (waiting at most
  // kDeregisterTimeout), then PMIx_server_finalize. Call with `io` stopped.
  ~PmixServer();
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  // Registers the nspace with the full job info, then every rank of this
  // node as a client. Blocks until PMIx confirms, at most `timeout_s`
  // (TimeoutError otherwise). Call once, before ForkEnv.
  Status RegisterJob(const std::string& nspace, const JobLayout& layout, const std::string& job_id, double timeout_s);

  // The PMIX_* variables ("NAME=value") the rank needs to connect back
  // (PMIx_server_setup_fork).
  StatusOr<std::vector<std::string>> ForkEnv(int rank) const;

  boost::asio::io_context& io() { return io_; }
  PmixEvents& events() { return events_; }
  const std::string& nspace() const { return nspace_; }

 private:
  static constexpr std::chrono::seconds kDeregisterTimeout{5};

  PmixServer(boost::asio::io_context& io, PmixEvents& events) : io_(io), events_(events) {}
  void DrainPosted();

  boost::asio::io_context& io_;
  PmixEvents& events_;
  std::string nspace_;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_PMIX_SERVER_H_
