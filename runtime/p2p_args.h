// Validation of point-to-point arguments at the C boundary (api_p2p.cc):
// element types, buffer sizes, ranks, tags and streams, turned into the
// engine's SendArgs/RecvArgs. Every check fails with grInvalidArgument (a
// stream: grUnsupported) and a message naming the offending value; callers
// add the C function's name.
#ifndef GPURUN_RUNTIME_P2P_ARGS_H_
#define GPURUN_RUNTIME_P2P_ARGS_H_

#include <cstddef>

#include "gpurun/gpurun.h"
#include "p2p/engine.h"
#include "runtime/base/status.h"
#include "runtime/comm.h"

namespace gpurun {

// Size in bytes of one element; InvalidArgument for a value outside grDataType_t.
StatusOr<size_t> DataTypeSize(grDataType_t type);
// "grFloat32", or "datatype 42" for a bad value.
std::string DataTypeName(grDataType_t type);

// GR_STREAM_HOST passes; a real stream is grUnsupported in this build.
Status CheckHostStream(grStream_t stream);
// count * size of `type`, checking the type, the product's overflow, and that
// `buf` is not null when there is something to move. `name` names the buffer.
StatusOr<size_t> BufferBytes(const void* buf, size_t count, grDataType_t type, const char* name);
// A source for a receive or probe: GR_ANY_SOURCE or a rank of comm.
Status CheckSource(const grComm& comm, int source);
// A tag for a receive or probe: GR_ANY_TAG or 0..GR_TAG_UB.
Status CheckRecvTag(int tag);

// Everything a send needs, checked (`what` is the C function's name, kept
// by the request for its error messages).
StatusOr<p2p::SendArgs> MakeSendArgs(const grComm& comm, const void* buf, size_t count, grDataType_t type, int dest,
                                     int tag, const char* what);
StatusOr<p2p::RecvArgs> MakeRecvArgs(const grComm& comm, void* buf, size_t count, grDataType_t type, int source,
                                     int tag, const char* what);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_P2P_ARGS_H_
