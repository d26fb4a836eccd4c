// PmixBootstrap (see pmix_bootstrap.h).
#include "runtime/bootstrap/pmix_bootstrap.h"

#include <pmix.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <sstream>

#include "runtime/base/env.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"
#include "runtime/bootstrap/pmix_status.h"
#include "runtime/bootstrap/pmix_value.h"

namespace gpurun {
namespace {

pmix_proc_t MakeProc(const std::string& nspace, pmix_rank_t rank) {
  pmix_proc_t proc;
  PMIX_PROC_LOAD(&proc, nspace.c_str(), rank);
  return proc;
}

// GPURUN_TIMEOUT as whole seconds for PMIX_TIMEOUT (rounded up); 0 = none.
int TimeoutSeconds() {
  const double seconds = params::kTimeout.Get();
  if (seconds <= 0) return 0;
  return static_cast<int>(std::min(std::ceil(seconds), static_cast<double>(INT_MAX)));
}

// Adds PMIX_TIMEOUT when GPURUN_TIMEOUT sets one.
void AddTimeout(PmixInfos& infos) {
  const int seconds = TimeoutSeconds();
  if (seconds > 0) infos.AddInt(PMIX_TIMEOUT, seconds);
}

// What a fence failure usually means, for the error message.
const char* FenceFailureHint(pmix_status_t rc) {
  switch (rc) {
    case PMIX_ERR_PARTIAL_SUCCESS:  // Open MPI's server, when a participant died
    case PMIX_ERR_PROC_TERM_WO_SYNC: return " (a rank of the job exited or failed before reaching the fence)";
    case PMIX_ERR_UNREACH:
    case PMIX_ERR_LOST_CONNECTION:
    case PMIX_ERR_COMM_FAILURE: return " (lost the PMIx server: has the launcher exited?)";
    default: return "";
  }
}

// An identity number read with PMIx_Get, as an int.
StatusOr<int> ReadNumber(const pmix_proc_t& proc, const char* key, const char* who) {
  const std::string what = std::string("reading ") + key + " for " + who;
  PmixInfos infos;
  GR_ASSIGN_OR_RETURN(PmixValuePtr value, PmixGet(proc, key, infos, what));
  StatusOr<uint64_t> number = PmixValueToUint(*value);
  if (!number.ok()) return RemoteError(what + ": " + number.status().message());
  if (*number > static_cast<uint64_t>(INT_MAX))
    return RemoteError(what + ": value " + std::to_string(*number) + " too large");
  return static_cast<int>(*number);
}

// Checks that a number read from the server lies in [0, limit).
Status CheckBelow(const char* name, int value, const char* limit_name, int limit) {
  if (value >= 0 && value < limit) return OkStatus();
  std::ostringstream out;
  out << "inconsistent identity from the PMIx server: " << name << " " << value << " not below " << limit_name << " "
      << limit;
  return RemoteError(out.str());
}

}  // namespace

StatusOr<std::unique_ptr<PmixBootstrap>> PmixBootstrap::Connect(bool* no_server) {
  if (no_server != nullptr) *no_server = false;
  pmix_proc_t me;
  PMIX_PROC_CONSTRUCT(&me);
  const pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    // Without PMIX_NAMESPACE, PMIx 4 stays initialised as a PMIx singleton after
    // PMIX_ERR_UNREACH: undo that. With it (a stale or unreachable server),
    // PMIx 4.2 also stays initialised, but PMIx_Finalize then crashes: leave it.
    if (PMIx_Initialized() && !GetEnv("PMIX_NAMESPACE").has_value()) PMIx_Finalize(nullptr, 0);
    if (no_server != nullptr) *no_server = rc == PMIX_ERR_UNREACH;
    Status status = PmixToStatus(rc, rc == PMIX_ERR_UNREACH ? "PMIx_Init: no PMIx server reachable" : "PMIx_Init");
    GR_LOG(Info, Bootstrap) << status.ToString();
    return status;
  }
  std::unique_ptr<PmixBootstrap> bootstrap(new PmixBootstrap(me.nspace, me.rank));
  // On failure the destructor finalises PMIx again.
  GR_RETURN_IF_ERROR(bootstrap->ReadIdentity());
  const RankIdentity& id = bootstrap->identity_;
  GR_LOG(Info, Bootstrap) << "pmix bootstrap: rank " << id.rank << " of " << id.size << ", local rank " << id.local_rank
                          << " of " << id.local_size << " on node " << id.node_id << " of " << id.num_nodes << " ("
                          << id.host << "), namespace " << id.job_id;
  return bootstrap;
}

Status PmixBootstrap::ReadIdentity() {
  const pmix_proc_t job = MakeProc(nspace_, PMIX_RANK_WILDCARD);
  const pmix_proc_t me = MakeProc(nspace_, pmix_rank_);
  RankIdentity id;
  if (pmix_rank_ > static_cast<uint32_t>(INT_MAX))
    return RemoteError("PMIx rank " + std::to_string(pmix_rank_) + " too large");
  id.rank = static_cast<int>(pmix_rank_);
  id.job_id = nspace_;
  GR_ASSIGN_OR_RETURN(id.size, ReadNumber(job, PMIX_JOB_SIZE, "the job"));
  GR_ASSIGN_OR_RETURN(id.local_size, ReadNumber(job, PMIX_LOCAL_SIZE, "the job"));
  GR_ASSIGN_OR_RETURN(id.num_nodes, ReadNumber(job, PMIX_NUM_NODES, "the job"));
  GR_ASSIGN_OR_RETURN(id.local_rank, ReadNumber(me, PMIX_LOCAL_RANK, "this process"));
  GR_ASSIGN_OR_RETURN(id.node_id, ReadNumber(me, PMIX_NODEID, "this process"));
  PmixInfos none;
  GR_ASSIGN_OR_RETURN(PmixValuePtr host, PmixGet(me, PMIX_HOSTNAME, none, "reading pmix.hname for this process"));
  StatusOr<std::string> host_name = PmixValueToString(*host);
  if (!host_name.ok()) return RemoteError("reading pmix.hname for this process: " + host_name.status().message());
  id.host = std::move(*host_name);

  GR_RETURN_IF_ERROR(CheckBelow("rank", id.rank, "job size", id.size));
  GR_RETURN_IF_ERROR(CheckBelow("local rank", id.local_rank, "local size", id.local_size));
  GR_RETURN_IF_ERROR(CheckBelow("node id", id.node_id, "number of nodes", id.num_nodes));
  GR_RETURN_IF_ERROR(CheckBelow("local size", id.local_size - 1, "job size", id.size));
  identity_ = std::move(id);
  return OkStatus();
}

PmixBootstrap::~PmixBootstrap() {
  if (!finalized_) PMIx_Finalize(nullptr, 0);
}

Status PmixBootstrap::CheckUsable(const char* op) const {
  if (finalized_) return InvalidUsage(std::string("pmix bootstrap: ") + op + " after Finalize");
  return OkStatus();
}

Status PmixBootstrap::Fence(bool collect_data, const std::string& what) {
  const pmix_proc_t all = MakeProc(nspace_, PMIX_RANK_WILDCARD);
  PmixInfos infos;
  if (collect_data) infos.AddBool(PMIX_COLLECT_DATA, true);
  AddTimeout(infos);
  const auto start = std::chrono::steady_clock::now();
  const pmix_status_t rc = PMIx_Fence(&all, 1, infos.data(), infos.size());
  Status status;
  if (rc == PMIX_ERR_TIMEOUT) {
    status = TimeoutError(what + ": PMIx fence over job " + nspace_ + " timed out after " +
                          std::to_string(TimeoutSeconds()) + " s (GPURUN_TIMEOUT): some rank did not arrive");
  } else {
    status = PmixToStatus(rc, what + ": PMIx_Fence over job " + nspace_ + FenceFailureHint(rc));
  }
  if (!status.ok()) {
    GR_LOG(Warn, Bootstrap) << status.ToString();
    return status;
  }
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
  GR_LOG(Trace, Bootstrap) << what << ": fence done in " << us.count() << " us";
  return OkStatus();
}

StatusOr<std::vector<std::vector<std::byte>>> PmixBootstrap::AllGather(std::span<const std::byte> mine) {
  GR_RETURN_IF_ERROR(CheckUsable("AllGather"));
  const uint64_t seq = ++allgathers_;
  const std::string key = "gpurun.ag." + std::to_string(seq);
  const std::string what = "AllGather #" + std::to_string(seq);

  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = mine.empty() ? nullptr : const_cast<char*>(reinterpret_cast<const char*>(mine.data()));
  value.data.bo.size = mine.size();
  // PMIx_Put copies the value; `value` does not own the bytes and is not destructed.
  GR_RETURN_IF_ERROR(PmixToStatus(PMIx_Put(PMIX_GLOBAL, key.c_str(), &value), what + ": PMIx_Put " + key));
  GR_RETURN_IF_ERROR(PmixToStatus(PMIx_Commit(), what + ": PMIx_Commit"));
  GR_RETURN_IF_ERROR(Fence(/*collect_data=*/true, what));

  std::vector<std::vector<std::byte>> all(identity_.size);
  PmixInfos infos;
  AddTimeout(infos);
  for (int r = 0; r < identity_.size; ++r) {
    if (r == identity_.rank) {
      all[r].assign(mine.begin(), mine.end());
      continue;
    }
    const std::string from = what + ": blob of rank " + std::to_string(r);
    GR_ASSIGN_OR_RETURN(PmixValuePtr blob, PmixGet(MakeProc(nspace_, r), key.c_str(), infos, from));
    StatusOr<std::vector<std::byte>> bytes = PmixValueToBytes(*blob);
    if (!bytes.ok()) return RemoteError(from + ": " + bytes.status().message());
    all[r] = std::move(*bytes);
  }
  return all;
}

Status PmixBootstrap::Barrier() {
  GR_RETURN_IF_ERROR(CheckUsable("Barrier"));
  return Fence(/*collect_data=*/false, "Barrier #" + std::to_string(++barriers_));
}

Status PmixBootstrap::Abort(int code, const std::string& message) {
  if (finalized_) return InvalidUsage("pmix bootstrap: Abort after Finalize");
  GR_LOG(Info, Bootstrap) << "pmix bootstrap: aborting job " << nspace_ << " with code " << code << ": " << message;
  return PmixToStatus(PMIx_Abort(code, message.c_str(), nullptr, 0), "PMIx_Abort");
}

Status PmixBootstrap::Finalize() {
  GR_RETURN_IF_ERROR(CheckUsable("Finalize"));
  Status barrier = Fence(/*collect_data=*/false, "Finalize");
  finalized_ = true;
  Status finalize = PmixToStatus(PMIx_Finalize(nullptr, 0), "PMIx_Finalize");
  if (!barrier.ok()) return barrier;
  return finalize;
}

}  // namespace gpurun
