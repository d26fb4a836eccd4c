// One call of the collective a row measures, through the public API:
// out of place with separate buffers, in place with NCCL's in-place pointers
// (bcast in place is MPI's grBcast, out of place NCCL's grBroadcast).
#ifndef GPURUN_BENCH_COLL_CALL_H_
#define GPURUN_BENCH_COLL_CALL_H_

#include "bench/coll_buffers.h"
#include "gpurun/gpurun.h"

grResult_t CallColl(const CollCase& c, const CollBuffers& b, grComm_t comm);

// The API function CallColl uses for this case ("grAllreduce", "grBcast", ...), for messages.
const char* CollApiName(const CollCase& c);

#endif  // GPURUN_BENCH_COLL_CALL_H_
