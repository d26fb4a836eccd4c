// Point-to-point calls with a real stream (api_p2p.cc): checked here, then
// enqueued on the communicator's coll::StreamP2p (coll/gpu/stream_p2p.h):
// the call returns at once and the message moves when the stream gets
// there, as NCCL's ncclSend/ncclRecv. Buffers must be GPU memory; a
// receive names its source. `what` is the C function's name for errors.
#ifndef GPURUN_RUNTIME_P2P_STREAM_H_
#define GPURUN_RUNTIME_P2P_STREAM_H_

#include <cstddef>

#include <vector>

#include "gpurun/gpurun.h"
#include "runtime/base/status.h"
#include "runtime/group.h"

namespace gpurun {

Status StreamSend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm, grStream_t stream,
                  const char* what);

Status StreamRecv(void* buf, size_t count, grDataType_t type, int source, int tag, grComm_t comm, grStatus_t* status,
                  grStream_t stream, const char* what);

Status StreamSendrecv(const void* sendbuf, size_t sendcount, grDataType_t sendtype, int dest, int sendtag,
                      void* recvbuf, size_t recvcount, grDataType_t recvtype, int source, int recvtag, grComm_t comm,
                      grStatus_t* status, grStream_t stream);

// A group's stream-ordered sends and receives of one communicator and
// stream (group.h), checked and run in one launch (StreamP2p::RunGroup).
Status StreamGroup(const std::vector<group::P2pCall>& calls);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_P2P_STREAM_H_
