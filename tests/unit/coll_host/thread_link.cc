// ThreadWorld / ThreadLink (thread_link.h).
#include "tests/unit/coll_host/thread_link.h"

#include <chrono>
#include <cstring>
#include <thread>

namespace gpurun::coll {
namespace {
constexpr auto kWorldTimeout = std::chrono::seconds(60);
}

ThreadWorld::ThreadWorld(std::vector<int> host_of, std::string unique)
    : host_of_(std::move(host_of)),
      unique_(std::move(unique)),
      dead_(host_of_.size(), false),
      calls_(host_of_.size(), 0) {
  for (auto& s : slots_) s.resize(host_of_.size());
}

void ThreadWorld::MarkDead(int rank) {
  std::lock_guard<std::mutex> lock(mu_);
  dead_[static_cast<size_t>(rank)] = true;
  cv_.notify_all();
}

bool ThreadWorld::IsDead(int rank) {
  std::lock_guard<std::mutex> lock(mu_);
  return dead_[static_cast<size_t>(rank)];
}

Status ThreadWorld::AllGather(int rank, const void* mine, size_t bytes, void* all) {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t call = calls_[static_cast<size_t>(rank)]++;
  auto& slots = slots_[call % 2];
  slots[static_cast<size_t>(rank)].assign(static_cast<const char*>(mine), static_cast<const char*>(mine) + bytes);
  if (++arrived_ == size()) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
  }
  const bool ok = cv_.wait_for(lock, kWorldTimeout, [&] {
    if (generation_ > call) return true;
    for (bool d : dead_) {
      if (d) return true;
    }
    return false;
  });
  if (generation_ <= call) {
    for (int r = 0; r < size(); ++r) {
      if (dead_[static_cast<size_t>(r)]) return RemoteError("test AllGather: rank " + std::to_string(r) + " died");
    }
    if (!ok) return TimeoutError("test AllGather timed out");
  }
  for (int r = 0; r < size(); ++r) {
    std::memcpy(static_cast<char*>(all) + static_cast<size_t>(r) * bytes, slots[static_cast<size_t>(r)].data(), bytes);
  }
  return OkStatus();
}

void ThreadWorld::Post(LinkRequest* req) {
  std::lock_guard<std::mutex> lock(mu_);
  if (req->is_send) {
    const char* p = static_cast<const char*>(req->data);
    mail_[Key{req->src, req->dst, req->tag}].emplace_back(p, p + req->bytes);
    req->done = true;
  } else {
    posted_[Key{req->src, req->dst, req->tag}].push_back(req);
  }
}

Status ThreadWorld::Poll(LinkRequest* req) {
  std::lock_guard<std::mutex> lock(mu_);
  if (req->done) return OkStatus();
  const Key key{req->src, req->dst, req->tag};
  auto& posted = posted_[key];
  auto& mail = mail_[key];
  while (!posted.empty() && !mail.empty()) {  // match in posting order
    LinkRequest* r = posted.front();
    posted.pop_front();
    std::vector<char>& msg = mail.front();
    if (msg.size() != r->bytes) {
      r->wrong_size = true;
      r->status = InternalError("test link: message of " + std::to_string(msg.size()) + " bytes from rank " +
                                std::to_string(r->src) + ", " + std::to_string(r->bytes) + " posted");
    } else {
      std::memcpy(r->data, msg.data(), msg.size());
    }
    r->done = true;
    mail.pop_front();
  }
  return OkStatus();
}

int ThreadLink::LocalSize() const {
  int n = 0;
  for (int r = 0; r < world_.size(); ++r) n += SameHost(r) ? 1 : 0;
  return n;
}

bool ThreadLink::SharesCores() const {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores != 0 && static_cast<unsigned>(LocalSize()) > cores;
}

std::string ThreadLink::DescribePeer(int peer) const {
  return "rank " + std::to_string(peer) + " (test host " + std::to_string(world_.host_of(peer)) + ")";
}

StatusOr<LinkRequest*> ThreadLink::Isend(int peer, int tag, const void* data, size_t bytes, const char*) {
  auto* req = new LinkRequest{true, rank_, peer, tag, const_cast<void*>(data), bytes, false, OkStatus()};
  world_.Post(req);
  return req;
}

StatusOr<LinkRequest*> ThreadLink::Irecv(int peer, int tag, void* data, size_t bytes, const char*) {
  auto* req = new LinkRequest{false, peer, rank_, tag, data, bytes, false, OkStatus()};
  world_.Post(req);
  return req;
}

Status ThreadLink::Test(LinkRequest** request, bool* done) {
  LinkRequest* req = *request;
  GR_RETURN_IF_ERROR(world_.Poll(req));
  *done = req->done;
  if (!req->done) return CheckPeer(req->is_send ? req->dst : req->src);
  Status status = req->status;
  delete req;
  *request = nullptr;
  return status;
}

Status ThreadLink::WaitAllSized(std::span<LinkRequest*> requests, const char* what, grResult_t mismatch) {
  const auto start = std::chrono::steady_clock::now();
  for (LinkRequest*& req : requests) {
    while (req != nullptr) {
      GR_RETURN_IF_ERROR(world_.Poll(req));
      // Once done (matched under the world's lock) a request no longer
      // changes: its size check and status are read together here, not
      // through Test, whose own Poll could match it after an earlier read.
      if (req->done) {
        const bool wrong_size = req->wrong_size;
        Status status = req->status;
        delete req;
        req = nullptr;
        if (!status.ok()) return wrong_size ? Status(mismatch, status.message()) : status;
        break;
      }
      GR_RETURN_IF_ERROR(CheckPeer(req->is_send ? req->dst : req->src));
      if (std::chrono::steady_clock::now() - start > kWorldTimeout)
        return TimeoutError(std::string(what) + " timed out");
      std::this_thread::yield();
    }
  }
  return OkStatus();
}

Status ThreadLink::CheckPeer(int peer) {
  if (world_.IsDead(peer)) return RemoteError(DescribePeer(peer) + " died");
  return OkStatus();
}

}  // namespace gpurun::coll
