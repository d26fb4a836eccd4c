// Error classes, error handlers and their MPI calls.
#include "compat/mpi/errors.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "compat/mpi/comm.h"
#include "compat/mpi/init.h"

namespace gpurun::mpi {
namespace {

// The calling thread's last error (MPI_Error_string appends its message).
thread_local Error t_last;

constexpr MPI_Errhandler kFirstUserHandler = 4;

struct HandlerTable {
  std::mutex mu;
  std::vector<MPI_Comm_errhandler_function*> fns = std::vector<MPI_Comm_errhandler_function*>(kFirstUserHandler);
};

HandlerTable& Handlers() {
  static HandlerTable* table = new HandlerTable();
  return *table;
}

MPI_Comm_errhandler_function* UserHandler(MPI_Errhandler h) {
  HandlerTable& t = Handlers();
  std::lock_guard<std::mutex> lock(t.mu);
  if (h < kFirstUserHandler || static_cast<size_t>(h) >= t.fns.size()) return nullptr;
  return t.fns[h];
}

[[noreturn]] void Fatal(MPI_Comm comm, const char* what, const Error& error) {
  int rank = -1;
  if (IsInitialized()) grCommRank(grCommWorld(), &rank);
  std::fprintf(stderr, "[gpurun MPI rank %d] %s: %s: %s (MPI_ERRORS_ARE_FATAL: aborting the job)\n", rank, what,
               ClassString(error.cls), error.message.c_str());
  std::fflush(stderr);
  const int code = error.cls >= 1 && error.cls <= 255 ? error.cls : 1;
  if (IsInitialized()) {
    auto c = FindComm(comm);
    grAbort(c != nullptr ? c->gr : grCommWorld(), code);
  }
  std::_Exit(code);
}

}  // namespace

Error FromGr(grResult_t result, const char* what) {
  int cls = MPI_ERR_OTHER;
  switch (result) {
    case grSuccess: return Ok();
    case grInvalidArgument: cls = MPI_ERR_ARG; break;
    case grInvalidUsage: cls = MPI_ERR_OTHER; break;
    case grTruncated: cls = MPI_ERR_TRUNCATE; break;
    case grRemoteError: cls = MPI_ERR_PROC_ABORTED; break;
    case grTimeout: cls = MPI_ERR_TIMEOUT; break;
    case grSystemError: cls = MPI_ERR_OTHER; break;
    case grInternalError: cls = MPI_ERR_INTERN; break;
    case grUnsupported: cls = MPI_ERR_UNSUPPORTED_OPERATION; break;
    default: break;
  }
  const std::string detail = grGetLastErrorMessage();
  // gpurun's messages usually name the call already ("grIssend: ...").
  if (detail.rfind(std::string(what) + ":", 0) == 0) return Fail(cls, detail);
  return Fail(cls, std::string(what) + ": " + detail);
}

int Report(MPI_Comm comm, const char* what, const Error& error) {
  if (error.ok()) return MPI_SUCCESS;
  t_last = error;
  auto c = IsInitialized() ? FindComm(comm) : nullptr;
  if (c == nullptr) c = IsInitialized() ? FindComm(MPI_COMM_WORLD) : nullptr;
  const MPI_Errhandler h = c != nullptr ? c->errhandler.load() : MPI_ERRORS_ARE_FATAL;
  if (h == MPI_ERRORS_RETURN) return error.cls;
  if (MPI_Comm_errhandler_function* fn = UserHandler(h)) {
    MPI_Comm handle = c != nullptr ? comm : MPI_COMM_WORLD;
    int code = error.cls;
    fn(&handle, &code);
    return error.cls;
  }
  Fatal(comm, what, error);
}

const char* ClassString(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS: no errors";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP: return "MPI_ERR_OP: invalid reduce operation";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid communicator topology";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS: invalid topology dimension";
    case MPI_ERR_ARG: return "MPI_ERR_ARG: invalid argument of some other kind";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER: known error not in list";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN: internal error";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in status";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_KEYVAL: return "MPI_ERR_KEYVAL: invalid key value";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM: out of memory";
    case MPI_ERR_INFO: return "MPI_ERR_INFO: invalid info object";
    case MPI_ERR_WIN: return "MPI_ERR_WIN: invalid window";
    case MPI_ERR_PROC_ABORTED: return "MPI_ERR_PROC_ABORTED: a peer process failed or aborted";
    case MPI_ERR_TIMEOUT: return "MPI_ERR_TIMEOUT: the operation exceeded GPURUN_TIMEOUT";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported";
    case MPI_ERR_NOT_SAME: return "MPI_ERR_NOT_SAME: collective arguments not identical on all processes";
    default: return nullptr;
  }
}

int Unsupported(MPI_Comm comm, const char* what) {
  return Report(comm, what,
                Fail(MPI_ERR_UNSUPPORTED_OPERATION,
                     std::string(what) + " is outside gpurun's MPI layer (one-sided communication, graph "
                                         "topologies and neighborhood collectives are not supported)"));
}

}  // namespace gpurun::mpi

using gpurun::mpi::Error;
using gpurun::mpi::Fail;
using gpurun::mpi::Report;

extern "C" {

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  const char* base = gpurun::mpi::ClassString(errorcode);
  if (base == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Error_string", Fail(MPI_ERR_ARG, "not an error code"));
  }
  std::string text = base;
  // The calling thread's last failure of this class says what happened.
  if (errorcode != MPI_SUCCESS && gpurun::mpi::t_last.cls == errorcode && !gpurun::mpi::t_last.message.empty()) {
    text += " (" + gpurun::mpi::t_last.message + ")";
  }
  text = text.substr(0, MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text.c_str(), text.size() + 1);
  *resultlen = static_cast<int>(text.size());
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  if (gpurun::mpi::ClassString(errorcode) == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Error_class", Fail(MPI_ERR_ARG, "not an error code"));
  }
  *errorclass = errorcode;
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  std::shared_ptr<gpurun::mpi::Comm> c;
  const Error e = gpurun::mpi::CheckComm(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Comm_set_errhandler", e);
  const bool builtin =
      errhandler == MPI_ERRORS_ARE_FATAL || errhandler == MPI_ERRORS_RETURN || errhandler == MPI_ERRORS_ABORT;
  if (!builtin && gpurun::mpi::UserHandler(errhandler) == nullptr) {
    return Report(comm, "MPI_Comm_set_errhandler", Fail(MPI_ERR_ARG, "not an error handler"));
  }
  c->errhandler = errhandler == MPI_ERRORS_ABORT ? MPI_ERRORS_ARE_FATAL : errhandler;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  std::shared_ptr<gpurun::mpi::Comm> c;
  const Error e = gpurun::mpi::CheckComm(comm, &c);
  if (!e.ok()) return Report(comm, "MPI_Comm_get_errhandler", e);
  *errhandler = c->errhandler.load();
  return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  if (function == nullptr)
    return gpurun::mpi::ReportWorld("MPI_Comm_create_errhandler", Fail(MPI_ERR_ARG, "null function"));
  gpurun::mpi::HandlerTable& t = gpurun::mpi::Handlers();
  std::lock_guard<std::mutex> lock(t.mu);
  t.fns.push_back(function);
  *errhandler = static_cast<MPI_Errhandler>(t.fns.size() - 1);
  return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  Report(comm, "MPI_Comm_call_errhandler", Fail(errorcode, "called by the program"));
  return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  *errhandler = MPI_ERRHANDLER_NULL;  // communicators keep using theirs, as MPI says
  return MPI_SUCCESS;
}

}  // extern "C"
