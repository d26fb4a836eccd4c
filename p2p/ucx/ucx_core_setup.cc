// UcxCore construction and wire-up: context, worker, endpoints.
#include <chrono>
#include <cstring>

#include "p2p/ucx/ucx_config.h"
#include "p2p/ucx/ucx_core.h"
#include "p2p/ucx/ucx_status.h"

namespace gpurun::p2p {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void OnEndpointErrorThunk(void* arg, ucp_ep_h /*ep*/, ucs_status_t status) {
  auto* peer = static_cast<UcxPeer*>(arg);
  peer->core->OnEndpointError(peer, status);
}

}  // namespace

UcxCore::UcxCore(int world_rank, std::vector<std::string> hosts)
    : world_rank_(world_rank), hosts_(std::move(hosts)), peers_(hosts_.size()) {
  for (size_t r = 0; r < peers_.size(); ++r) {
    peers_[r].core = this;
    peers_[r].world = static_cast<int>(r);
  }
}

UcxCore::~UcxCore() { Close(InternalError("ucx wire destroyed")); }

Status UcxCore::Open(UcxSetupTimes* times) {
  auto start = std::chrono::steady_clock::now();
  ucp_config_t* config = nullptr;
  GR_RETURN_IF_ERROR(UcsToStatus(ucp_config_read(nullptr, nullptr, &config), "ucx: ucp_config_read"));
  if (Status s = ApplyConfigDefaults(config, kUcxWireEagerBytes, "ucx"); !s.ok()) {
    ucp_config_release(config);
    return s;
  }
  ucp_params_t params;
  std::memset(&params, 0, sizeof(params));
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                      UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_TAG;
  params.mt_workers_shared = 0;
  params.estimated_num_eps = hosts_.size();
  params.name = "gpurun";
  const ucs_status_t init = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (init != UCS_OK) context_ = nullptr;
  GR_RETURN_IF_ERROR(UcsToStatus(init, "ucx: ucp_init"));
  times->init_s = SecondsSince(start);

  start = std::chrono::steady_clock::now();
  ucp_worker_params_t worker_params;
  std::memset(&worker_params, 0, sizeof(worker_params));
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
  ucp_worker_h worker = nullptr;
  GR_RETURN_IF_ERROR(UcsToStatus(ucp_worker_create(context_, &worker_params, &worker), "ucx: ucp_worker_create"));
  worker_ = worker;
  GR_RETURN_IF_ERROR(
      UcsToStatus(ucp_worker_get_address(worker_, &address_, &address_length_), "ucx: ucp_worker_get_address"));
  times->worker_s = SecondsSince(start);
  return OkStatus();
}

std::vector<std::byte> UcxCore::LocalAddress() const {
  const auto* bytes = reinterpret_cast<const std::byte*>(address_);
  return std::vector<std::byte>(bytes, bytes + address_length_);
}

Status UcxCore::Connect(const std::vector<std::vector<std::byte>>& addresses, const std::vector<int>& reach) {
  for (int r : reach) {
    if (r < 0 || r >= static_cast<int>(peers_.size())) {
      return InvalidArgument("ucx: rank " + std::to_string(r) + " in reach is outside the job of " +
                             std::to_string(peers_.size()) + " ranks");
    }
    if (addresses[r].empty()) {
      return RemoteError("ucx: " + PeerName(r) + " published no UCX worker address (its UCX setup failed)");
    }
    UcxPeer& peer = peers_[r];
    if (peer.reached) continue;
    ucp_ep_params_t params;
    std::memset(&params, 0, sizeof(params));
    params.field_mask =
        UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.address = reinterpret_cast<const ucp_address_t*>(addresses[r].data());
    params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    params.err_handler.cb = &OnEndpointErrorThunk;
    params.err_handler.arg = &peer;
    GR_RETURN_IF_ERROR(UcsToStatus(ucp_ep_create(worker_, &params, &peer.ep), "ucx: endpoint to " + PeerName(r)));
    peer.reached = true;
  }
  return OkStatus();
}

bool UcxCore::Reaches(int world_peer) const {
  return world_peer >= 0 && world_peer < static_cast<int>(peers_.size()) && peers_[world_peer].reached;
}

std::string UcxCore::PeerName(int world) const {
  std::string name = "rank " + std::to_string(world);
  if (world >= 0 && world < static_cast<int>(hosts_.size()) && !hosts_[world].empty()) {
    name += " (" + hosts_[world] + ")";
  }
  return name;
}

}  // namespace gpurun::p2p
