// One-sided communication is not implemented: every MPI_Win_* call and the
// RMA operations fail with MPI_ERR_UNSUPPORTED_OPERATION and a message,
// through the error handler of the communicator (window creation) or of
// MPI_COMM_WORLD (calls on a window, which can never exist).
#include "compat/mpi/errors.h"

using gpurun::mpi::Unsupported;

extern "C" {

int MPI_Win_create(void*, MPI_Aint, int, MPI_Info, MPI_Comm comm, MPI_Win* win) {
  *win = MPI_WIN_NULL;
  return Unsupported(comm, "MPI_Win_create");
}
int MPI_Win_allocate(MPI_Aint, int, MPI_Info, MPI_Comm comm, void*, MPI_Win* win) {
  *win = MPI_WIN_NULL;
  return Unsupported(comm, "MPI_Win_allocate");
}
int MPI_Win_allocate_shared(MPI_Aint, int, MPI_Info, MPI_Comm comm, void*, MPI_Win* win) {
  *win = MPI_WIN_NULL;
  return Unsupported(comm, "MPI_Win_allocate_shared");
}
int MPI_Win_create_dynamic(MPI_Info, MPI_Comm comm, MPI_Win* win) {
  *win = MPI_WIN_NULL;
  return Unsupported(comm, "MPI_Win_create_dynamic");
}
int MPI_Win_free(MPI_Win*) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_free"); }
int MPI_Win_fence(int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_fence"); }
int MPI_Win_lock(int, int, int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_lock"); }
int MPI_Win_unlock(int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_unlock"); }
int MPI_Win_lock_all(int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_lock_all"); }
int MPI_Win_unlock_all(MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_unlock_all"); }
int MPI_Win_flush(int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_flush"); }
int MPI_Win_flush_all(MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_flush_all"); }
int MPI_Win_flush_local(int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_flush_local"); }
int MPI_Win_sync(MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_sync"); }
int MPI_Win_post(MPI_Group, int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_post"); }
int MPI_Win_start(MPI_Group, int, MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_start"); }
int MPI_Win_complete(MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_complete"); }
int MPI_Win_wait(MPI_Win) { return Unsupported(MPI_COMM_WORLD, "MPI_Win_wait"); }
int MPI_Put(const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win) {
  return Unsupported(MPI_COMM_WORLD, "MPI_Put");
}
int MPI_Get(void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win) {
  return Unsupported(MPI_COMM_WORLD, "MPI_Get");
}
int MPI_Accumulate(const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win) {
  return Unsupported(MPI_COMM_WORLD, "MPI_Accumulate");
}
int MPI_Get_accumulate(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype,
                       MPI_Op, MPI_Win) {
  return Unsupported(MPI_COMM_WORLD, "MPI_Get_accumulate");
}
int MPI_Fetch_and_op(const void*, void*, MPI_Datatype, int, MPI_Aint, MPI_Op, MPI_Win) {
  return Unsupported(MPI_COMM_WORLD, "MPI_Fetch_and_op");
}
int MPI_Compare_and_swap(const void*, const void*, void*, MPI_Datatype, int, MPI_Aint, MPI_Win) {
  return Unsupported(MPI_COMM_WORLD, "MPI_Compare_and_swap");
}

}  // extern "C"
