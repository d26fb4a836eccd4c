// Device-memory messages: the rendezvous of device_transfer.h on top of the
// ordinary wires (see engine.h). Every function here runs with the engine
// lock held.
#include <cstring>
#include <memory>
#include <string>

#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

// A matched DeviceRts: Fetch pulls the data from the sender's GPU memory and
// answers with a DeviceFin. Destroyed unfetched (its communicator freed, the
// engine shutting down), it releases the sender with an error.
class Engine::DevicePayload final : public PendingPayload {
 public:
  DevicePayload(Engine* engine, int world_source, const DeviceRts& rts)
      : engine_(engine), world_source_(world_source), rts_(rts) {}
  ~DevicePayload() override {
    if (!answered_) engine_->QueueFin(world_source_, rts_.send_id, grRemoteError);
  }

  void Fetch(void* dst, size_t bytes, Completion done) override {
    Status pulled = engine_->device_ == nullptr
                        ? Unsupported("a message in GPU memory from world rank " + std::to_string(world_source_) +
                                      " reached a process without the CUDA driver")
                        : engine_->device_->Pull(world_source_, rts_.data, dst, bytes);
    answered_ = true;
    engine_->QueueFin(world_source_, rts_.send_id, pulled.code());
    done(pulled);
  }
  bool FetchesIntoDevice() const override { return true; }

 private:
  Engine* engine_;
  int world_source_;
  DeviceRts rts_;
  bool answered_ = false;
};

void Engine::SetDeviceTransfer(std::unique_ptr<DeviceTransfer> transfer) {
  Lock lock(mu_);
  device_ = std::move(transfer);
}

StatusOr<std::unique_ptr<std::byte[]>> Engine::StageDeviceSend(const SendArgs& args) {
  std::unique_ptr<std::byte[]> copy(new std::byte[args.bytes]);  // uninitialised: the copy writes all of it
  GR_RETURN_IF_ERROR(device_->Copy(copy.get(), args.data, args.bytes)
                         .WithContext("copying a GPU send buffer to host memory for the " +
                                      std::string(WireOf(args.dest_world)->name()) + " wire"));
  return copy;
}

StatusOr<Request*> Engine::IsendDeviceLocked(Request* r, const SendArgs& args) {
  Wire* wire = WireOf(args.dest_world);
  auto fail = [&](const Status& why) {
    Status error = why.WithContext(r->Describe());
    pool_.Free(r);
    return error;
  };
  if (Status exported = device_->Export(args.data, args.bytes, &r->rts.data); !exported.ok()) return fail(exported);
  r->device = true;
  r->device_send_id = next_device_send_++;
  r->rts.send_id = r->device_send_id;
  r->rts.bytes = args.bytes;
  device_sends_[r->device_send_id] = r;
  const MatchHeader header{args.context, args.source, args.tag, kFlagDeviceRts, sizeof(DeviceRts)};
  if (wire->TrySend(args.dest_world, header, &r->rts)) return r;  // complete at the DeviceFin
  r->wire_busy = true;
  Status sent =
      wire->Send(args.dest_world, header, &r->rts, [this, r](const Status& result) { OnSendDone(r, result); });
  if (!sent.ok()) {
    r->wire_busy = false;
    device_sends_.erase(r->device_send_id);
    return fail(sent);
  }
  return r;
}

void Engine::OnFlagged(int world_source, const MatchHeader& header, std::span<const std::byte> payload) {
  if (header.flags == kFlagSyncNote && payload.size() == sizeof(uint64_t)) {
    uint64_t id = 0;
    std::memcpy(&id, payload.data(), sizeof(id));
    sync_notes_[world_source] = id;
    return;
  }
  if (header.flags == kFlagDeviceFin && payload.size() == sizeof(DeviceFin)) {
    DeviceFin fin;
    std::memcpy(&fin, payload.data(), sizeof(fin));
    OnDeviceFin(world_source, fin);
    return;
  }
  if (header.flags == kFlagDeviceRts && payload.size() == sizeof(DeviceRts)) {
    DeviceRts rts;
    std::memcpy(&rts, payload.data(), sizeof(rts));
    MatchHeader h = header;
    h.bytes = rts.bytes;  // match, probe and truncate on the data's size
    OnPending(world_source, h, std::make_unique<DevicePayload>(this, world_source, rts));
    return;
  }
  GR_LOG(Warn, P2p) << "dropping a message with flags " << header.flags << " and " << payload.size()
                    << " bytes from world rank " << world_source << ": not a device rendezvous message";
}

void Engine::OnDeviceFin(int world_source, const DeviceFin& fin) {
  auto it = device_sends_.find(fin.send_id);
  if (it == device_sends_.end()) return;  // the send was given up (timeout, cancel) and freed
  Request* r = it->second;
  device_sends_.erase(it);
  if (!pool_.InUse(r) || r->device_send_id != fin.send_id) return;
  r->device_send_id = 0;
  if (r->complete) return;
  if (fin.result == grSuccess) {
    // A wire still holding the buffer completes it in OnSendDone (a
    // synchronous send whose message is still going out).
    if (!r->wire_busy) r->CompleteOk();
  } else {
    r->Complete(Status(static_cast<grResult_t>(fin.result),
                       "the receiver, world rank " + std::to_string(world_source) +
                           ", could not read the GPU send buffer (its own call reports why)"));
  }
}

Status Engine::StoreInto(Request* r, const void* src, size_t n) {
  if (n == 0) return OkStatus();
  if (!r->device) {
    std::memcpy(r->data, src, n);
    return OkStatus();
  }
  return device_->Copy(r->data, src, n);
}

void Engine::QueueFin(int world_peer, uint64_t send_id, grResult_t result) {
  fins_out_.push_back(FinOut{world_peer, DeviceFin{send_id, static_cast<int32_t>(result), 0}});
}

// Wires must not be called from inside their own callbacks, where a fetch
// queues its DeviceFin; the engine sends them afterwards.
void Engine::FlushFins() {
  std::vector<FinOut> fins;
  fins.swap(fins_out_);
  for (const FinOut& out : fins) {
    if (failed_.contains(out.world_peer)) continue;
    const MatchHeader header{0, world_rank_, 0, kFlagDeviceFin, sizeof(DeviceFin)};
    Wire* wire = WireOf(out.world_peer);
    if (wire->TrySend(out.world_peer, header, &out.fin)) continue;
    auto kept = std::make_shared<DeviceFin>(out.fin);  // alive until the wire is done with it
    Status sent = wire->Send(out.world_peer, header, kept.get(), [kept](const Status&) {});
    if (!sent.ok()) {
      GR_LOG(Warn, P2p) << "could not tell world rank " << out.world_peer << " that its GPU send " << out.fin.send_id
                        << " was received: " << sent.message();
    }
  }
}

}  // namespace gpurun::p2p
