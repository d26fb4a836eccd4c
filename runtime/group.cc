// Groups (group.h).
#include "runtime/group.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/coll_placed.h"
#include "runtime/context.h"
#include "runtime/global_context.h"
#include "runtime/p2p_args.h"
#include "runtime/p2p_stream.h"

namespace gpurun::group {

namespace internal {
constinit thread_local int t_depth = 0;
}  // namespace internal

namespace {

// A recorded collective: `run`, or (ring/tree ones, run == nullptr) the
// call to place and perhaps fuse.
struct Collective {
  std::function<Status()> run;
  grComm* comm = nullptr;
  coll::CollCall call;
  grStream_t stream = GR_STREAM_HOST;
};

struct State {
  std::vector<Collective> collectives;
  std::vector<P2pCall> p2p;
  std::string spoiled;  // why End runs nothing ("" while the group is sound)
};

State& Mine() {
  thread_local State state;
  return state;
}

// Starts every host send and receive, then waits for all of them (also
// after a start failed, for the ones already started).
Status RunHostP2p(const std::vector<P2pCall>& calls) {
  if (calls.empty()) return OkStatus();
  p2p::Engine* engine = nullptr;
  std::vector<p2p::Request*> requests;
  std::vector<grStatus_t*> statuses;
  Status started;
  for (const P2pCall& c : calls) {
    StatusOr<grComm*> comm = CheckComm(c.comm);
    if (!comm.ok()) {
      started = comm.status();
      break;
    }
    p2p::Engine* mine = &(*comm)->context->engine();
    if (engine != nullptr && mine != engine) {
      started = InternalError("a group's host sends and receives belong to two point-to-point engines");
      break;
    }
    engine = mine;
    StatusOr<p2p::Request*> r = [&]() -> StatusOr<p2p::Request*> {
      if (c.send) {
        GR_ASSIGN_OR_RETURN(const p2p::SendArgs args,
                            MakeSendArgs(**comm, c.buf, c.count, c.type, c.peer, c.tag, "grSend"));
        return engine->Isend(args);
      }
      GR_ASSIGN_OR_RETURN(const p2p::RecvArgs args,
                          MakeRecvArgs(**comm, c.buf, c.count, c.type, c.peer, c.tag, "grRecv"));
      return engine->Irecv(args);
    }();
    if (!r.ok()) {
      started = r.status();
      break;
    }
    requests.push_back(*r);
    statuses.push_back(c.send ? GR_STATUS_IGNORE : c.status);
  }
  if (requests.empty()) return started;
  std::vector<grStatus_t> filled(requests.size());
  const Status waited = engine->WaitAll(requests, filled.data(), "grGroupEnd");
  for (size_t i = 0; i < requests.size(); ++i) {
    if (statuses[i] != GR_STATUS_IGNORE) *statuses[i] = filled[i];
  }
  return started.ok() ? waited : started;
}

// Per (communicator, stream), in order of first appearance, one launch.
Status RunStreamP2p(const std::vector<P2pCall>& calls) {
  std::vector<bool> done(calls.size(), false);
  for (size_t i = 0; i < calls.size(); ++i) {
    if (done[i]) continue;
    std::vector<P2pCall> batch;
    for (size_t j = i; j < calls.size(); ++j) {
      if (!done[j] && calls[j].comm == calls[i].comm && calls[j].stream == calls[i].stream) {
        batch.push_back(calls[j]);
        done[j] = true;
      }
    }
    GR_RETURN_IF_ERROR(StreamGroup(batch));
  }
  return OkStatus();
}

// In order; the ring/tree calls in runs of one communicator and stream.
Status RunCollectives(const std::vector<Collective>& all) {
  std::vector<coll::CollCall> calls;
  for (size_t i = 0; i < all.size();) {
    if (all[i].run) {
      GR_RETURN_IF_ERROR(all[i].run());
      ++i;
      continue;
    }
    calls.clear();
    size_t end = i;
    for (; end < all.size() && !all[end].run && all[end].comm == all[i].comm && all[end].stream == all[i].stream;
         ++end) {
      calls.push_back(all[end].call);
    }
    GR_RETURN_IF_ERROR(RunPlacedGroup(*all[i].comm, calls, all[i].stream));
    i = end;
  }
  return OkStatus();
}

Status Run(State& s) {
  GR_RETURN_IF_ERROR(RunCollectives(s.collectives));
  std::vector<P2pCall> host, stream;
  for (const P2pCall& c : s.p2p) (c.stream == GR_STREAM_HOST ? host : stream).push_back(c);
  GR_RETURN_IF_ERROR(RunHostP2p(host));
  return RunStreamP2p(stream);
}

}  // namespace

Status Start() {
  State& s = Mine();
  if (internal::t_depth == 0) {
    s.collectives.clear();
    s.p2p.clear();
    s.spoiled.clear();
  }
  ++internal::t_depth;
  return OkStatus();
}

Status End() {
  State& s = Mine();
  if (internal::t_depth == 0) return InvalidUsage("grGroupEnd without a matching grGroupStart");
  if (--internal::t_depth > 0) return OkStatus();
  State taken = std::move(s);
  s = State{};
  if (!taken.spoiled.empty()) {
    return InvalidUsage("the group ran nothing: " + taken.spoiled);
  }
  return Run(taken);
}

Status AddP2p(const P2pCall& call) {
  GR_RETURN_IF_ERROR(CheckComm(call.comm).status());
  Mine().p2p.push_back(call);
  return OkStatus();
}

void AddCollective(std::function<Status()> run) {
  Collective c;
  c.run = std::move(run);
  Mine().collectives.push_back(std::move(c));
}

void AddRingTree(grComm& comm, const coll::CollCall& call, grStream_t stream) {
  Mine().collectives.push_back(Collective{nullptr, &comm, call, stream});
}

Status Refuse(const char* what) {
  State& s = Mine();
  const std::string why = std::string(what) +
                          " cannot be called inside a group (grGroupStart): a group holds grSend, grRecv, "
                          "grSendrecv and the ring/tree collectives";
  if (s.spoiled.empty()) s.spoiled = why;
  return InvalidUsage(why);
}

}  // namespace gpurun::group
