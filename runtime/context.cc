// Context creation and teardown (see context.h).
#include "runtime/context.h"

#include <chrono>
#include <numeric>

#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun {

StatusOr<std::unique_ptr<Context>> Context::Create() {
  GR_RETURN_IF_ERROR(ParamRegistry::Global().Load(ProcessEnv()));
  Logger::ConfigureFromParams();
  for (const std::string& name : params::UnknownGpurunVariables()) {
    GR_LOG(Warn, Env) << name << " is set but is not a gpurun parameter (gpurun --print-params lists them)";
  }
  GR_ASSIGN_OR_RETURN(std::unique_ptr<Bootstrap> bootstrap, CreateBootstrap());
  return CreateWith(std::move(bootstrap));
}

StatusOr<std::unique_ptr<Context>> Context::CreateWith(std::unique_ptr<Bootstrap> bootstrap) {
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
  const auto us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
  GR_LOG(Info, Init) << "rank " << id.rank << " of " << id.size << " (local " << id.local_rank << " of "
                     << id.local_size << ", node " << id.node_id << " of " << id.num_nodes << ", job " << id.job_id
                     << ") through the " << ctx->bootstrap_->name() << " bootstrap; peer exchange " << us << " us";
  return ctx;
}

Status Context::Finalize() {
  GR_RETURN_IF_ERROR(bootstrap_->Finalize().WithContext("grFinalize"));
  GR_LOG(Info, Init) << "finalized";
  return OkStatus();
}

}  // namespace gpurun
