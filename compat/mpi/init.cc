// MPI_Init/Finalize and the world-level calls (time, names, versions).
#include "compat/mpi/init.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "compat/mpi/comm.h"
#include "compat/mpi/request.h"
#include "gpurun/gpurun.h"
#include "mpi.h"

namespace gpurun::mpi {
namespace {

enum class Phase { kBefore, kRunning, kFinalized };
std::atomic<Phase> g_phase{Phase::kBefore};
std::thread::id g_main_thread;

// The level granted: every gr* call is thread-safe and so is this layer.
constexpr int kThreadLevel = MPI_THREAD_MULTIPLE;

Error Start(int* argc, char*** argv) {
  if (g_phase.load() != Phase::kBefore) {
    return Fail(MPI_ERR_OTHER, g_phase.load() == Phase::kRunning ? "MPI is already initialized"
                                                                 : "MPI cannot be initialized after MPI_Finalize");
  }
  const grResult_t r = grInit(argc, argv);
  if (r != grSuccess) return FromGr(r, "grInit");
  std::shared_ptr<Comm> made;
  MPI_RETURN_IF_ERROR(MakeComm(grCommWorld(), &made));
  made->predefined = true;
  made->owns_gr = false;  // gpurun's world communicator
  made->name = "MPI_COMM_WORLD";
  const int world_rank = made->rank;
  grComm_t self_gr = GR_COMM_NULL;
  const grResult_t s = grCommSplit(made->coll, world_rank, 0, &self_gr);
  if (s != grSuccess) return FromGr(s, "making MPI_COMM_SELF");
  InsertComm(std::move(made), MPI_COMM_WORLD);
  std::shared_ptr<Comm> self;
  MPI_RETURN_IF_ERROR(MakeComm(self_gr, &self));
  self->name = "MPI_COMM_SELF";
  self->predefined = true;
  InsertComm(std::move(self), MPI_COMM_SELF);
  g_main_thread = std::this_thread::get_id();
  g_phase = Phase::kRunning;
  return Ok();
}

}  // namespace

bool IsInitialized() { return g_phase.load() == Phase::kRunning; }

Error CheckInitialized() {
  if (IsInitialized()) return Ok();
  return Fail(MPI_ERR_OTHER,
              g_phase.load() == Phase::kBefore ? "MPI_Init has not been called" : "MPI_Finalize has been called");
}

}  // namespace gpurun::mpi

using gpurun::mpi::Error;
using gpurun::mpi::Fail;
using gpurun::mpi::ReportWorld;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const Error e = gpurun::mpi::Start(argc, argv);
  return e.ok() ? MPI_SUCCESS : ReportWorld("MPI_Init", e);
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
    return ReportWorld("MPI_Init_thread", Fail(MPI_ERR_ARG, "required is not a thread level"));
  }
  const Error e = gpurun::mpi::Start(argc, argv);
  if (!e.ok()) return ReportWorld("MPI_Init_thread", e);
  if (provided != nullptr) *provided = gpurun::mpi::kThreadLevel;
  return MPI_SUCCESS;
}

int MPI_Finalize(void) {
  const Error e = gpurun::mpi::CheckInitialized();
  if (!e.ok()) return ReportWorld("MPI_Finalize", e);
  // Every rank's nonblocking collectives have been completed by now (MPI
  // requires it); the queues stop, then the gpurun communicators go.
  gpurun::mpi::CompleteDetached();
  gpurun::mpi::FreeAllComms();
  gpurun::mpi::g_phase = gpurun::mpi::Phase::kFinalized;
  const grResult_t r = grFinalize();
  return r == grSuccess ? MPI_SUCCESS : ReportWorld("MPI_Finalize", gpurun::mpi::FromGr(r, "grFinalize"));
}

int MPI_Initialized(int* flag) {
  *flag = gpurun::mpi::g_phase.load() != gpurun::mpi::Phase::kBefore;
  return MPI_SUCCESS;
}

int MPI_Finalized(int* flag) {
  *flag = gpurun::mpi::g_phase.load() == gpurun::mpi::Phase::kFinalized;
  return MPI_SUCCESS;
}

int MPI_Query_thread(int* provided) {
  *provided = gpurun::mpi::kThreadLevel;
  return MPI_SUCCESS;
}

int MPI_Is_thread_main(int* flag) {
  *flag = std::this_thread::get_id() == gpurun::mpi::g_main_thread;
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode) {
  auto c = gpurun::mpi::FindComm(comm);
  const int code = errorcode >= 1 && errorcode <= 255 ? errorcode : 1;
  grAbort(c != nullptr ? c->gr : grCommWorld(), code);
  // Without a runtime (before MPI_Init) there is no job to abort but this process.
  std::_Exit(code);
}

double MPI_Wtime(void) {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

double MPI_Wtick(void) { return 1e-9; }

int MPI_Get_processor_name(char* name, int* resultlen) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  grPeerInfo_t info;
  int rank = 0;
  if (gpurun::mpi::IsInitialized() && grCommRank(grCommWorld(), &rank) == grSuccess &&
      grCommPeerInfo(grCommWorld(), rank, &info) == grSuccess) {
    std::snprintf(host, sizeof(host), "%s", info.host);
  } else {
    gethostname(host, sizeof(host) - 1);
  }
  std::memcpy(name, host, std::strlen(host) + 1);
  *resultlen = static_cast<int>(std::strlen(host));
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Get_library_version(char* version, int* resultlen) {
  int v = 0;
  grGetVersion(&v);
  const std::string text = "gpurun MPI compatibility layer (gpurun " + std::to_string(v / 10000) + "." +
                           std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) + "), MPI " +
                           std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION) + " subset";
  std::memcpy(version, text.c_str(), text.size() + 1);
  *resultlen = static_cast<int>(text.size());
  return MPI_SUCCESS;
}

int MPI_Alloc_mem(MPI_Aint size, MPI_Info, void* baseptr) {
  void* p = std::malloc(size > 0 ? static_cast<size_t>(size) : 1);
  if (p == nullptr) return ReportWorld("MPI_Alloc_mem", Fail(MPI_ERR_NO_MEM, "out of memory"));
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}

int MPI_Free_mem(void* base) {
  std::free(base);
  return MPI_SUCCESS;
}

// Info objects carry hints only; gpurun takes none, so they are accepted and ignored.
int MPI_Info_create(MPI_Info* info) {
  *info = 2;
  return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info, const char*, const char*) { return MPI_SUCCESS; }

int MPI_Info_free(MPI_Info* info) {
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

}  // extern "C"
