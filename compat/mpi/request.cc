// The request table and MPI_Wait/Test and their variants.
#include "compat/mpi/request.h"

#include <chrono>
#include <mutex>
#include <thread>

#include "compat/mpi/init.h"

namespace gpurun::mpi {
namespace {

struct RequestTable {
  std::mutex mu;
  std::vector<std::unique_ptr<RequestEntry>> entries = std::vector<std::unique_ptr<RequestEntry>>(1);
  std::vector<MPI_Request> free;
  // Requests given up by MPI_Request_free while active: completed later.
  std::vector<std::unique_ptr<RequestEntry>> detached;
};

RequestTable& Requests() {
  static RequestTable* table = new RequestTable();
  return *table;
}

RequestEntry* Find(MPI_Request h) {
  RequestTable& t = Requests();
  std::lock_guard<std::mutex> lock(t.mu);
  if (h <= 0 || static_cast<size_t>(h) >= t.entries.size()) return nullptr;
  return t.entries[h].get();
}

std::unique_ptr<RequestEntry> Take(MPI_Request h) {
  RequestTable& t = Requests();
  std::lock_guard<std::mutex> lock(t.mu);
  std::unique_ptr<RequestEntry> e = std::move(t.entries[h]);
  t.free.push_back(h);
  return e;
}

MPI_Status FromGrStatus(const grStatus_t& s) {
  MPI_Status out = EmptyStatus();
  out.MPI_SOURCE = s.source;
  out.MPI_TAG = s.tag;
  out.gr_bytes = s.bytes;
  return out;
}

// The outcome of the entry's gpurun request, which completed with `r` and
// `s`: fills *status, unpacks a staged receive, returns the error. Call it
// right after the gr* call that completed it (the error's message is that
// call's grGetLastErrorMessage).
Error Finished(RequestEntry& e, grResult_t r, const grStatus_t& s, MPI_Status* status) {
  *status = e.recv ? FromGrStatus(s) : EmptyStatus();
  if (r != grSuccess && r != grTruncated) return FromGr(r, e.recv ? "receive" : "send");
  if (e.recv && e.type != nullptr) {
    MPI_RETURN_IF_ERROR(Unpack(e.staging.data(), s.bytes, e.count, *e.type, e.buf));
  }
  if (r == grTruncated) return FromGr(r, "receive");
  return Ok();
}

// Whether the entry's operation is done (block: waits); fills *status and
// returns its error when it is.
Error Progress(RequestEntry& e, bool block, bool* done, MPI_Status* status) {
  *done = false;
  Error result;
  if (e.complete) {
    *status = e.status;
    *done = true;
    return e.result;
  }
  if (e.task != nullptr) {
    if (!block && !e.task->Done()) return Ok();
    result = e.task->Wait();
    *status = EmptyStatus();
    *done = true;
    return result;
  }
  grStatus_t s{GR_ANY_SOURCE, GR_ANY_TAG, grSuccess, 0, 0};
  grResult_t r = grSuccess;
  if (block) {
    r = grWait(&e.gr, &s);
  } else {
    int flag = 0;
    r = grTest(&e.gr, &flag, &s);
    if (r == grSuccess && flag == 0) return Ok();
  }
  *done = true;
  return Finished(e, r, s, status);
}

// Completes requests given up by MPI_Request_free that have finished.
void ReapDetached() {
  RequestTable& t = Requests();
  std::vector<std::unique_ptr<RequestEntry>> pending;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    pending.swap(t.detached);
  }
  std::vector<std::unique_ptr<RequestEntry>> left;
  for (auto& e : pending) {
    bool done = false;
    MPI_Status st;
    Progress(*e, false, &done, &st);
    if (!done) left.push_back(std::move(e));
  }
  std::lock_guard<std::mutex> lock(t.mu);
  for (auto& e : left) t.detached.push_back(std::move(e));
}

void Backoff(int* spins) {
  if (++*spins < 100) return;
  std::this_thread::sleep_for(std::chrono::microseconds(*spins < 1000 ? 1 : 50));
}

}  // namespace

MPI_Status EmptyStatus(int source) { return MPI_Status{source, MPI_ANY_TAG, MPI_SUCCESS, 0, 0}; }

MPI_Request AddRequest(std::unique_ptr<RequestEntry> entry) {
  RequestTable& t = Requests();
  std::lock_guard<std::mutex> lock(t.mu);
  if (!t.free.empty()) {
    const MPI_Request h = t.free.back();
    t.free.pop_back();
    t.entries[h] = std::move(entry);
    return h;
  }
  t.entries.push_back(std::move(entry));
  return static_cast<MPI_Request>(t.entries.size() - 1);
}

Error CompleteRequest(MPI_Request* handle, bool block, bool* done, MPI_Status* status) {
  MPI_Status local;
  if (status == nullptr) status = &local;
  if (*handle == MPI_REQUEST_NULL) {
    *done = true;
    *status = EmptyStatus();
    return Ok();
  }
  RequestEntry* e = Find(*handle);
  if (e == nullptr) return Fail(MPI_ERR_REQUEST, "handle " + std::to_string(*handle) + " is not a request");
  Error result = Progress(*e, block, done, status);
  if (!*done) return Ok();
  status->MPI_ERROR = result.cls;
  Take(*handle);
  *handle = MPI_REQUEST_NULL;
  return result;
}

RequestEntry* FindRequest(MPI_Request handle) { return Find(handle); }

Error MarkCancelled(MPI_Request handle) {
  RequestEntry* e = Find(handle);
  if (e == nullptr) return Fail(MPI_ERR_REQUEST, "not a request");
  e->gr = GR_REQUEST_NULL;
  e->complete = true;
  e->result = Ok();
  e->status = EmptyStatus();
  e->status.gr_cancelled = 1;
  return Ok();
}

// Waits for every detached request (MPI_Finalize).
void CompleteDetached() {
  RequestTable& t = Requests();
  std::vector<std::unique_ptr<RequestEntry>> pending;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    pending.swap(t.detached);
  }
  for (auto& e : pending) {
    bool done = false;
    MPI_Status st;
    Progress(*e, true, &done, &st);
  }
}

}  // namespace gpurun::mpi

using gpurun::mpi::CompleteRequest;
using gpurun::mpi::Error;
using gpurun::mpi::Fail;

namespace {

// The communicator whose handler reports a request's error.
MPI_Comm CommOf(MPI_Request h) {
  gpurun::mpi::RequestEntry* e = gpurun::mpi::Find(h);
  return e != nullptr ? e->comm : MPI_COMM_WORLD;
}

// Whether every non-null request is a pending point-to-point one (staged
// receives included), so that gpurun's grWaitany can wait on them, bounded by
// GPURUN_TIMEOUT and failing on a dead peer. Otherwise the waits poll; that
// is bounded too, as a collective's task ends within its own gpurun waits'
// GPURUN_TIMEOUT and a completed request ends the wait at once.
bool AllGr(int count, const MPI_Request* reqs) {
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    gpurun::mpi::RequestEntry* e = gpurun::mpi::Find(reqs[i]);
    if (e == nullptr || e->task != nullptr || e->complete) return false;
  }
  return true;
}

// One pass over the requests: completes those done (block only for all-null
// checks), returns how many it completed; indices and statuses filled.
int TestSome(int count, MPI_Request* reqs, int* indices, MPI_Status* statuses, bool* any_error, bool* all_null,
             MPI_Comm* error_comm, Error* first) {
  int n = 0;
  *all_null = true;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    *all_null = false;
    const MPI_Comm comm = CommOf(reqs[i]);
    bool done = false;
    MPI_Status st;
    const Error e = CompleteRequest(&reqs[i], false, &done, &st);
    if (!done && e.ok()) continue;
    if (!e.ok()) {
      if (!*any_error) {
        *error_comm = comm;
        *first = e;
      }
      *any_error = true;
      st.MPI_ERROR = e.cls;
    }
    if (indices != nullptr) indices[n] = i;
    if (statuses != nullptr) statuses[n] = st;
    ++n;
  }
  return n;
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (request == nullptr) return gpurun::mpi::ReportWorld("MPI_Wait", Fail(MPI_ERR_REQUEST, "request is null"));
  const MPI_Comm comm = CommOf(*request);
  bool done = false;
  const Error e = CompleteRequest(request, true, &done, status);
  gpurun::mpi::ReapDetached();
  return e.ok() ? MPI_SUCCESS : gpurun::mpi::Report(comm, "MPI_Wait", e);
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (request == nullptr) return gpurun::mpi::ReportWorld("MPI_Test", Fail(MPI_ERR_REQUEST, "request is null"));
  const MPI_Comm comm = CommOf(*request);
  bool done = false;
  const Error e = CompleteRequest(request, false, &done, status);
  *flag = done;
  gpurun::mpi::ReapDetached();
  return e.ok() ? MPI_SUCCESS : gpurun::mpi::Report(comm, "MPI_Test", e);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  MPI_Comm error_comm = MPI_COMM_WORLD;
  Error first;
  for (int i = 0; i < count; ++i) {
    const MPI_Comm comm = CommOf(reqs[i]);
    bool done = false;
    MPI_Status st;
    const Error e = CompleteRequest(&reqs[i], true, &done, &st);
    if (!e.ok() && first.ok()) {
      first = e;
      error_comm = comm;
    }
    st.MPI_ERROR = e.cls;
    if (statuses != MPI_STATUSES_IGNORE) statuses[i] = st;
  }
  if (first.ok()) return MPI_SUCCESS;
  gpurun::mpi::Report(error_comm, "MPI_Waitall", first);
  return MPI_ERR_IN_STATUS;
}

int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  // MPI: complete them all only if all are complete. Test each without
  // completing by waiting only when every one is done.
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    gpurun::mpi::RequestEntry* e = gpurun::mpi::Find(reqs[i]);
    if (e == nullptr) return gpurun::mpi::ReportWorld("MPI_Testall", Fail(MPI_ERR_REQUEST, "not a request"));
    if (e->complete) continue;
    if (e->task != nullptr) {
      if (!e->task->Done()) {
        *flag = 0;
        return MPI_SUCCESS;
      }
      continue;
    }
    // A gpurun request: complete it now and keep its result as the entry's.
    bool done = false;
    MPI_Status st;
    gpurun::mpi::Error err = gpurun::mpi::Progress(*e, false, &done, &st);
    if (!done) {
      *flag = 0;
      return MPI_SUCCESS;
    }
    e->complete = true;
    st.MPI_ERROR = err.cls;
    e->status = st;
    e->result = err;
  }
  *flag = 1;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    const MPI_Comm comm = CommOf(reqs[i]);
    bool done = false;
    MPI_Status st;
    const Error err = CompleteRequest(&reqs[i], true, &done, &st);
    st.MPI_ERROR = err.cls;
    if (statuses != MPI_STATUSES_IGNORE) statuses[i] = st;
    if (!err.ok() && rc == MPI_SUCCESS) {
      gpurun::mpi::Report(comm, "MPI_Testall", err);
      rc = MPI_ERR_IN_STATUS;
    }
  }
  return rc;
}

int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  if (AllGr(count, reqs)) {
    std::vector<grRequest_t> gr(count, GR_REQUEST_NULL);
    for (int i = 0; i < count; ++i) {
      if (reqs[i] != MPI_REQUEST_NULL) gr[i] = gpurun::mpi::Find(reqs[i])->gr;
    }
    int which = -1;
    grStatus_t s;
    const grResult_t r = grWaitany(count, gr.data(), &which, &s);
    if (which < 0 && r == grSuccess) {
      *index = MPI_UNDEFINED;
      if (status != MPI_STATUS_IGNORE) *status = gpurun::mpi::EmptyStatus();
      return MPI_SUCCESS;
    }
    if (which < 0) {
      // A timeout: gpurun cancelled and freed every listed request.
      MPI_Comm comm = MPI_COMM_WORLD;
      for (int i = 0; i < count; ++i) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        comm = CommOf(reqs[i]);
        gpurun::mpi::Take(reqs[i]);
        reqs[i] = MPI_REQUEST_NULL;
      }
      *index = MPI_UNDEFINED;
      return gpurun::mpi::Report(comm, "MPI_Waitany", gpurun::mpi::FromGr(r, "grWaitany"));
    }
    const MPI_Comm comm = CommOf(reqs[which]);
    std::unique_ptr<gpurun::mpi::RequestEntry> e = gpurun::mpi::Take(reqs[which]);
    reqs[which] = MPI_REQUEST_NULL;
    *index = which;
    MPI_Status st;
    const Error err = gpurun::mpi::Finished(*e, r, s, &st);  // unpacks a staged receive
    st.MPI_ERROR = err.cls;
    if (status != MPI_STATUS_IGNORE) *status = st;
    return err.ok() ? MPI_SUCCESS : gpurun::mpi::Report(comm, "MPI_Waitany", err);
  }
  int spins = 0;
  while (true) {
    int idx = 0;
    bool any_error = false, all_null = false;
    MPI_Comm comm = MPI_COMM_WORLD;
    Error first;
    MPI_Status st;
    // One completion at most: test one by one and stop at the first done.
    for (int i = 0; i < count; ++i) {
      const int n = TestSome(1, &reqs[i], &idx, &st, &any_error, &all_null, &comm, &first);
      if (n > 0) {
        *index = i;
        if (status != MPI_STATUS_IGNORE) *status = st;
        return any_error ? gpurun::mpi::Report(comm, "MPI_Waitany", first) : MPI_SUCCESS;
      }
    }
    bool none = true;
    for (int i = 0; i < count; ++i) none = none && reqs[i] == MPI_REQUEST_NULL;
    if (none) {
      *index = MPI_UNDEFINED;
      if (status != MPI_STATUS_IGNORE) *status = gpurun::mpi::EmptyStatus();
      return MPI_SUCCESS;
    }
    gpurun::mpi::Backoff(&spins);
  }
}

int MPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  bool none = true;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    none = false;
    int idx = 0;
    bool any_error = false, all_null = false;
    MPI_Comm comm = MPI_COMM_WORLD;
    Error first;
    MPI_Status st;
    if (TestSome(1, &reqs[i], &idx, &st, &any_error, &all_null, &comm, &first) > 0) {
      *index = i;
      *flag = 1;
      if (status != MPI_STATUS_IGNORE) *status = st;
      return any_error ? gpurun::mpi::Report(comm, "MPI_Testany", first) : MPI_SUCCESS;
    }
  }
  *index = MPI_UNDEFINED;
  *flag = none;
  if (none && status != MPI_STATUS_IGNORE) *status = gpurun::mpi::EmptyStatus();
  return MPI_SUCCESS;
}

int MPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  bool any_error = false, all_null = false;
  MPI_Comm comm = MPI_COMM_WORLD;
  Error first;
  const int n = TestSome(incount, reqs, indices, statuses, &any_error, &all_null, &comm, &first);
  *outcount = all_null ? MPI_UNDEFINED : n;
  if (!any_error) return MPI_SUCCESS;
  gpurun::mpi::Report(comm, "MPI_Testsome", first);
  return MPI_ERR_IN_STATUS;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (AllGr(incount, reqs)) {
    // Point-to-point only: block in gpurun's wait (bounded by GPURUN_TIMEOUT),
    // then take whatever else has completed too.
    std::vector<int> active;
    for (int i = 0; i < incount; ++i) {
      if (reqs[i] != MPI_REQUEST_NULL) active.push_back(i);
    }
    int idx = MPI_UNDEFINED;
    MPI_Status st = gpurun::mpi::EmptyStatus();
    const int rc = MPI_Waitany(incount, reqs, &idx, &st);
    if (idx == MPI_UNDEFINED && rc != MPI_SUCCESS) {
      // Timed out: every active request was cancelled and freed.
      for (size_t k = 0; k < active.size(); ++k) {
        indices[k] = active[k];
        if (statuses != MPI_STATUSES_IGNORE) {
          statuses[k] = gpurun::mpi::EmptyStatus();
          statuses[k].MPI_ERROR = rc;
        }
      }
      *outcount = static_cast<int>(active.size());
      return MPI_ERR_IN_STATUS;
    }
    if (idx == MPI_UNDEFINED) {
      *outcount = MPI_UNDEFINED;
      return rc;
    }
    st.MPI_ERROR = rc;
    indices[0] = idx;
    if (statuses != MPI_STATUSES_IGNORE) statuses[0] = st;
    int more = 0;
    const int rest = MPI_Testsome(incount, reqs, &more, indices + 1,
                                  statuses != MPI_STATUSES_IGNORE ? statuses + 1 : MPI_STATUSES_IGNORE);
    *outcount = 1 + (more == MPI_UNDEFINED ? 0 : more);
    return rc != MPI_SUCCESS || rest != MPI_SUCCESS ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
  }
  // Collectives or completed requests among them: poll (bounded: see AllGr).
  int spins = 0;
  while (true) {
    const int rc = MPI_Testsome(incount, reqs, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    gpurun::mpi::Backoff(&spins);
  }
}

int MPI_Request_free(MPI_Request* request) {
  if (request == nullptr || *request == MPI_REQUEST_NULL || gpurun::mpi::Find(*request) == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Request_free", Fail(MPI_ERR_REQUEST, "not an active request"));
  }
  std::unique_ptr<gpurun::mpi::RequestEntry> e = gpurun::mpi::Take(*request);
  *request = MPI_REQUEST_NULL;
  {
    gpurun::mpi::RequestTable& t = gpurun::mpi::Requests();
    std::lock_guard<std::mutex> lock(t.mu);
    t.detached.push_back(std::move(e));
  }
  gpurun::mpi::ReapDetached();
  return MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) *status = gpurun::mpi::EmptyStatus();
    return MPI_SUCCESS;
  }
  gpurun::mpi::RequestEntry* e = gpurun::mpi::Find(request);
  if (e == nullptr) return gpurun::mpi::ReportWorld("MPI_Request_get_status", Fail(MPI_ERR_REQUEST, "not a request"));
  if (!e->complete) {
    bool done = false;
    MPI_Status st;
    if (e->task != nullptr) {
      done = e->task->Done();
      st = gpurun::mpi::EmptyStatus();
      if (done) st.MPI_ERROR = e->task->Wait().cls;
    } else {
      const Error err = gpurun::mpi::Progress(*e, false, &done, &st);
      st.MPI_ERROR = err.cls;
    }
    if (done && e->task == nullptr) {
      e->complete = true;  // gpurun freed its request; keep the outcome
      e->status = st;
      e->result = st.MPI_ERROR == MPI_SUCCESS ? Error{} : Fail(st.MPI_ERROR, "the operation failed");
    }
    *flag = done;
    if (done && status != MPI_STATUS_IGNORE) *status = st;
    return MPI_SUCCESS;
  }
  *flag = 1;
  if (status != MPI_STATUS_IGNORE) *status = e->status;
  return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  *flag = status->gr_cancelled;
  return MPI_SUCCESS;
}

}  // extern "C"
