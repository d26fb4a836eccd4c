// Stream-ordered point-to-point calls (p2p_stream.h).
#include "runtime/p2p_stream.h"

#include <string>

#include "runtime/buffer_place.h"
#include "runtime/comm_coll.h"
#include "runtime/context.h"
#include "runtime/global_context.h"
#include "runtime/p2p_args.h"

namespace gpurun {
namespace {

#if GPURUN_HAVE_GPU_COLL
coll::StreamSend ToSend(const p2p::SendArgs& a) { return coll::StreamSend{a.data, a.bytes, a.dest, a.tag}; }

StatusOr<coll::StreamRecv> ToRecv(const p2p::RecvArgs& a, grStatus_t* status) {
  if (a.source == GR_ANY_SOURCE) {
    return Unsupported(
        "a stream-ordered receive needs its source: GR_ANY_SOURCE would need the host to match "
        "messages, which a stream-ordered call does not wait for");
  }
  coll::StreamRecv r;
  r.buf = a.data;
  r.room = a.capacity;
  r.peer = a.source;
  r.tag = a.tag;
  r.status = status == GR_STATUS_IGNORE ? nullptr : status;
  r.type_size = a.type_size;
  return r;
}

Status Run(grComm& comm, int device, const coll::StreamSend* send, const coll::StreamRecv* recv, grStream_t stream) {
  GR_ASSIGN_OR_RETURN(coll::StreamP2p * p, CollOf(comm).stream_p2p(device));
  return p->Run(send, recv, stream);
}
#endif

}  // namespace

Status StreamSend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm, grStream_t stream,
                  const char* what) {
  GR_ASSIGN_OR_RETURN(grComm * c, CheckComm(comm));
  GR_ASSIGN_OR_RETURN(const p2p::SendArgs args, MakeSendArgs(*c, buf, count, type, dest, tag, what));
  GR_ASSIGN_OR_RETURN(const int device, StreamDeviceOf({buf}, {"the send buffer"}));
#if GPURUN_HAVE_GPU_COLL
  const coll::StreamSend send = ToSend(args);
  return Run(*c, device, &send, nullptr, stream);
#else
  (void)args;
  (void)device;
  (void)stream;
  return Unsupported("this build has no GPU path");
#endif
}

Status StreamRecv(void* buf, size_t count, grDataType_t type, int source, int tag, grComm_t comm, grStatus_t* status,
                  grStream_t stream, const char* what) {
  GR_ASSIGN_OR_RETURN(grComm * c, CheckComm(comm));
  GR_ASSIGN_OR_RETURN(const p2p::RecvArgs args, MakeRecvArgs(*c, buf, count, type, source, tag, what));
  GR_ASSIGN_OR_RETURN(const int device, StreamDeviceOf({buf}, {"the receive buffer"}));
#if GPURUN_HAVE_GPU_COLL
  GR_ASSIGN_OR_RETURN(const coll::StreamRecv recv, ToRecv(args, status));
  return Run(*c, device, nullptr, &recv, stream);
#else
  (void)args;
  (void)device;
  (void)stream;
  (void)status;
  return Unsupported("this build has no GPU path");
#endif
}

Status StreamSendrecv(const void* sendbuf, size_t sendcount, grDataType_t sendtype, int dest, int sendtag,
                      void* recvbuf, size_t recvcount, grDataType_t recvtype, int source, int recvtag, grComm_t comm,
                      grStatus_t* status, grStream_t stream) {
  GR_ASSIGN_OR_RETURN(grComm * c, CheckComm(comm));
  GR_ASSIGN_OR_RETURN(const p2p::SendArgs sargs,
                      MakeSendArgs(*c, sendbuf, sendcount, sendtype, dest, sendtag, "grSendrecv"));
  GR_ASSIGN_OR_RETURN(const p2p::RecvArgs rargs,
                      MakeRecvArgs(*c, recvbuf, recvcount, recvtype, source, recvtag, "grSendrecv"));
  GR_ASSIGN_OR_RETURN(const int device, StreamDeviceOf({sendbuf, recvbuf}, {"sendbuf", "recvbuf"}));
#if GPURUN_HAVE_GPU_COLL
  const coll::StreamSend send = ToSend(sargs);
  GR_ASSIGN_OR_RETURN(const coll::StreamRecv recv, ToRecv(rargs, status));
  return Run(*c, device, &send, &recv, stream);
#else
  (void)sargs;
  (void)rargs;
  (void)device;
  (void)stream;
  (void)status;
  return Unsupported("this build has no GPU path");
#endif
}

Status StreamGroup(const std::vector<group::P2pCall>& calls) {
  if (calls.empty()) return OkStatus();
  GR_ASSIGN_OR_RETURN(grComm * c, CheckComm(calls.front().comm));
#if GPURUN_HAVE_GPU_COLL
  std::vector<coll::StreamSend> sends;
  std::vector<coll::StreamRecv> recvs;
  int device = -1;
  for (const group::P2pCall& call : calls) {
    const char* what = call.send ? "grSend" : "grRecv";
    GR_ASSIGN_OR_RETURN(const int d,
                        StreamDeviceOf({call.buf}, {call.send ? "the send buffer" : "the receive buffer"}));
    if (device >= 0 && d != device) {
      return InvalidUsage(std::string(what) + " in a group: its buffer is on GPU " + std::to_string(d) +
                          ", another call's of the same stream on GPU " + std::to_string(device));
    }
    device = d;
    if (call.send) {
      GR_ASSIGN_OR_RETURN(const p2p::SendArgs args,
                          MakeSendArgs(*c, call.buf, call.count, call.type, call.peer, call.tag, what));
      sends.push_back(ToSend(args));
    } else {
      GR_ASSIGN_OR_RETURN(const p2p::RecvArgs args,
                          MakeRecvArgs(*c, call.buf, call.count, call.type, call.peer, call.tag, what));
      GR_ASSIGN_OR_RETURN(const coll::StreamRecv recv, ToRecv(args, call.status));
      recvs.push_back(recv);
    }
  }
  GR_ASSIGN_OR_RETURN(coll::StreamP2p * p, CollOf(*c).stream_p2p(device));
  return p->RunGroup(sends, recvs, calls.front().stream);
#else
  (void)c;
  return Unsupported("this build has no GPU path");
#endif
}

}  // namespace gpurun
