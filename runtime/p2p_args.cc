// Point-to-point argument checks (see p2p_args.h).
#include "runtime/p2p_args.h"

#include <limits>
#include <string>

namespace gpurun {
namespace {

// Indexed by grDataType_t.
constexpr const char* kTypeNames[grNumDataTypes] = {
    "grInt8",   "grUint8",   "grInt32",   "grUint32",  "grInt64",
    "grUint64", "grFloat16", "grFloat32", "grFloat64", "grBfloat16",
};

bool ValidType(grDataType_t type) { return static_cast<int>(type) >= 0 && type < grNumDataTypes; }

std::string Range(int size) { return "[0, " + std::to_string(size) + ")"; }

Status CheckDest(const grComm& comm, int dest) {
  if (dest >= 0 && dest < comm.size) return OkStatus();
  return InvalidArgument("destination rank " + std::to_string(dest) + " is outside the communicator's ranks " +
                         Range(comm.size));
}

Status CheckSendTag(int tag) {
  if (tag >= 0 && tag <= GR_TAG_UB) return OkStatus();
  return InvalidArgument("tag " + std::to_string(tag) + " is outside [0, GR_TAG_UB = " + std::to_string(GR_TAG_UB) +
                         "] (a send takes no wildcard)");
}

}  // namespace

StatusOr<size_t> DataTypeSize(grDataType_t type) {
  if (!ValidType(type)) return InvalidArgument(DataTypeName(type) + " is not a grDataType_t");
  return internal::kTypeSizes[type];
}

std::string DataTypeName(grDataType_t type) {
  if (ValidType(type)) return kTypeNames[type];
  return "datatype " + std::to_string(static_cast<int>(type));
}

StatusOr<size_t> BufferBytes(const void* buf, size_t count, grDataType_t type, const char* name) {
  GR_ASSIGN_OR_RETURN(const size_t size, DataTypeSize(type));
  if (count > std::numeric_limits<size_t>::max() / size) {
    return InvalidArgument("count " + std::to_string(count) + " of " + DataTypeName(type) + " (" +
                           std::to_string(size) + " bytes each) overflows the byte count");
  }
  if (buf == nullptr && count > 0) {
    return InvalidArgument(std::string(name) + " is null but count is " + std::to_string(count));
  }
  return count * size;
}

Status CheckSource(const grComm& comm, int source) {
  if (source == GR_ANY_SOURCE || (source >= 0 && source < comm.size)) return OkStatus();
  return InvalidArgument("source rank " + std::to_string(source) + " is neither GR_ANY_SOURCE nor in " +
                         Range(comm.size));
}

Status CheckRecvTag(int tag) {
  if (tag == GR_ANY_TAG || (tag >= 0 && tag <= GR_TAG_UB)) return OkStatus();
  return InvalidArgument("tag " + std::to_string(tag) +
                         " is neither GR_ANY_TAG nor in [0, GR_TAG_UB = " + std::to_string(GR_TAG_UB) + "]");
}

StatusOr<p2p::SendArgs> MakeSendArgs(const grComm& comm, const void* buf, size_t count, grDataType_t type, int dest,
                                     int tag, const char* what) {
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(buf, count, type, "the send buffer"));
  GR_RETURN_IF_ERROR(CheckDest(comm, dest));
  GR_RETURN_IF_ERROR(CheckSendTag(tag));
  return p2p::SendArgs{comm.context_id, comm.rank, dest, comm.world_ranks[dest], tag, buf, bytes, what};
}

StatusOr<p2p::RecvArgs> MakeRecvArgs(const grComm& comm, void* buf, size_t count, grDataType_t type, int source,
                                     int tag, const char* what) {
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(buf, count, type, "the receive buffer"));
  GR_RETURN_IF_ERROR(CheckSource(comm, source));
  GR_RETURN_IF_ERROR(CheckRecvTag(tag));
  const int source_world = source == GR_ANY_SOURCE ? -1 : comm.world_ranks[source];
  return p2p::RecvArgs{comm.context_id, source, source_world, tag, buf, bytes, internal::kTypeSizes[type], what};
}

}  // namespace gpurun
