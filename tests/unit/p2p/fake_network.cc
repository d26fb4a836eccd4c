// The in-memory test network (see fake_network.h).
#include "fake_network.h"

#include <atomic>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>

namespace gpurun::p2p::testing {

namespace {

struct Event {
  enum Kind { kEager, kPending, kSendDone, kPeerFailed, kCall } kind;
  int peer = -1;
  MatchHeader header;
  std::vector<std::byte> data;
  const void* src = nullptr;  // kPending: the sender's buffer
  uint64_t send_id = 0;       // kPending, kSendDone
  Status status;              // kSendDone, kPeerFailed, kCall
  Completion call;            // kCall
};

struct Mailbox {
  std::mutex mu;
  std::deque<Event> events;
};

}  // namespace

struct FakeNetwork::State {
  State(int n, FakeOptions o) : options(o), boxes(n), dead(n) {}
  void Post(int rank, Event e) {
    std::lock_guard<std::mutex> lock(boxes[rank].mu);
    boxes[rank].events.push_back(std::move(e));
  }
  FakeOptions options;
  std::vector<Mailbox> boxes;
  std::vector<std::atomic<bool>> dead;
};

namespace {

class FakePending final : public PendingPayload {
 public:
  FakePending(std::shared_ptr<FakeNetwork::State> state, int receiver, int sender, const void* src, uint64_t id)
      : state_(std::move(state)), receiver_(receiver), sender_(sender), src_(src), id_(id) {}
  ~FakePending() override {
    if (!fetched_) {
      state_->Post(
          sender_,
          Event{
              Event::kSendDone, receiver_, {}, {}, nullptr, id_, RemoteError("receiver dropped the message"), nullptr});
    }
  }
  void Fetch(void* dst, size_t bytes, Completion done) override {
    fetched_ = true;
    if (bytes > 0) std::memcpy(dst, src_, bytes);
    state_->Post(sender_, Event{Event::kSendDone, receiver_, {}, {}, nullptr, id_, OkStatus(), nullptr});
    if (state_->options.async_fetch) {
      state_->Post(receiver_, Event{Event::kCall, sender_, {}, {}, nullptr, 0, OkStatus(), std::move(done)});
    } else {
      done(OkStatus());
    }
  }

 private:
  std::shared_ptr<FakeNetwork::State> state_;
  int receiver_, sender_;
  const void* src_;
  uint64_t id_;
  bool fetched_ = false;
};

class FakeWire final : public Wire {
 public:
  FakeWire(std::shared_ptr<FakeNetwork::State> state, int rank) : state_(std::move(state)), rank_(rank) {}
  const char* name() const override { return "fake"; }
  bool CarriesDeviceRendezvous() const override { return state_->options.device_rendezvous; }
  bool Reaches(int peer) const override {
    return peer != rank_ && peer >= 0 && peer < static_cast<int>(state_->boxes.size());
  }

  Status Send(int peer, const MatchHeader& header, const void* data, Completion done) override {
    if (shut_down_) return InvalidUsage("fake wire is shut down");
    if (!Reaches(peer)) return InvalidArgument("fake wire does not reach rank " + std::to_string(peer));
    if (state_->dead[peer]) return RemoteError("fake: rank " + std::to_string(peer) + " is dead");
    if (header.bytes <= state_->options.eager_limit || header.flags != 0) {
      const auto* p = static_cast<const std::byte*>(data);
      state_->Post(peer, Event{Event::kEager, rank_, header, std::vector<std::byte>(p, p + header.bytes), nullptr, 0,
                               OkStatus(), nullptr});
      done(OkStatus());
      return OkStatus();
    }
    const uint64_t id = next_id_++;
    sends_[id] = std::move(done);
    state_->Post(peer, Event{Event::kPending, rank_, header, {}, data, id, OkStatus(), nullptr});
    return OkStatus();
  }

  StatusOr<int> Progress() override {
    std::deque<Event> events;
    {
      std::lock_guard<std::mutex> lock(state_->boxes[rank_].mu);
      events.swap(state_->boxes[rank_].events);
    }
    for (Event& e : events) Handle(e);
    return static_cast<int>(events.size());
  }

  void Shutdown(const Status& why) override {
    shut_down_ = true;
    auto sends = std::move(sends_);
    for (auto& [id, done] : sends) done(why);
  }

 private:
  // Events already in the mailbox when their sender was killed are still
  // delivered: they left the sender before it died.
  void Handle(Event& e) {
    switch (e.kind) {
      case Event::kEager: sink_->OnEager(e.peer, e.header, e.data); break;
      case Event::kPending:
        sink_->OnPending(e.peer, e.header, std::make_unique<FakePending>(state_, rank_, e.peer, e.src, e.send_id));
        break;
      case Event::kSendDone: {
        auto it = sends_.find(e.send_id);
        if (it == sends_.end()) break;
        Completion done = std::move(it->second);
        sends_.erase(it);
        done(e.status);
        break;
      }
      case Event::kPeerFailed: sink_->OnPeerFailed(e.peer, e.status); break;
      case Event::kCall: e.call(e.status); break;
    }
  }

  std::shared_ptr<FakeNetwork::State> state_;
  int rank_;
  bool shut_down_ = false;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Completion> sends_;
};

}  // namespace

FakeNetwork::FakeNetwork(int size, FakeOptions options) : state_(std::make_shared<State>(size, options)) {}
FakeNetwork::~FakeNetwork() = default;

int FakeNetwork::size() const { return static_cast<int>(state_->boxes.size()); }

std::unique_ptr<Wire> FakeNetwork::MakeWire(int rank) { return std::make_unique<FakeWire>(state_, rank); }

std::unique_ptr<Engine> FakeNetwork::MakeEngine(int rank, bool declare_world) {
  std::vector<std::unique_ptr<Wire>> wires;
  wires.push_back(MakeWire(rank));
  std::vector<int> wire_of_peer(size(), 0);
  wire_of_peer[rank] = -1;
  auto engine = Engine::CreateForTest(rank, std::move(wires), std::move(wire_of_peer));
  if (declare_world) {
    std::vector<int> members(size());
    std::iota(members.begin(), members.end(), 0);
    (void)engine->AddContext(0, members);
  }
  return engine;
}

void FakeNetwork::Kill(int rank, const Status& why) {
  state_->dead[rank] = true;
  for (int r = 0; r < size(); ++r) {
    if (r != rank) state_->Post(r, Event{Event::kPeerFailed, rank, {}, {}, nullptr, 0, why, nullptr});
  }
}

Context::EngineFactory FakeEngineFactory(const std::shared_ptr<FakeNetwork>& net) {
  return [net](Bootstrap& bootstrap, const std::vector<PeerInfo>&) -> StatusOr<std::unique_ptr<Engine>> {
    return net->MakeEngine(bootstrap.identity().rank, /*declare_world=*/false);
  };
}

}  // namespace gpurun::p2p::testing
