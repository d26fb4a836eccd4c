// C API: point-to-point (gpurun.h). Each call checks all its arguments before
// it starts anything; an argument error leaves every output untouched and its
// message names the call. The calls that complete an operation (grRecv,
// grSendrecv, grWait, grWaitall, grWaitany, grTest) fill the status of a
// completed operation also when the operation failed — status->error says
// how — as gpurun.h documents for grWait; the request is then freed as well.
#include <algorithm>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"
#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/buffer_place.h"
#include "runtime/context.h"
#include "runtime/global_context.h"
#include "runtime/group.h"
#include "runtime/last_error.h"
#include "runtime/p2p_args.h"
#include "runtime/p2p_stream.h"

namespace gpurun {
namespace {

grRequest_t ToHandle(p2p::Request* request) { return reinterpret_cast<grRequest_t>(request); }

// The checked arguments of a send or receive, with the communicator's engine.
template <typename Args>
struct Started {
  p2p::Engine* engine;
  Args args;
};

StatusOr<Started<p2p::SendArgs>> CheckSend(const void* buf, size_t count, grDataType_t type, int dest, int tag,
                                           grComm_t comm, const char* what) {
  GR_ASSIGN_OR_RETURN(grComm * c, CheckComm(comm));
  GR_ASSIGN_OR_RETURN(p2p::SendArgs args, MakeSendArgs(*c, buf, count, type, dest, tag, what));
  return Started<p2p::SendArgs>{&c->context->engine(), args};
}

StatusOr<Started<p2p::RecvArgs>> CheckRecv(void* buf, size_t count, grDataType_t type, int source, int tag,
                                           grComm_t comm, const char* what) {
  GR_ASSIGN_OR_RETURN(grComm * c, CheckComm(comm));
  GR_ASSIGN_OR_RETURN(p2p::RecvArgs args, MakeRecvArgs(*c, buf, count, type, source, tag, what));
  return Started<p2p::RecvArgs>{&c->context->engine(), args};
}

// The engine and checked arguments (*args) of a send: the common, valid case
// without building a Status; otherwise null with *error saying what is wrong
// (prefixed with `what`).
p2p::Engine* SendArgsOf(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm,
                        const char* what, p2p::SendArgs* args, Status* error) {
  Context* ctx = CurrentContext();
  if (ctx != nullptr && comm != nullptr && ctx->IsLive(comm) &&
      QuickSendArgs(*comm, buf, count, type, dest, tag, what, args)) {
    return &ctx->engine();
  }
  auto checked = CheckSend(buf, count, type, dest, tag, comm, what);
  if (!checked.ok()) {
    *error = checked.status().WithContext(what);
    return nullptr;
  }
  *args = checked->args;
  return checked->engine;
}

p2p::Engine* RecvArgsOf(void* buf, size_t count, grDataType_t type, int source, int tag, grComm_t comm,
                        const char* what, p2p::RecvArgs* args, Status* error) {
  Context* ctx = CurrentContext();
  if (ctx != nullptr && comm != nullptr && ctx->IsLive(comm) &&
      QuickRecvArgs(*comm, buf, count, type, source, tag, what, args)) {
    return &ctx->engine();
  }
  auto checked = CheckRecv(buf, count, type, source, tag, comm, what);
  if (!checked.ok()) {
    *error = checked.status().WithContext(what);
    return nullptr;
  }
  *args = checked->args;
  return checked->engine;
}

// Probe and Iprobe: argument errors are prefixed with `what`; the engine's
// errors (a dead source, a timeout) name the call already.
Status Probe(int source, int tag, grComm_t comm, bool block, int* flag, grStatus_t* status, const char* what) {
  auto checked = [&]() -> StatusOr<grComm*> {
    GR_ASSIGN_OR_RETURN(grComm * c, CheckComm(comm));
    GR_RETURN_IF_ERROR(CheckSource(*c, source));
    GR_RETURN_IF_ERROR(CheckRecvTag(tag));
    if (!block && flag == nullptr) return InvalidArgument("flag is null");
    return c;
  }();
  if (!checked.ok()) return checked.status().WithContext(what);
  grComm* c = *checked;
  bool found = false;
  grStatus_t filled;
  GR_RETURN_IF_ERROR(c->context->engine().Probe(c->context_id, source, tag, block, &found, &filled, what));
  if (flag != nullptr) *flag = found ? 1 : 0;
  if (found && status != GR_STATUS_IGNORE) *status = filled;
  return OkStatus();
}

}  // namespace
}  // namespace gpurun

using gpurun::ToResult;
namespace p2p = gpurun::p2p;
namespace group = gpurun::group;

extern "C" grResult_t grSend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm,
                             grStream_t stream) {
  if (group::Active()) [[unlikely]] {
    const group::P2pCall call{comm, true, const_cast<void*>(buf), count, type, dest, tag, GR_STATUS_IGNORE, stream};
    return ToResult(group::AddP2p(call).WithContext("grSend"));
  }
  if (stream != GR_STREAM_HOST) {
    return ToResult(gpurun::StreamSend(buf, count, type, dest, tag, comm, stream, "grSend").WithContext("grSend"));
  }
  p2p::SendArgs args;
  gpurun::Status error;
  p2p::Engine* engine = gpurun::SendArgsOf(buf, count, type, dest, tag, comm, "grSend", &args, &error);
  if (engine == nullptr) return ToResult(error);
  return ToResult(engine->Send(args));
}

extern "C" grResult_t grRecv(void* buf, size_t count, grDataType_t type, int source, int tag, grComm_t comm,
                             grStatus_t* status, grStream_t stream) {
  if (group::Active()) [[unlikely]] {
    const group::P2pCall call{comm, false, buf, count, type, source, tag, status, stream};
    return ToResult(group::AddP2p(call).WithContext("grRecv"));
  }
  if (stream != GR_STREAM_HOST) {
    return ToResult(
        gpurun::StreamRecv(buf, count, type, source, tag, comm, status, stream, "grRecv").WithContext("grRecv"));
  }
  p2p::RecvArgs args;
  gpurun::Status error;
  p2p::Engine* engine = gpurun::RecvArgsOf(buf, count, type, source, tag, comm, "grRecv", &args, &error);
  if (engine == nullptr) return ToResult(error);
  return ToResult(engine->Recv(args, status));
}

extern "C" grResult_t grIsend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm,
                              grStream_t stream, grRequest_t* request) {
  if (group::Active()) [[unlikely]]
    return ToResult(group::Refuse("grIsend"));
  if (request == nullptr) return ToResult(gpurun::InvalidArgument("grIsend: request is null"));
  if (stream != GR_STREAM_HOST) {
    const gpurun::Status s = gpurun::StreamSend(buf, count, type, dest, tag, comm, stream, "grIsend");
    if (s.ok()) *request = GR_REQUEST_NULL;
    return ToResult(s.WithContext("grIsend"));
  }
  p2p::SendArgs args;
  gpurun::Status error;
  p2p::Engine* engine = gpurun::SendArgsOf(buf, count, type, dest, tag, comm, "grIsend", &args, &error);
  if (engine == nullptr) return ToResult(error);
  auto started = engine->Isend(args);
  if (!started.ok()) return ToResult(started.status());
  *request = gpurun::ToHandle(*started);
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grIrecv(void* buf, size_t count, grDataType_t type, int source, int tag, grComm_t comm,
                              grStream_t stream, grRequest_t* request) {
  if (group::Active()) [[unlikely]]
    return ToResult(group::Refuse("grIrecv"));
  if (request == nullptr) return ToResult(gpurun::InvalidArgument("grIrecv: request is null"));
  if (stream != GR_STREAM_HOST) {
    const gpurun::Status s =
        gpurun::StreamRecv(buf, count, type, source, tag, comm, GR_STATUS_IGNORE, stream, "grIrecv");
    if (s.ok()) *request = GR_REQUEST_NULL;
    return ToResult(s.WithContext("grIrecv"));
  }
  p2p::RecvArgs args;
  gpurun::Status error;
  p2p::Engine* engine = gpurun::RecvArgsOf(buf, count, type, source, tag, comm, "grIrecv", &args, &error);
  if (engine == nullptr) return ToResult(error);
  auto started = engine->Irecv(args);
  if (!started.ok()) return ToResult(started.status());
  *request = gpurun::ToHandle(*started);
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grProbe(int source, int tag, grComm_t comm, grStatus_t* status) {
  return ToResult(gpurun::Probe(source, tag, comm, true, nullptr, status, "grProbe"));
}

extern "C" grResult_t grIprobe(int source, int tag, grComm_t comm, int* flag, grStatus_t* status) {
  return ToResult(gpurun::Probe(source, tag, comm, false, flag, status, "grIprobe"));
}

extern "C" grResult_t grSendrecv(const void* sendbuf, size_t sendcount, grDataType_t sendtype, int dest, int sendtag,
                                 void* recvbuf, size_t recvcount, grDataType_t recvtype, int source, int recvtag,
                                 grComm_t comm, grStatus_t* status, grStream_t stream) {
  if (group::Active()) [[unlikely]] {
    const group::P2pCall send{comm, true,    const_cast<void*>(sendbuf), sendcount, sendtype,
                              dest, sendtag, GR_STATUS_IGNORE,           stream};
    const group::P2pCall recv{comm, false, recvbuf, recvcount, recvtype, source, recvtag, status, stream};
    gpurun::Status s = group::AddP2p(send);
    if (s.ok()) s = group::AddP2p(recv);
    return ToResult(s.WithContext("grSendrecv"));
  }
  if (stream != GR_STREAM_HOST) {
    return ToResult(gpurun::StreamSendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                           source, recvtag, comm, status, stream)
                        .WithContext("grSendrecv"));
  }
  auto send = gpurun::CheckSend(sendbuf, sendcount, sendtype, dest, sendtag, comm, "grSendrecv");
  if (!send.ok()) return ToResult(send.status().WithContext("grSendrecv"));
  auto recv = gpurun::CheckRecv(recvbuf, recvcount, recvtype, source, recvtag, comm, "grSendrecv");
  if (!recv.ok()) return ToResult(recv.status().WithContext("grSendrecv"));
  p2p::Engine& engine = *send->engine;
  auto sent = engine.Isend(send->args);
  if (!sent.ok()) return ToResult(sent.status());
  auto received = engine.Irecv(recv->args);
  if (!received.ok()) {
    (void)engine.Wait(*sent, nullptr);
    return ToResult(received.status());
  }
  p2p::Request* requests[2] = {*sent, *received};
  grStatus_t statuses[2];
  const gpurun::Status result = engine.WaitAll(requests, statuses);
  if (status != GR_STATUS_IGNORE) *status = statuses[1];
  return ToResult(result);
}

extern "C" grResult_t grIssend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm,
                               grStream_t stream, grRequest_t* request) {
  if (request == nullptr) return ToResult(gpurun::InvalidArgument("grIssend: request is null"));
  if (stream != GR_STREAM_HOST) {
    return ToResult(gpurun::Unsupported("grIssend: stream-ordered synchronous sends are not supported"));
  }
  p2p::SendArgs args;
  gpurun::Status error;
  p2p::Engine* engine = gpurun::SendArgsOf(buf, count, type, dest, tag, comm, "grIssend", &args, &error);
  if (engine == nullptr) return ToResult(error);
  auto started = engine->Issend(args);
  if (!started.ok()) return ToResult(started.status());
  *request = gpurun::ToHandle(*started);
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grCancel(grRequest_t* request, int* cancelled) {
  if (request == nullptr || cancelled == nullptr) {
    return ToResult(gpurun::InvalidArgument("grCancel: request or cancelled is null"));
  }
  gpurun::Context* ctx = gpurun::CurrentContext();
  if (ctx == nullptr) return ToResult(gpurun::InvalidUsage("grCancel: gpurun is not initialized (call grInit first)"));
  bool done = false;
  const gpurun::Status s = ctx->engine().Cancel(reinterpret_cast<p2p::Request*>(*request), &done);
  if (!s.ok()) return ToResult(s.WithContext("grCancel"));
  *cancelled = done ? 1 : 0;
  if (done) *request = GR_REQUEST_NULL;
  return ToResult(gpurun::OkStatus());
}
