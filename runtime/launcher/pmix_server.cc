// The embedded OpenPMIx server (see pmix_server.h).
#include "runtime/launcher/pmix_server.h"

#include <pmix.h>
#include <pmix_server.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "runtime/base/env.h"
#include "runtime/base/log.h"
#include "runtime/launcher/pmix_job_info.h"

namespace gpurun::launcher {
namespace {

std::atomic<PmixServer*> g_server{nullptr};

Status PmixError(const std::string& what, pmix_status_t rc) { return SystemError(what + ": " + PMIx_Error_string(rc)); }

// ---- module callbacks: called on the PMIx thread, handled on the io_context ----

pmix_status_t ClientConnected(const pmix_proc_t* proc, void* /*server_object*/, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  PmixServer* server = g_server.load();
  const int rank = static_cast<int>(proc->rank);
  boost::asio::post(server->io(), [server, rank, cbfunc, cbdata] {
    server->events().OnClientConnected(rank);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
  return PMIX_SUCCESS;
}

pmix_status_t ClientFinalized(const pmix_proc_t* proc, void* /*server_object*/, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  PmixServer* server = g_server.load();
  const int rank = static_cast<int>(proc->rank);
  boost::asio::post(server->io(), [server, rank, cbfunc, cbdata] {
    server->events().OnClientFinalized(rank);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
  return PMIX_SUCCESS;
}

// PMIx_Abort: the whole job goes down whatever `procs` says.
pmix_status_t Abort(const pmix_proc_t* proc, void* /*server_object*/, int status, const char msg[],
                    pmix_proc_t /*procs*/[], size_t /*nprocs*/, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  PmixServer* server = g_server.load();
  const int rank = static_cast<int>(proc->rank);
  std::string message = msg != nullptr ? msg : "";
  boost::asio::post(server->io(), [server, rank, status, message = std::move(message), cbfunc, cbdata] {
    server->events().OnAbort(rank, status, message);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
  return PMIX_SUCCESS;
}

void ReleaseFenceData(void* cbdata) { delete static_cast<std::string*>(cbdata); }

// All local ranks have entered the fence. One node hosts every rank, so the
// data this server collected is the whole job's: hand it straight back.
pmix_status_t FenceNb(const pmix_proc_t /*procs*/[], size_t /*nprocs*/, const pmix_info_t /*info*/[], size_t /*ninfo*/,
                      char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  PmixServer* server = g_server.load();
  auto* copy = new std::string(data != nullptr ? data : "", data != nullptr ? ndata : 0);
  boost::asio::post(server->io(), [copy, cbfunc, cbdata] {
    GR_LOG(Trace, Launch) << "fence complete, " << copy->size() << " bytes";
    if (cbfunc == nullptr) {
      delete copy;
      return;
    }
    cbfunc(PMIX_SUCCESS, copy->data(), copy->size(), cbdata, ReleaseFenceData, copy);
  });
  return PMIX_SUCCESS;
}

// Every rank is local, so its data is already in the server's store.
pmix_status_t DirectModex(const pmix_proc_t* /*proc*/, const pmix_info_t /*info*/[], size_t /*ninfo*/,
                          pmix_modex_cbfunc_t /*cbfunc*/, void* /*cbdata*/) {
  return PMIX_ERR_NOT_SUPPORTED;
}

pmix_server_module_t MakeModule() {
  pmix_server_module_t module{};
  module.client_connected = ClientConnected;
  module.client_finalized = ClientFinalized;
  module.abort = Abort;
  module.fence_nb = FenceNb;
  module.direct_modex = DirectModex;
  return module;
}

// ---- waiting for PMIx operation callbacks, with a bound ----

struct PendingOps {
  std::mutex mutex;
  std::condition_variable done;
  int remaining = 0;
  pmix_status_t error = PMIX_SUCCESS;

  void Finish(pmix_status_t status) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED && error == PMIX_SUCCESS) error = status;
      --remaining;
    }
    done.notify_all();
  }
};

void OpDone(pmix_status_t status, void* cbdata) {
  auto* holder = static_cast<std::shared_ptr<PendingOps>*>(cbdata);
  (*holder)->Finish(status);
  delete holder;
}

// Starts one operation that reports through OpDone(cbdata).
template <typename StartFn>
void StartOp(const std::shared_ptr<PendingOps>& ops, StartFn start) {
  {
    std::lock_guard<std::mutex> lock(ops->mutex);
    ++ops->remaining;
  }
  auto* holder = new std::shared_ptr<PendingOps>(ops);
  const pmix_status_t rc = start(holder);
  if (rc != PMIX_SUCCESS) {  // completed (or failed) at once: no callback will come
    delete holder;
    ops->Finish(rc);
  }
}

Status WaitOps(PendingOps& ops, double timeout_s, const std::string& what) {
  std::unique_lock<std::mutex> lock(ops.mutex);
  const auto timeout = std::chrono::duration<double>(timeout_s);
  if (!ops.done.wait_for(lock, timeout, [&] { return ops.remaining == 0; })) {
    std::ostringstream text;
    text << "the PMIx server did not confirm " << what << " within " << timeout_s << " s";
    return TimeoutError(text.str());
  }
  if (ops.error != PMIX_SUCCESS) return PmixError(what, ops.error);
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<PmixServer>> PmixServer::Start(const std::string& tmpdir, const Topology& topology,
                                                        boost::asio::io_context& io, PmixEvents& events) {
  if (g_server.load() != nullptr) return InternalError("a PMIx server is already running in this process");
  if (!GetEnv("PMIX_MCA_gds").has_value()) setenv("PMIX_MCA_gds", "hash", 0);
  std::unique_ptr<PmixServer> server(new PmixServer(io, events));
  static pmix_server_module_t module = MakeModule();
  static char source[] = "hwloc";
  static pmix_topology_t topo;
  topo = {source, topology.get()};
  const bool no = false;
  const bool yes = true;
  constexpr size_t kInfos = 7;
  pmix_info_t info[kInfos] = {};
  PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  PMIx_Info_load(&info[2], PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
  PMIx_Info_load(&info[3], PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
  PMIx_Info_load(&info[4], PMIX_SERVER_SESSION_SUPPORT, &no, PMIX_BOOL);
  // Clients adopt this topology instead of discovering their own (which, with
  // hwloc's GPU plugins, takes hundreds of ms in every rank's PMIx_Init).
  PMIx_Info_load(&info[5], PMIX_SERVER_SHARE_TOPOLOGY, &yes, PMIX_BOOL);
  // Handed over by pointer, not copied: PMIx keeps using it (it does not free an external topology).
  PMIX_LOAD_KEY(info[6].key, PMIX_TOPOLOGY2);
  info[6].value.type = PMIX_TOPO;
  info[6].value.data.topo = &topo;
  g_server.store(server.get());
  const pmix_status_t rc = PMIx_server_init(&module, info, kInfos);
  info[6].value.type = PMIX_UNDEF;  // not ours to destruct
  for (pmix_info_t& i : info) PMIX_INFO_DESTRUCT(&i);
  if (rc != PMIX_SUCCESS) {
    g_server.store(nullptr);
    return PmixError("PMIx_server_init", rc);
  }
  return server;
}

// Runs the callbacks PMIx posted onto `io` that the event loop has not run
// (it stops once every rank ended): each completes a PMIx operation (a fence,
// a client's finalize) that PMIx would otherwise still hold at finalize.
void PmixServer::DrainPosted() {
  io_.restart();
  io_.poll();
}

// Orderly end: pending callbacks completed, the job's clients and nspace
// deregistered (PMIx drops its trackers of ranks that died without
// finalizing, under its own thread), then PMIx_server_finalize. Finalizing
// with a dead rank's operations still held crashed PMIx about once in 25
// jobs whose rank exited early.
PmixServer::~PmixServer() {
  DrainPosted();
  if (!nspace_.empty()) {
    auto ops = std::make_shared<PendingOps>();
    StartOp(ops, [&](void* cbdata) {
      PMIx_server_deregister_nspace(nspace_.c_str(), OpDone, cbdata);
      return PMIX_SUCCESS;
    });
    // Deregistering may post client events: keep running them while waiting.
    const auto deadline = std::chrono::steady_clock::now() + kDeregisterTimeout;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(ops->mutex);
        if (ops->done.wait_for(lock, std::chrono::milliseconds(5), [&] { return ops->remaining == 0; })) break;
      }
      DrainPosted();
      if (std::chrono::steady_clock::now() > deadline) {
        GR_LOG(Warn, Launch) << "PMIx did not confirm deregistering " << nspace_ << " within "
                             << kDeregisterTimeout.count() << " s; finalizing anyway";
        break;
      }
    }
    DrainPosted();
  }
  const pmix_status_t rc = PMIx_server_finalize();
  if (rc != PMIX_SUCCESS) {
    GR_LOG(Warn, Launch) << "PMIx_server_finalize: " << PMIx_Error_string(rc);
  }
  g_server.store(nullptr);
}

Status PmixServer::RegisterJob(const std::string& nspace, const JobLayout& layout, const std::string& job_id,
                               double timeout_s) {
  nspace_ = nspace;
  GR_ASSIGN_OR_RETURN(PmixInfoArray info, BuildJobInfo(layout, /*this_node=*/0, job_id));
  const int local = static_cast<int>(layout.node(0).ranks.size());
  auto ops = std::make_shared<PendingOps>();
  StartOp(ops, [&](void* cbdata) {
    return PMIx_server_register_nspace(nspace.c_str(), local, info.data(), info.size(), OpDone, cbdata);
  });
  Status status = WaitOps(*ops, timeout_s, "registering job " + nspace);
  if (!status.ok()) {
    new PmixInfoArray(std::move(info));  // PMIx may still read it: leak rather than free under it
    return status;
  }
  auto clients = std::make_shared<PendingOps>();
  for (int rank : layout.node(0).ranks) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace.c_str(), static_cast<pmix_rank_t>(rank));
    StartOp(clients, [&](void* cbdata) {
      return PMIx_server_register_client(&proc, geteuid(), getegid(), nullptr, OpDone, cbdata);
    });
  }
  return WaitOps(*clients, timeout_s, "registering the ranks of " + nspace);
}

StatusOr<std::vector<std::string>> PmixServer::ForkEnv(int rank) const {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), static_cast<pmix_rank_t>(rank));
  char** env = nullptr;
  const pmix_status_t rc = PMIx_server_setup_fork(&proc, &env);
  std::vector<std::string> vars;
  for (char** e = env; e != nullptr && *e != nullptr; ++e) {
    vars.emplace_back(*e);
    std::free(*e);
  }
  std::free(env);
  if (rc != PMIX_SUCCESS) return PmixError("PMIx_server_setup_fork for rank " + std::to_string(rank), rc);
  return vars;
}

}  // namespace gpurun::launcher
