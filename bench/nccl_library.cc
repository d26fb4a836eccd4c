// NCCL's communicator and calls for the sweep (see nccl_library.h).
#include "bench/nccl_library.h"

#include "bench/cuda_target.h"
#include "bench/nccl_call.h"

namespace {

gpurun::Status NcclStatus(const NcclApi& api, ncclResult_t rc, const char* what) {
  if (rc == ncclSuccess) return gpurun::OkStatus();
  return gpurun::SystemError(std::string(what) + ": " + api.GetErrorString(rc));
}

}  // namespace

gpurun::StatusOr<std::unique_ptr<NcclLibrary>> NcclLibrary::Create(std::shared_ptr<const NcclApi> api,
                                                                   BufferView buffers, grStream_t stream, bool blocking,
                                                                   int rank, int nranks) {
  ncclUniqueId id{};
  if (rank == 0) GR_RETURN_IF_ERROR(NcclStatus(*api, api->GetUniqueId(&id), "ncclGetUniqueId"));
  if (const grResult_t rc = grBcast(&id, sizeof(id), grByte, 0, grCommWorld(), GR_STREAM_HOST); rc != grSuccess) {
    return gpurun::Status(rc, std::string("grBcast of the NCCL unique id: ") + grGetLastErrorMessage());
  }
  std::unique_ptr<NcclLibrary> lib(new NcclLibrary(std::move(api), buffers, stream, blocking));
  GR_RETURN_IF_ERROR(
      NcclStatus(*lib->api_, lib->api_->CommInitRank(&lib->comm_, nranks, id, rank), "ncclCommInitRank"));
  return lib;
}

NcclLibrary::~NcclLibrary() {
  if (comm_ != nullptr) api_->CommDestroy(comm_);
}

const char* NcclLibrary::ApiName(const CollCase& c) const { return NcclApiName(c); }

bool NcclLibrary::Has(const CollCase& c) const { return NcclHas(c); }

CallCode NcclLibrary::Call(const CollCase& c) {
  if (Failed(CallNccl(*api_, comm_, stream_, c, buffers_))) return CallCode::kFailed;
  return in_group_ ? CallCode::kOk : SyncIfBlocking();
}

CallCode NcclLibrary::GroupStart() {
  if (Failed(api_->GroupStart())) return CallCode::kFailed;
  in_group_ = true;
  return CallCode::kOk;
}

CallCode NcclLibrary::GroupEnd() {
  in_group_ = false;
  if (Failed(api_->GroupEnd())) return CallCode::kFailed;
  return SyncIfBlocking();
}

bool NcclLibrary::Failed(ncclResult_t rc) {
  if (rc == ncclSuccess) return false;
  last_error_ = api_->GetErrorString(rc);
  return true;
}

CallCode NcclLibrary::SyncIfBlocking() {
  if (!blocking_) return CallCode::kOk;
  const gpurun::Status synced = CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize after the call");
  if (synced.ok()) return CallCode::kOk;
  last_error_ = synced.message();
  return CallCode::kFailed;
}
