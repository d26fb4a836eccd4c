// Cross-memory attach: reading another process's memory with
// process_vm_readv, the single-copy path of the shm rendezvous, and writing
// it with process_vm_writev, the sender's part of a shared copy
// (shm_share.h). Whether the kernel lets this process read a peer (ptrace
// permission, Yama, seccomp) is probed once at wire creation by reading a
// known word of the peer; writing takes the same permission.
//
// Thread safety: stateless functions.
#ifndef GPURUN_P2P_SHM_SHM_CMA_H_
#define GPURUN_P2P_SHM_SHM_CMA_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "runtime/base/status.h"

namespace gpurun::p2p::shm {

// Copies `bytes` bytes at `remote_address` in process `pid` to `dst`, looping
// over partial reads. grRemoteError when the process is gone, grSystemError
// otherwise (naming the pid and errno).
Status CmaRead(pid_t pid, uint64_t remote_address, void* dst, size_t bytes);
// The other way: `bytes` bytes at `src` here to `remote_address` in `pid`.
Status CmaWrite(pid_t pid, uint64_t remote_address, const void* src, size_t bytes);

// Whether process_vm_readv of `pid` works: reads the 8-byte word at
// `remote_address` and checks that it equals `expected`.
Status ProbeCma(pid_t pid, uint64_t remote_address, uint64_t expected);

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_CMA_H_
