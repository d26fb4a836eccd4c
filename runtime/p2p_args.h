// Validation of point-to-point arguments at the C boundary (api_p2p.cc):
// element types, buffer sizes, ranks and tags, turned into the engine's
// SendArgs/RecvArgs (streams: buffer_place.h). Every check fails with
// grInvalidArgument and a message naming the offending value; callers
// add the C function's name.
#ifndef GPURUN_RUNTIME_P2P_ARGS_H_
#define GPURUN_RUNTIME_P2P_ARGS_H_

#include <cstddef>
#include <limits>

#include "gpurun/gpurun.h"
#include "p2p/engine.h"
#include "runtime/base/status.h"
#include "runtime/comm.h"

namespace gpurun {

// Size in bytes of one element; InvalidArgument for a value outside grDataType_t.
StatusOr<size_t> DataTypeSize(grDataType_t type);
// "grFloat32", or "datatype 42" for a bad value.
std::string DataTypeName(grDataType_t type);

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

namespace internal {

// Element sizes, indexed by grDataType_t.
inline constexpr size_t kTypeSizes[grNumDataTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};

// Bytes of `count` elements of `type`; false for a bad type, an overflow, or
// a null buffer with something to move.
inline bool QuickBytes(const void* buf, size_t count, grDataType_t type, size_t* bytes) {
  if (static_cast<int>(type) < 0 || type >= grNumDataTypes) return false;
  const size_t size = kTypeSizes[type];
  if (count > std::numeric_limits<size_t>::max() / size || (buf == nullptr && count > 0)) return false;
  *bytes = count * size;
  return true;
}

}  // namespace internal

// The same checks for the hot path, inline: true with *args filled when every
// argument is valid, without building a Status; false (and *args
// unspecified) otherwise, when Make*Args says what is wrong.
inline bool QuickSendArgs(const grComm& comm, const void* buf, size_t count, grDataType_t type, int dest, int tag,
                          const char* what, p2p::SendArgs* args) {
  size_t bytes = 0;
  if (!internal::QuickBytes(buf, count, type, &bytes) || dest < 0 || dest >= comm.size || tag < 0 || tag > GR_TAG_UB) {
    return false;
  }
  *args = p2p::SendArgs{comm.context_id, comm.rank, dest, comm.world_ranks[dest], tag, buf, bytes, what};
  return true;
}

inline bool QuickRecvArgs(const grComm& comm, void* buf, size_t count, grDataType_t type, int source, int tag,
                          const char* what, p2p::RecvArgs* args) {
  size_t bytes = 0;
  if (!internal::QuickBytes(buf, count, type, &bytes)) return false;
  if (source != GR_ANY_SOURCE && (source < 0 || source >= comm.size)) return false;
  if (tag != GR_ANY_TAG && (tag < 0 || tag > GR_TAG_UB)) return false;
  const int source_world = source == GR_ANY_SOURCE ? -1 : comm.world_ranks[source];
  *args = p2p::RecvArgs{comm.context_id, source, source_world, tag, buf, bytes, internal::kTypeSizes[type], what};
  return true;
}

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_P2P_ARGS_H_
