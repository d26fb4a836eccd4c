// Context creation and teardown, and the communicator registry (see context.h).
#include "runtime/context.h"

#include <chrono>
#include <numeric>

#include "coll/tuner/override.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"
#if GPURUN_HAVE_GPU_COLL
#include "p2p/cuda_ipc/ipc_transfer.h"
#include "p2p/cuda_ipc/pointer_kind.h"
#endif

namespace gpurun {

StatusOr<std::unique_ptr<Context>> Context::Create() {
  GR_RETURN_IF_ERROR(ParamRegistry::Global().Load(ProcessEnv()));
  GR_RETURN_IF_ERROR(coll::LoadCollOverride().status());  // GPURUN_ALGO / GPURUN_PROTO grammar
  Logger::ConfigureFromParams();
  for (const std::string& name : params::UnknownGpurunVariables()) {
    GR_LOG(Warn, Env) << name << " is set but is not a gpurun parameter (gpurun --print-params lists them)";
  }
  GR_ASSIGN_OR_RETURN(std::unique_ptr<Bootstrap> bootstrap, CreateBootstrap());
  return CreateWith(std::move(bootstrap));
}

StatusOr<std::unique_ptr<Context>> Context::CreateWith(std::unique_ptr<Bootstrap> bootstrap,
                                                       const EngineFactory& make_engine) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Context> ctx(new Context(std::move(bootstrap)));
  const RankIdentity& id = ctx->bootstrap_->identity();
  Logger::SetRank(id.rank);
  GR_ASSIGN_OR_RETURN(ctx->peers_, ExchangePeerInfo(*ctx->bootstrap_));
  ctx->world_.context = ctx.get();
  ctx->world_.rank = id.rank;
  ctx->world_.size = id.size;
  ctx->world_.world_ranks.resize(id.size);
  std::iota(ctx->world_.world_ranks.begin(), ctx->world_.world_ranks.end(), 0);
  ctx->world_.context_id = 0;
  ctx->world_.internal_context_id = 1;
  ctx->world_.is_world = true;
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
  GR_LOG(Info, Init) << "rank " << id.rank << " of " << id.size << " (local " << id.local_rank << " of "
                     << id.local_size << ", node " << id.node_id << " of " << id.num_nodes << ", job " << id.job_id
                     << ") through the " << ctx->bootstrap_->name() << " bootstrap; peer exchange " << us << " us";
  GR_RETURN_IF_ERROR(ctx->CreateEngine(make_engine));
  return ctx;
}

Status Context::CreateEngine(const EngineFactory& make_engine) {
  StatusOr<std::unique_ptr<p2p::Engine>> engine =
      make_engine ? make_engine(*bootstrap_, peers_) : p2p::Engine::Create(*bootstrap_, peers_);
  if (!engine.ok()) return engine.status().WithContext("point-to-point setup");
  engine_ = std::move(engine).value();
#if GPURUN_HAVE_GPU_COLL
  if (cuda::DriverPresent()) engine_->SetDeviceTransfer(cuda::MakeIpcTransfer());
#endif
  GR_RETURN_IF_ERROR(engine_->AddContext(world_.context_id, world_.world_ranks));
  return engine_->AddContext(world_.internal_context_id, world_.world_ranks);
}

Context::Context(std::unique_ptr<Bootstrap> bootstrap)
    : bootstrap_(std::move(bootstrap)), make_host_coll_(DefaultHostCollFactory()) {}

Context::~Context() {
  ReleaseCollectives();
  std::lock_guard<std::mutex> lock(comms_mu_);
  comms_.clear();
}

void Context::ReleaseCollectives() {
  world_.coll.reset();
  std::lock_guard<std::mutex> lock(comms_mu_);
  for (auto& [raw, comm] : comms_) comm->coll.reset();
}

Status Context::Finalize() {
  Status status;
  if (engine_) {
    const int cancelled = engine_->CancelAll(InvalidUsage("cancelled by grFinalize"));
    if (cancelled > 0) {
      GR_LOG(Warn, P2p) << "grFinalize: cancelled " << cancelled
                        << " pending point-to-point request(s) that no grWait/grTest completed";
    }
    // No rank tears its wires down while a peer may still be using them.
    status = bootstrap_->Barrier().WithContext("grFinalize");
    ReleaseCollectives();  // they use the engine
    engine_.reset();
  }
  {
    std::lock_guard<std::mutex> lock(comms_mu_);
    comms_.clear();
  }
  const Status left = bootstrap_->Finalize().WithContext("grFinalize");
  if (status.ok()) status = left;
  GR_RETURN_IF_ERROR(status);
  GR_LOG(Info, Init) << "finalized";
  return OkStatus();
}

bool Context::IsLiveSplit(const grComm* comm) const {
  std::lock_guard<std::mutex> lock(comms_mu_);
  return comms_.contains(comm);
}

StatusOr<grComm*> Context::AdoptComm(std::unique_ptr<grComm> comm) {
  GR_RETURN_IF_ERROR(engine_->AddContext(comm->context_id, comm->world_ranks));
  if (Status added = engine_->AddContext(comm->internal_context_id, comm->world_ranks); !added.ok()) {
    (void)engine_->RemoveContext(comm->context_id);
    return added;
  }
  GR_LOG(Info, P2p) << "new communicator: rank " << comm->rank << " of " << comm->size << ", contexts "
                    << comm->context_id << " and " << comm->internal_context_id;
  grComm* raw = comm.get();
  std::lock_guard<std::mutex> lock(comms_mu_);
  comms_.emplace(raw, std::move(comm));
  return raw;
}

Status Context::FreeComm(grComm* comm) {
  if (comm == &world_) return InvalidUsage("the world communicator cannot be freed");
  std::unique_ptr<grComm> owned;
  {
    std::lock_guard<std::mutex> lock(comms_mu_);
    auto it = comms_.find(comm);
    if (it == comms_.end()) return InvalidArgument("not a live communicator (freed already, or never created)");
    // Refused (nothing changes) while the program's requests on it are pending.
    GR_RETURN_IF_ERROR(engine_->RemoveContext(comm->context_id));
    owned = std::move(it->second);
    comms_.erase(it);
  }
  // The collective state goes before the internal context: its teardown
  // talks over it (the GPU path's barrier before its FIFOs are freed, which
  // otherwise failed with "context N is not in use" and was skipped).
  owned->coll.reset();
  return engine_->RemoveContext(owned->internal_context_id);
}

uint32_t Context::next_context_id() const {
  std::lock_guard<std::mutex> lock(comms_mu_);
  return next_context_id_;
}

void Context::set_next_context_id(uint32_t id) {
  std::lock_guard<std::mutex> lock(comms_mu_);
  next_context_id_ = id;
}

}  // namespace gpurun
