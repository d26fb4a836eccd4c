// InprocGroup and the per-rank InprocBootstrap (see inproc_bootstrap.h).
#include "runtime/bootstrap/inproc_bootstrap.h"

#include <unistd.h>

#include <atomic>
#include <string>

#include "runtime/base/log.h"
#include "runtime/bootstrap/host_name.h"
#include "runtime/bootstrap/inproc_rendezvous.h"

namespace gpurun {
namespace {

// One rank of an InprocGroup; every collective is one rendezvous round.
class InprocBootstrap final : public Bootstrap {
 public:
  InprocBootstrap(RankIdentity identity, std::shared_ptr<InprocRendezvous> rendezvous)
      : identity_(std::move(identity)), rendezvous_(std::move(rendezvous)) {}

  const RankIdentity& identity() const override { return identity_; }
  const char* name() const override { return "inproc"; }

  StatusOr<std::vector<std::vector<std::byte>>> AllGather(std::span<const std::byte> mine) override {
    GR_RETURN_IF_ERROR(CheckNotFinalized("AllGather"));
    GR_ASSIGN_OR_RETURN(auto all, rendezvous_->Exchange(identity_.rank, Label("AllGather", allgathers_), mine));
    return *all;  // a copy: the caller owns its result
  }

  Status Barrier() override {
    GR_RETURN_IF_ERROR(CheckNotFinalized("Barrier"));
    return rendezvous_->Exchange(identity_.rank, Label("Barrier", barriers_), {}).status();
  }

  Status Abort(int code, const std::string& message) override {
    rendezvous_->Abort(identity_.rank, code, message);
    return OkStatus();
  }

  Status Finalize() override {
    GR_RETURN_IF_ERROR(CheckNotFinalized("Finalize"));
    finalized_ = true;
    return rendezvous_->Exchange(identity_.rank, "Finalize", {}).status();
  }

 private:
  static std::string Label(const char* op, uint64_t& counter) {
    return op + std::string(" #") + std::to_string(++counter);
  }

  Status CheckNotFinalized(const char* op) const {
    if (!finalized_) return OkStatus();
    return InvalidUsage("inproc bootstrap: rank " + std::to_string(identity_.rank) + " called " + op +
                        " after Finalize");
  }

  RankIdentity identity_;
  std::shared_ptr<InprocRendezvous> rendezvous_;
  uint64_t allgathers_ = 0;
  uint64_t barriers_ = 0;
  bool finalized_ = false;
};

std::string NextJobId() {
  static std::atomic<int> groups{0};
  return "inproc-" + std::to_string(getpid()) + "-" + std::to_string(groups++);
}

}  // namespace

StatusOr<InprocGroup> InprocGroup::Create(int size, InprocOptions options) {
  if (size < 1) return InvalidArgument("inproc bootstrap: group size must be >= 1, got " + std::to_string(size));
  if (options.ranks_per_node < 0) {
    return InvalidArgument("inproc bootstrap: ranks_per_node must be >= 0, got " +
                           std::to_string(options.ranks_per_node));
  }
  if (options.timeout_s && *options.timeout_s < 0) return InvalidArgument("inproc bootstrap: negative timeout");
  GR_ASSIGN_OR_RETURN(std::string host, LocalHostName());
  const int per_node = options.ranks_per_node == 0 ? size : options.ranks_per_node;
  auto rendezvous = std::make_shared<InprocRendezvous>(size, options.timeout_s);
  return InprocGroup(size, per_node, std::move(host), NextJobId(), std::move(rendezvous));
}

InprocGroup::InprocGroup(int size, int ranks_per_node, std::string host, std::string job_id,
                         std::shared_ptr<InprocRendezvous> rendezvous)
    : size_(size),
      ranks_per_node_(ranks_per_node),
      host_(std::move(host)),
      job_id_(std::move(job_id)),
      rendezvous_(std::move(rendezvous)),
      taken_(size, false) {}

RankIdentity InprocGroup::IdentityOf(int rank) const {
  RankIdentity id;
  id.rank = rank;
  id.size = size_;
  id.num_nodes = (size_ + ranks_per_node_ - 1) / ranks_per_node_;
  id.node_id = rank / ranks_per_node_;
  id.local_rank = rank % ranks_per_node_;
  id.local_size = std::min(ranks_per_node_, size_ - id.node_id * ranks_per_node_);
  id.host = id.num_nodes == 1 ? host_ : host_ + "-node" + std::to_string(id.node_id);
  id.job_id = job_id_;
  return id;
}

StatusOr<std::unique_ptr<Bootstrap>> InprocGroup::Take(int rank) {
  if (rank < 0 || rank >= size_) {
    return InvalidArgument("inproc bootstrap: rank " + std::to_string(rank) + " out of range [0, " +
                           std::to_string(size_) + ")");
  }
  if (taken_[rank]) return InvalidUsage("inproc bootstrap: rank " + std::to_string(rank) + " was already taken");
  taken_[rank] = true;
  return std::unique_ptr<Bootstrap>(new InprocBootstrap(IdentityOf(rank), rendezvous_));
}

std::vector<std::unique_ptr<Bootstrap>> InprocGroup::TakeAll() {
  std::vector<std::unique_ptr<Bootstrap>> all;
  all.reserve(size_);
  for (int r = 0; r < size_; ++r) {
    if (taken_[r]) return {};
  }
  for (int r = 0; r < size_; ++r) all.push_back(std::move(Take(r)).value());
  return all;
}

std::optional<int> InprocGroup::abort_code() const { return rendezvous_->abort_code(); }

}  // namespace gpurun
