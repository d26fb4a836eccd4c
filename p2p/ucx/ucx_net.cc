// UcxNet (ucx_net.h): a tag-matching worker for the NET proxy. Requests are
// made without callbacks and polled (ucp_request_check_status /
// ucp_tag_recv_request_test), so nothing runs inside UCX but the endpoint
// error handler, which only records the failure.
#include "p2p/ucx/ucx_net.h"

#include <ucp/api/ucp.h>

#include <chrono>
#include <cstring>
#include <map>

#include "p2p/ucx/ucx_config.h"
#include "p2p/ucx/ucx_status.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

struct UcxNetPeer {
  ucp_ep_h ep = nullptr;
  std::string name;
  ucs_status_t failure = UCS_OK;
};

struct UcxNet::Impl {
  ucp_context_h context = nullptr;
  ucp_worker_h worker = nullptr;
  ucp_address_t* address = nullptr;
  size_t address_length = 0;
  std::map<int, std::unique_ptr<UcxNetPeer>> peers;  // stable addresses: the error handler's argument

  std::string NameOf(int peer) const {
    auto it = peers.find(peer);
    return it != peers.end() ? it->second->name : "rank " + std::to_string(peer);
  }
};

namespace {

void OnEndpointError(void* arg, ucp_ep_h /*ep*/, ucs_status_t status) {
  auto* peer = static_cast<UcxNetPeer*>(arg);
  if (peer->failure == UCS_OK) peer->failure = status;
}

// Waits (progressing) until `request` is no longer in flight, at most `wait`.
ucs_status_t WaitRequest(ucp_worker_h worker, void* request, std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  ucs_status_t status = ucp_request_check_status(request);
  while (status == UCS_INPROGRESS && std::chrono::steady_clock::now() < deadline) {
    ucp_worker_progress(worker);
    status = ucp_request_check_status(request);
  }
  return status;
}

}  // namespace

UcxNet::UcxNet(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

UcxNet::~UcxNet() { Close(2.0); }

StatusOr<std::unique_ptr<UcxNet>> UcxNet::Open(uint64_t eager_bytes) {
  auto impl = std::make_unique<Impl>();
  ucp_config_t* config = nullptr;
  GR_RETURN_IF_ERROR(UcsToStatus(ucp_config_read(nullptr, nullptr, &config), "ucx net: ucp_config_read"));
  if (Status s = ApplyConfigDefaults(config, eager_bytes, "ucx net"); !s.ok()) {
    ucp_config_release(config);
    return s;
  }
  ucp_params_t params;
  std::memset(&params, 0, sizeof(params));
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_TAG;
  params.mt_workers_shared = 0;
  params.name = "gpurun-net";
  const ucs_status_t init = ucp_init(&params, config, &impl->context);
  ucp_config_release(config);
  if (init != UCS_OK) impl->context = nullptr;
  GR_RETURN_IF_ERROR(UcsToStatus(init, "ucx net: ucp_init"));
  std::unique_ptr<UcxNet> net(new UcxNet(std::move(impl)));
  Impl& m = *net->impl_;
  ucp_worker_params_t worker_params;
  std::memset(&worker_params, 0, sizeof(worker_params));
  worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  worker_params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  GR_RETURN_IF_ERROR(UcsToStatus(ucp_worker_create(m.context, &worker_params, &m.worker), "ucx net: worker"));
  GR_RETURN_IF_ERROR(
      UcsToStatus(ucp_worker_get_address(m.worker, &m.address, &m.address_length), "ucx net: worker address"));
  return net;
}

std::vector<std::byte> UcxNet::Address() const {
  const auto* bytes = reinterpret_cast<const std::byte*>(impl_->address);
  return std::vector<std::byte>(bytes, bytes + impl_->address_length);
}

bool UcxNet::Connected(int peer) const { return impl_->peers.contains(peer); }

Status UcxNet::Connect(int peer, const std::vector<std::byte>& address, std::string name) {
  if (impl_->worker == nullptr) return InvalidUsage("ucx net: connect after close");
  if (Connected(peer)) return OkStatus();
  if (address.empty()) return RemoteError("ucx net: " + name + " published no UCX worker address");
  auto slot = std::make_unique<UcxNetPeer>();
  slot->name = std::move(name);
  ucp_ep_params_t params;
  std::memset(&params, 0, sizeof(params));
  params.field_mask =
      UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.address = reinterpret_cast<const ucp_address_t*>(address.data());
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = &OnEndpointError;
  params.err_handler.arg = slot.get();
  GR_RETURN_IF_ERROR(
      UcsToStatus(ucp_ep_create(impl_->worker, &params, &slot->ep), "ucx net: endpoint to " + slot->name));
  impl_->peers.emplace(peer, std::move(slot));
  return OkStatus();
}

bool UcxNet::SupportsCudaMemory() const {
  if (impl_->context == nullptr) return false;
  ucp_context_attr_t attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (ucp_context_query(impl_->context, &attr) != UCS_OK) return false;
  return (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
}

Status UcxNet::PeerError(int peer) const {
  auto it = impl_->peers.find(peer);
  if (it == impl_->peers.end() || it->second->failure == UCS_OK) return OkStatus();
  return UcsToStatus(it->second->failure, "ucx net: connection to " + it->second->name + " failed");
}

Status UcxNet::Send(int peer, uint64_t tag, const void* data, size_t bytes, UcxNetOp* op) {
  auto it = impl_->peers.find(peer);
  if (it == impl_->peers.end()) return InternalError("ucx net: no endpoint to " + impl_->NameOf(peer));
  GR_RETURN_IF_ERROR(PeerError(peer));
  ucp_request_param_t param;
  std::memset(&param, 0, sizeof(param));
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_contig(1);
  const ucs_status_ptr_t ret = ucp_tag_send_nbx(it->second->ep, data, bytes, tag, &param);
  if (UCS_PTR_IS_ERR(ret)) return UcsToStatus(UCS_PTR_STATUS(ret), "ucx net: send to " + it->second->name);
  *op = UcxNetOp{ret, true, false, peer, bytes, tag};
  return OkStatus();
}

Status UcxNet::Recv(int peer, uint64_t tag, void* data, size_t capacity, UcxNetOp* op, uint64_t mask) {
  // Always a request, polled by Test: UCX 1.13 completing a receive inline
  // (its message already there) left recv_info's length 0 for a 13 KiB
  // message here (seen in HostCollNet.StepRoundingAcrossFunctions).
  ucp_request_param_t param;
  std::memset(&param, 0, sizeof(param));
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
  param.datatype = ucp_dt_make_contig(1);
  const ucs_status_ptr_t ret = ucp_tag_recv_nbx(impl_->worker, data, capacity, tag, mask, &param);
  if (UCS_PTR_IS_ERR(ret)) return UcsToStatus(UCS_PTR_STATUS(ret), "ucx net: receive from " + impl_->NameOf(peer));
  *op = UcxNetOp{ret, true, true, peer, 0, 0};
  return OkStatus();
}

Status UcxNet::Test(UcxNetOp* op, bool* done) {
  *done = false;
  if (!op->active) return InternalError("ucx net: test of an operation not in flight");
  if (op->request != nullptr) {
    ucs_status_t status;
    if (op->recv) {
      ucp_tag_recv_info_t info{};
      status = ucp_tag_recv_request_test(op->request, &info);
      if (status != UCS_INPROGRESS) {
        op->bytes = info.length;
        op->tag = info.sender_tag;
      }
    } else {
      status = ucp_request_check_status(op->request);
    }
    if (status == UCS_INPROGRESS) return OkStatus();
    ucp_request_free(op->request);
    op->request = nullptr;
    op->active = false;
    if (status != UCS_OK) {
      return UcsToStatus(
          status, std::string("ucx net: ") + (op->recv ? "receive from " : "send to ") + impl_->NameOf(op->peer));
    }
  }
  op->active = false;
  *done = true;
  return OkStatus();
}

void UcxNet::Cancel(UcxNetOp* op) {
  if (!op->active) return;
  op->active = false;
  if (op->request == nullptr) return;
  ucp_request_cancel(impl_->worker, op->request);
  (void)WaitRequest(impl_->worker, op->request, std::chrono::milliseconds(500));
  ucp_request_free(op->request);
  op->request = nullptr;
}

bool UcxNet::Progress() { return impl_->worker != nullptr && ucp_worker_progress(impl_->worker) != 0; }

void UcxNet::Close(double wait_s) {
  Impl& m = *impl_;
  if (m.worker != nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    std::vector<std::pair<void*, UcxNetPeer*>> closing;
    for (auto& [peer, slot] : m.peers) {
      ucp_request_param_t param;
      std::memset(&param, 0, sizeof(param));
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = slot->failure != UCS_OK ? UCP_EP_CLOSE_FLAG_FORCE : 0;
      const ucs_status_ptr_t ret = ucp_ep_close_nbx(slot->ep, &param);
      slot->ep = nullptr;
      if (ret != nullptr && !UCS_PTR_IS_ERR(ret)) closing.emplace_back(ret, slot.get());
    }
    size_t open = closing.size();
    while (open > 0 && std::chrono::steady_clock::now() < deadline) {
      ucp_worker_progress(m.worker);
      open = 0;
      for (auto& [request, slot] : closing) open += ucp_request_check_status(request) == UCS_INPROGRESS ? 1 : 0;
    }
    if (open > 0) GR_LOG(Info, Net) << "ucx net: " << open << " endpoint close(s) unfinished after " << wait_s << " s";
    for (auto& [request, slot] : closing) ucp_request_free(request);
    m.peers.clear();
    if (m.address != nullptr) ucp_worker_release_address(m.worker, m.address);
    m.address = nullptr;
    ucp_worker_destroy(m.worker);
    m.worker = nullptr;
  }
  if (m.context != nullptr) ucp_cleanup(m.context);
  m.context = nullptr;
}

}  // namespace gpurun::p2p
