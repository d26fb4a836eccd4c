// Point-to-point calls over gpurun's messages. Contiguous datatypes move as
// bytes straight from and into the user's buffer (host or GPU memory);
// others are packed into (or received into and unpacked from) host staging
// buffers. MPI_PROC_NULL completes at once with an empty status.
#include <climits>
#include <cstring>
#include <mutex>

#include "compat/mpi/comm.h"
#include "compat/mpi/datatype.h"
#include "compat/mpi/request.h"

namespace gpurun::mpi {
namespace {

// The checked arguments of one send or receive.
struct P2pArgs {
  std::shared_ptr<Comm> comm;
  std::shared_ptr<const Datatype> type;
  size_t bytes = 0;  // count * type size
};

Error CheckArgs(MPI_Comm comm, const void* buf, int count, MPI_Datatype datatype, int peer, int tag, bool recv,
                P2pArgs* out) {
  MPI_RETURN_IF_ERROR(CheckComm(comm, &out->comm));
  if (count < 0) return Fail(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
  MPI_RETURN_IF_ERROR(CheckType(datatype, "datatype", &out->type));
  const Comm& c = *out->comm;
  const bool any = recv && peer == MPI_ANY_SOURCE;
  if (peer != MPI_PROC_NULL && !any && (peer < 0 || peer >= c.size)) {
    return Fail(MPI_ERR_RANK, std::string(recv ? "source " : "destination ") + std::to_string(peer) +
                                  " is not a rank of a communicator of " + std::to_string(c.size));
  }
  if (!(recv && tag == MPI_ANY_TAG) && (tag < 0 || tag > GR_TAG_UB)) {
    return Fail(MPI_ERR_TAG, "tag " + std::to_string(tag) + " is outside 0.." + std::to_string(GR_TAG_UB));
  }
  out->bytes = static_cast<size_t>(count) * out->type->size;
  if (buf == nullptr && out->bytes > 0 && out->type->true_lb == 0) {
    return Fail(MPI_ERR_BUFFER, "the buffer is null for " + std::to_string(count) + " elements");
  }
  return Ok();
}

// Starts a send (sync: MPI_Issend's semantics) and registers its request.
Error StartSend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, bool sync,
                MPI_Request* request) {
  P2pArgs a;
  MPI_RETURN_IF_ERROR(CheckArgs(comm, buf, count, datatype, dest, tag, false, &a));
  if (request == nullptr) return Fail(MPI_ERR_ARG, "request is null");
  auto e = std::make_unique<RequestEntry>();
  e->comm = comm;
  if (dest == MPI_PROC_NULL) {
    e->complete = true;
    e->status = EmptyStatus(MPI_PROC_NULL);
    *request = AddRequest(std::move(e));
    return Ok();
  }
  const void* data = buf;
  if (!a.type->Contiguous()) {
    e->packed.resize(a.bytes);
    MPI_RETURN_IF_ERROR(Pack(buf, count, *a.type, e->packed.data()));
    data = e->packed.data();
  }
  const grResult_t r = sync ? grIssend(data, a.bytes, grByte, dest, tag, a.comm->gr, GR_STREAM_HOST, &e->gr)
                            : grIsend(data, a.bytes, grByte, dest, tag, a.comm->gr, GR_STREAM_HOST, &e->gr);
  if (r != grSuccess) return FromGr(r, sync ? "grIssend" : "grIsend");
  *request = AddRequest(std::move(e));
  return Ok();
}

Error StartRecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  P2pArgs a;
  MPI_RETURN_IF_ERROR(CheckArgs(comm, buf, count, datatype, source, tag, true, &a));
  if (request == nullptr) return Fail(MPI_ERR_ARG, "request is null");
  auto e = std::make_unique<RequestEntry>();
  e->comm = comm;
  e->recv = true;
  if (source == MPI_PROC_NULL) {
    e->complete = true;
    e->status = EmptyStatus(MPI_PROC_NULL);
    *request = AddRequest(std::move(e));
    return Ok();
  }
  void* data = buf;
  if (!a.type->Contiguous()) {
    e->staging.resize(a.bytes);
    e->buf = buf;
    e->count = count;
    e->type = a.type;
    data = e->staging.data();
  }
  const grResult_t r = grIrecv(data, a.bytes, grByte, source, tag, a.comm->gr, GR_STREAM_HOST, &e->gr);
  if (r != grSuccess) return FromGr(r, "grIrecv");
  *request = AddRequest(std::move(e));
  return Ok();
}

// A blocking send: the contiguous case without a request.
Error BlockingSend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, bool sync) {
  if (!sync) {
    P2pArgs a;
    MPI_RETURN_IF_ERROR(CheckArgs(comm, buf, count, datatype, dest, tag, false, &a));
    if (dest == MPI_PROC_NULL) return Ok();
    if (a.type->Contiguous()) {
      return FromGr(grSend(buf, a.bytes, grByte, dest, tag, a.comm->gr, GR_STREAM_HOST), "grSend");
    }
  }
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_RETURN_IF_ERROR(StartSend(buf, count, datatype, dest, tag, comm, sync, &req));
  bool done = false;
  return CompleteRequest(&req, true, &done, nullptr);
}

MPI_Status StatusOf(const grStatus_t& s) {
  MPI_Status out = EmptyStatus();
  out.MPI_SOURCE = s.source;
  out.MPI_TAG = s.tag;
  out.gr_bytes = s.bytes;
  return out;
}

Error BlockingRecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Status* status) {
  P2pArgs a;
  MPI_RETURN_IF_ERROR(CheckArgs(comm, buf, count, datatype, source, tag, true, &a));
  if (source == MPI_PROC_NULL) {
    if (status != MPI_STATUS_IGNORE) *status = EmptyStatus(MPI_PROC_NULL);
    return Ok();
  }
  if (a.type->Contiguous()) {
    grStatus_t s{GR_ANY_SOURCE, GR_ANY_TAG, grSuccess, 0, 0};
    const grResult_t r = grRecv(buf, a.bytes, grByte, source, tag, a.comm->gr, &s, GR_STREAM_HOST);
    if (status != MPI_STATUS_IGNORE && (r == grSuccess || r == grTruncated)) *status = StatusOf(s);
    return gpurun::mpi::FromGr(r, "grRecv");
  }
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_RETURN_IF_ERROR(StartRecv(buf, count, datatype, source, tag, comm, &req));
  bool done = false;
  return CompleteRequest(&req, true, &done, status);
}

// MPI_Buffer_attach's buffer and the buffered sends still using parts of it.
struct Attached {
  std::mutex mu;
  std::byte* base = nullptr;
  size_t size = 0;
  struct Use {
    size_t offset, bytes;
    MPI_Request request;
  };
  std::vector<Use> uses;  // by offset
};

Attached& Buffer() {
  static Attached* b = new Attached();
  return *b;
}

// Forgets buffered sends that have completed (lock held).
void ReapBuffered(Attached& b) {
  std::vector<Attached::Use> left;
  for (Attached::Use& u : b.uses) {
    int flag = 0;
    MPI_Status st;
    bool done = false;
    CompleteRequest(&u.request, false, &done, &st);
    flag = done;
    if (!flag) left.push_back(u);
  }
  b.uses.swap(left);
}

Error BufferedSend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  P2pArgs a;
  MPI_RETURN_IF_ERROR(CheckArgs(comm, buf, count, datatype, dest, tag, false, &a));
  auto done = std::make_unique<RequestEntry>();
  done->comm = comm;
  done->complete = true;
  done->status = EmptyStatus();
  if (dest != MPI_PROC_NULL) {
    Attached& b = Buffer();
    std::lock_guard<std::mutex> lock(b.mu);
    ReapBuffered(b);
    // First fit between the uses (kept sorted by offset).
    const size_t need = a.bytes + MPI_BSEND_OVERHEAD;
    size_t at = 0;
    size_t slot = 0;
    for (; slot < b.uses.size(); ++slot) {
      if (b.uses[slot].offset >= at + need) break;
      at = b.uses[slot].offset + b.uses[slot].bytes;
    }
    if (b.base == nullptr || at + need > b.size) {
      return Fail(MPI_ERR_BUFFER, "the attached buffer (" + std::to_string(b.size) + " bytes) has no room for " +
                                      std::to_string(a.bytes) + " bytes plus MPI_BSEND_OVERHEAD");
    }
    MPI_RETURN_IF_ERROR(Pack(buf, count, *a.type, b.base + at));
    grRequest_t gr = GR_REQUEST_NULL;
    const grResult_t r = grIsend(b.base + at, a.bytes, grByte, dest, tag, a.comm->gr, GR_STREAM_HOST, &gr);
    if (r != grSuccess) return gpurun::mpi::FromGr(r, "grIsend");
    auto e = std::make_unique<RequestEntry>();
    e->comm = comm;
    e->gr = gr;
    b.uses.insert(b.uses.begin() + slot, Attached::Use{at, need, AddRequest(std::move(e))});
  }
  if (request != nullptr) *request = AddRequest(std::move(done));
  return Ok();
}

}  // namespace
}  // namespace gpurun::mpi

using gpurun::mpi::Error;
using gpurun::mpi::Fail;
using gpurun::mpi::Report;

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const Error e = gpurun::mpi::BlockingSend(buf, count, datatype, dest, tag, comm, false);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Send", e);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const Error e = gpurun::mpi::BlockingSend(buf, count, datatype, dest, tag, comm, true);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Ssend", e);
}

// A ready send may be a standard one (MPI 4.0 §3.4: same semantics when a receive is posted).
int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const Error e = gpurun::mpi::BlockingSend(buf, count, datatype, dest, tag, comm, false);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Rsend", e);
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const Error e = gpurun::mpi::BufferedSend(buf, count, datatype, dest, tag, comm, nullptr);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Bsend", e);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  const Error e = gpurun::mpi::BufferedSend(buf, count, datatype, dest, tag, comm, request);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Ibsend", e);
}

int MPI_Buffer_attach(void* buffer, int size) {
  gpurun::mpi::Attached& b = gpurun::mpi::Buffer();
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.base != nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Buffer_attach", Fail(MPI_ERR_BUFFER, "a buffer is already attached"));
  }
  if (buffer == nullptr || size < 0) {
    return gpurun::mpi::ReportWorld("MPI_Buffer_attach", Fail(MPI_ERR_BUFFER, "null buffer or negative size"));
  }
  b.base = static_cast<std::byte*>(buffer);
  b.size = static_cast<size_t>(size);
  return MPI_SUCCESS;
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  gpurun::mpi::Attached& b = gpurun::mpi::Buffer();
  std::lock_guard<std::mutex> lock(b.mu);
  if (b.base == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Buffer_detach", Fail(MPI_ERR_BUFFER, "no buffer is attached"));
  }
  // Blocks until every buffered message has been sent (MPI 4.0 §3.6.1).
  for (gpurun::mpi::Attached::Use& u : b.uses) {
    bool done = false;
    gpurun::mpi::CompleteRequest(&u.request, true, &done, nullptr);
  }
  b.uses.clear();
  *static_cast<void**>(buffer_addr) = b.base;
  *size = static_cast<int>(b.size);
  b.base = nullptr;
  b.size = 0;
  return MPI_SUCCESS;
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  const Error e = gpurun::mpi::BlockingRecv(buf, count, datatype, source, tag, comm, status);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Recv", e);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  const Error e = gpurun::mpi::StartSend(buf, count, datatype, dest, tag, comm, false, request);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Isend", e);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  const Error e = gpurun::mpi::StartSend(buf, count, datatype, dest, tag, comm, true, request);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Issend", e);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  const Error e = gpurun::mpi::StartSend(buf, count, datatype, dest, tag, comm, false, request);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Irsend", e);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  const Error e = gpurun::mpi::StartRecv(buf, count, datatype, source, tag, comm, request);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Irecv", e);
}

int MPI_Cancel(MPI_Request* request) {
  if (request == nullptr || *request == MPI_REQUEST_NULL) {
    return gpurun::mpi::ReportWorld("MPI_Cancel", Fail(MPI_ERR_REQUEST, "the request is MPI_REQUEST_NULL"));
  }
  gpurun::mpi::RequestEntry* e = gpurun::mpi::FindRequest(*request);
  if (e == nullptr) return gpurun::mpi::ReportWorld("MPI_Cancel", Fail(MPI_ERR_REQUEST, "not a request"));
  // Only a receive not matched yet can be withdrawn; sends and collectives
  // complete normally (MPI_Test_cancelled then says false), as MPI allows.
  if (!e->recv || e->complete || e->gr == GR_REQUEST_NULL) return MPI_SUCCESS;
  int cancelled = 0;
  const grResult_t r = grCancel(&e->gr, &cancelled);
  if (r != grSuccess) return Report(e->comm, "MPI_Cancel", gpurun::mpi::FromGr(r, "grCancel"));
  if (cancelled) gpurun::mpi::MarkCancelled(*request);
  return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  gpurun::mpi::P2pArgs a;
  Error e = gpurun::mpi::CheckArgs(comm, nullptr, 0, MPI_BYTE, source, tag, true, &a);
  if (e.ok() && source == MPI_PROC_NULL) {
    if (status != MPI_STATUS_IGNORE) *status = gpurun::mpi::EmptyStatus(MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  grStatus_t s{GR_ANY_SOURCE, GR_ANY_TAG, grSuccess, 0, 0};
  if (e.ok()) e = gpurun::mpi::FromGr(grProbe(source, tag, a.comm->gr, &s), "grProbe");
  if (!e.ok()) return Report(comm, "MPI_Probe", e);
  if (status != MPI_STATUS_IGNORE) *status = gpurun::mpi::StatusOf(s);
  return MPI_SUCCESS;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  gpurun::mpi::P2pArgs a;
  Error e = gpurun::mpi::CheckArgs(comm, nullptr, 0, MPI_BYTE, source, tag, true, &a);
  if (e.ok() && source == MPI_PROC_NULL) {
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) *status = gpurun::mpi::EmptyStatus(MPI_PROC_NULL);
    return MPI_SUCCESS;
  }
  grStatus_t s{GR_ANY_SOURCE, GR_ANY_TAG, grSuccess, 0, 0};
  if (e.ok()) e = gpurun::mpi::FromGr(grIprobe(source, tag, a.comm->gr, flag, &s), "grIprobe");
  if (!e.ok()) return Report(comm, "MPI_Iprobe", e);
  if (*flag && status != MPI_STATUS_IGNORE) *status = gpurun::mpi::StatusOf(s);
  return MPI_SUCCESS;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  Error e = gpurun::mpi::StartRecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &reqs[0]);
  if (e.ok()) e = gpurun::mpi::StartSend(sendbuf, sendcount, sendtype, dest, sendtag, comm, false, &reqs[1]);
  bool done = false;
  MPI_Status recv_status;
  // Both requests complete (their buffers are the caller's) before returning.
  const Error recv_e = gpurun::mpi::CompleteRequest(&reqs[0], true, &done, &recv_status);
  const Error send_e = gpurun::mpi::CompleteRequest(&reqs[1], true, &done, nullptr);
  if (e.ok()) e = !recv_e.ok() ? recv_e : send_e;
  if (!e.ok()) return Report(comm, "MPI_Sendrecv", e);
  if (status != MPI_STATUS_IGNORE) *status = recv_status;
  return MPI_SUCCESS;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status) {
  std::shared_ptr<const gpurun::mpi::Datatype> t;
  Error e = gpurun::mpi::CheckType(datatype, "datatype", &t);
  if (!e.ok()) return Report(comm, "MPI_Sendrecv_replace", e);
  if (count < 0) return Report(comm, "MPI_Sendrecv_replace", Fail(MPI_ERR_COUNT, "negative count"));
  // The outgoing data is packed first; the message received replaces it.
  std::vector<std::byte> packed(static_cast<size_t>(count) * t->size);
  e = gpurun::mpi::Pack(buf, count, *t, packed.data());
  if (!e.ok()) return Report(comm, "MPI_Sendrecv_replace", e);
  return MPI_Sendrecv(packed.data(), static_cast<int>(packed.size()), MPI_BYTE, dest, sendtag, buf, count, datatype,
                      source, recvtag, comm, status);
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr || status == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Get_count", Fail(MPI_ERR_TYPE, "not a datatype"));
  }
  if (t->size == 0) {
    *count = status->gr_bytes == 0 ? 0 : MPI_UNDEFINED;
  } else {
    *count = status->gr_bytes % t->size == 0 ? static_cast<int>(status->gr_bytes / t->size) : MPI_UNDEFINED;
  }
  return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr || status == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Get_elements", Fail(MPI_ERR_TYPE, "not a datatype"));
  }
  if (t->elem == gpurun::mpi::Elem::kNone || t->elem_count == 0) return MPI_Get_count(status, datatype, count);
  const size_t elem = t->size / t->elem_count;
  *count = status->gr_bytes % elem == 0 ? static_cast<int>(status->gr_bytes / elem) : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

}  // extern "C"
