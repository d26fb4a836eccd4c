// ConnGroup::Create (conn_group.h): edge lists, segments, the two exchanges.
#include "coll/host/conn_group.h"

#include <map>

#include "coll/host/agree.h"
#include "coll/host/fifo_sizes.h"
#include "coll/host/host_wire.h"
#include "coll/host/net_proxy.h"
#include "coll/planner/planner.h"
#include "p2p/shm/shm_names.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

constexpr int kRegionsRing = 1;
constexpr int kRegionsTree = kNumDoubleTrees * (1 + kTreeMaxChildren);

// One directed edge as this rank sees it.
struct Edge {
  int peer;
  int region;  // FIFO index in the receiver's segment
  int code;    // tag offset: ring 0, tree t up 1 + 2t, down 2 + 2t
  RecvConn* recv;
  SendConn* send;
};

int ChildSlot(const TreeLinks& links, int child) {
  for (int j = 0; j < kTreeMaxChildren; ++j) {
    if (links.children[j] == child) return j;
  }
  return -1;
}

// Every edge of the group at this rank, incoming and outgoing.
void ListEdges(ConnGroup& g, Algo algo, int nranks, int rank, std::vector<Edge>* in, std::vector<Edge>* out) {
  if (algo == Algo::kOneShot) {
    g.peer_recv.assign(static_cast<size_t>(nranks), RecvConn{});
    g.peer_send.assign(static_cast<size_t>(nranks), SendConn{});
    for (int p = 0; p < nranks; ++p) {
      if (p == rank) continue;
      g.peer_recv[static_cast<size_t>(p)].peer = g.peer_send[static_cast<size_t>(p)].peer = p;
      in->push_back({p, ConnGroup::OneShotRegion(p, rank), 0, &g.peer_recv[static_cast<size_t>(p)], nullptr});
      out->push_back({p, ConnGroup::OneShotRegion(rank, p), 0, nullptr, &g.peer_send[static_cast<size_t>(p)]});
    }
    return;
  }
  if (algo == Algo::kRing) {
    const int prev = (rank + nranks - 1) % nranks, next = (rank + 1) % nranks;
    g.ring_recv.peer = prev;
    g.ring_send.peer = next;
    in->push_back({prev, 0, 0, &g.ring_recv, nullptr});
    out->push_back({next, 0, 0, nullptr, &g.ring_send});
    return;
  }
  for (int t = 0; t < kNumDoubleTrees; ++t) {
    TreeConns& tc = g.tree[t];
    tc.links = DoubleTreeLinks(nranks, rank, t);
    const int up = 1 + 2 * t, down = 2 + 2 * t;
    if (const int p = tc.links.parent; p >= 0) {
      tc.recv[0].peer = tc.send[0].peer = p;
      in->push_back({p, 3 * t, down, &tc.recv[0], nullptr});
      const int slot = ChildSlot(DoubleTreeLinks(nranks, p, t), rank);
      out->push_back({p, 3 * t + 1 + slot, up, nullptr, &tc.send[0]});
    }
    for (int j = 0; j < kTreeMaxChildren; ++j) {
      const int c = tc.links.children[j];
      if (c < 0) continue;
      tc.recv[1 + j].peer = tc.send[1 + j].peer = c;
      in->push_back({c, 3 * t + 1 + j, up, &tc.recv[1 + j], nullptr});
      out->push_back({c, 3 * t, down, nullptr, &tc.send[1 + j]});
    }
  }
}

// A same-host FIFO whose steps start at `first_step`: head and tail at it,
// LL lines as ll_start.h sets them up.
void StartAt(FifoHeader* header, std::byte* buf, uint64_t buffer_bytes, uint64_t first_step, bool ll) {
  header->head.post(first_step);
  header->tail.post(first_step);
  if (ll) HostWire<ProtoLL>::StartAt(buf, buffer_bytes, first_step);  // LL128's flag is 64 bits, Simple has none
}

}  // namespace

int ConnGroup::GroupIndex(Algo algo, Protocol proto, int channel) {
  const int a = algo == Algo::kTree ? 1 : algo == Algo::kOneShot ? 2 : 0;
  return (a * kNumProtocols + static_cast<int>(proto)) * kMaxChannels + channel;
}

std::string ConnGroup::SegmentName(const std::string& unique_name, int group, int rank) {
  std::string name = p2p::ShmSegmentPrefix(unique_name);
  name.pop_back();  // "/gpurun-<unique>" followed by digits only
  std::string digits = std::to_string(static_cast<uint64_t>(group) * 100000000ull + static_cast<uint64_t>(rank));
  if (digits.size() < 12) digits.insert(0, 12 - digits.size(), '0');
  return name + digits;
}

StatusOr<std::unique_ptr<ConnGroup>> ConnGroup::Create(CommLink& link, Algo algo, Protocol proto, int channel,
                                                       NetProxy* proxy, bool all_net, uint64_t first_step) {
  std::unique_ptr<ConnGroup> group(new ConnGroup(algo, proto));
  GR_RETURN_IF_ERROR(group->Setup(link, channel, proxy, all_net, first_step));
  return group;
}

Status ConnGroup::Setup(CommLink& link, int channel, NetProxy* proxy, bool all_net, uint64_t first_step) {
  const int rank = link.rank(), nranks = link.size();
  const int group = GroupIndex(algo_, proto_, channel);
  const uint64_t buffer = HostBufferBytes(proto_);
  const uint64_t region = sizeof(FifoHeader) + buffer;
  if (algo_ != Algo::kRing && algo_ != Algo::kTree && algo_ != Algo::kOneShot) {
    return InternalError(std::string("no connector group for the ") + AlgoName(algo_) + " algorithm");
  }
  const int nregions = algo_ == Algo::kRing ? kRegionsRing : algo_ == Algo::kTree ? kRegionsTree : nranks - 1;
  std::vector<Edge> in, out;
  ListEdges(*this, algo_, nranks, rank, &in, &out);

  // NET edges (other hosts, or every edge when all_net): a NetFifo of the
  // proxy on each side; same-host incoming edges: our segment.
  auto is_net = [&](int peer) { return all_net || !link.SameHost(peer); };
  bool any_local_in = false;
  int net_edges = 0;
  Status net_made = OkStatus();
  for (auto* edges : {&in, &out}) {
    for (Edge& e : *edges) {
      if (!is_net(e.peer)) {
        any_local_in |= edges == &in;
        continue;
      }
      if (!net_made.ok()) continue;
      if (proto_ == Protocol::kLL128) {
        net_made = InvalidUsage(std::string("the ll128 protocol is off on NET connectors (") + AlgoName(algo_) +
                                " edge to " + link.DescribePeer(e.peer) + "): " + kLL128NetReason);
        continue;
      }
      if (proxy == nullptr) {
        net_made = InternalError("a NET edge to " + link.DescribePeer(e.peer) + " without a NET proxy");
        continue;
      }
      ++net_edges;
      const bool send = e.send != nullptr;
      const uint64_t id = NetProxy::EdgeId(group, e.code, send ? rank : e.peer);
      auto fifo = proxy->AddFifo(e.peer, send, id, buffer, first_step);
      if (!fifo.ok()) {
        net_made = fifo.status();
        continue;
      }
      NetFifo* f = *fifo;
      if (e.recv) *e.recv = RecvConn{e.peer, true, f->buffer.get(), &f->header, first_step, f, proxy};
      if (e.send) {
        *e.send = SendConn{};
        e.send->peer = e.peer;
        e.send->step = e.send->head_seen = first_step;
        e.send->net = true;
        e.send->buf = f->buffer.get();
        e.send->header = &f->header;
        e.send->fifo = f;
        e.send->proxy = proxy;
      }
    }
  }
  const std::string own_name = SegmentName(link.UniqueName(), group, rank);
  Status created = net_made;
  if (any_local_in && created.ok()) {
    auto seg = p2p::shm::ShmSegment::Create(own_name, static_cast<size_t>(region) * nregions);
    if (seg.ok()) {
      own_ = std::move(seg).value();
      for (Edge& e : in) {
        if (is_net(e.peer)) continue;
        auto* base = own_.data() + region * static_cast<uint64_t>(e.region);
        *e.recv = RecvConn{e.peer, false, base + sizeof(FifoHeader), reinterpret_cast<FifoHeader*>(base), first_step};
        if (first_step != 0) StartAt(e.recv->header, e.recv->buf, buffer, first_step, proto_ == Protocol::kLL);
      }
    } else {
      created = seg.status();
    }
  }
  GR_RETURN_IF_ERROR(AgreeOnSuccess(link, created, "collective connector setup (create)"));

  Status mapped = OkStatus();
  std::map<int, size_t> opened;  // receiver -> index in peers_
  for (Edge& e : out) {
    if (is_net(e.peer)) continue;
    auto it = opened.find(e.peer);
    if (it == opened.end()) {
      auto seg = p2p::shm::ShmSegment::Open(SegmentName(link.UniqueName(), group, e.peer),
                                            static_cast<size_t>(region) * nregions);
      if (!seg.ok()) {
        mapped = seg.status();
        break;
      }
      peers_.push_back(std::move(seg).value());
      it = opened.emplace(e.peer, peers_.size() - 1).first;
    }
    auto* base = peers_[it->second].data() + region * static_cast<uint64_t>(e.region);
    *e.send = SendConn{};
    e.send->peer = e.peer;
    e.send->step = e.send->head_seen = first_step;
    e.send->buf = base + sizeof(FifoHeader);
    e.send->header = reinterpret_cast<FifoHeader*>(base);
  }
  GR_RETURN_IF_ERROR(AgreeOnSuccess(link, mapped, "collective connector setup (map)"));
  if (any_local_in) GR_RETURN_IF_ERROR(own_.Unlink());
  GR_LOG(Info, Coll) << "connectors ready: " << AlgoName(algo_) << "/" << ProtocolName(proto_) << " channel " << channel
                     << ", " << in.size() << " in, " << out.size() << " out, " << net_edges << " of them NET"
                     << (first_step != 0 ? ", steps from " + std::to_string(first_step) + " (GPURUN_FIRST_STEP)" : "");
  return OkStatus();
}

}  // namespace gpurun::coll
