// Errors of the MPI layer: every entry point returns an MPI error class. A
// failing call records a detailed message for its thread (MPI_Error_string
// appends it) and goes through the communicator's error handler:
// MPI_ERRORS_ARE_FATAL prints the message and aborts the job (grAbort),
// MPI_ERRORS_RETURN returns the class, a user handler is called first.
#ifndef GPURUN_COMPAT_MPI_ERRORS_H_
#define GPURUN_COMPAT_MPI_ERRORS_H_

#include <string>

#include "gpurun/gpurun.h"
#include "mpi.h"

namespace gpurun::mpi {

// An MPI error class (MPI_SUCCESS when ok) and what went wrong.
struct Error {
  int cls = MPI_SUCCESS;
  std::string message;
  bool ok() const { return cls == MPI_SUCCESS; }
};

inline Error Ok() { return Error{}; }
inline Error Fail(int cls, std::string message) { return Error{cls, std::move(message)}; }

// The MPI class of a gr* result; the message is grGetLastErrorMessage().
Error FromGr(grResult_t result, const char* what);

// Propagates a failing Error.
#define MPI_RETURN_IF_ERROR(expr)     \
  do {                                \
    ::gpurun::mpi::Error e_ = (expr); \
    if (!e_.ok()) return e_;          \
  } while (0)

// Reports `error` of call `what` on `comm` through comm's error handler and
// returns the class to give the caller (or does not return: fatal handler).
// MPI_COMM_NULL / unknown handles use MPI_COMM_WORLD's handler.
int Report(MPI_Comm comm, const char* what, const Error& error);

// Reports through MPI_COMM_WORLD's handler (calls not tied to a communicator).
inline int ReportWorld(const char* what, const Error& error) { return Report(MPI_COMM_WORLD, what, error); }

// The standard string of an error class.
const char* ClassString(int cls);

// A call this layer does not implement: MPI_ERR_UNSUPPORTED_OPERATION with a
// message, through the handler of `comm`.
int Unsupported(MPI_Comm comm, const char* what);

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_ERRORS_H_
