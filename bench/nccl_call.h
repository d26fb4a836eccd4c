// One call of a row's case through NCCL (CUDA builds only), with the same
// buffers and in-place pointers as gpurun's (coll_call.h). NCCL's own
// collectives for allreduce, broadcast (in place too), reduce, allgather and
// reducescatter; alltoall, gather, scatter and sendrecv as grouped
// ncclSend/ncclRecv, as nccl-tests does; no barrier, and no in-place alltoall
// or sendrecv (NCCL documents none).
#ifndef GPURUN_BENCH_NCCL_CALL_H_
#define GPURUN_BENCH_NCCL_CALL_H_

#include <cuda_runtime.h>
#include <nccl.h>

#include "bench/coll_buffers.h"
#include "bench/nccl_loader.h"

// Whether NCCL has this case (the same answer on every rank).
bool NcclHas(const CollCase& c);

// The NCCL function a case uses, for messages.
const char* NcclApiName(const CollCase& c);

// Enqueues the case on `stream`; the first NCCL error, if any.
ncclResult_t CallNccl(const NcclApi& api, ncclComm_t comm, cudaStream_t stream, const CollCase& c, BufferView b);

#endif  // GPURUN_BENCH_NCCL_CALL_H_
