// RunPlaced, RunPlacedGroup (coll_placed.h).
#include "runtime/coll_placed.h"

#include <vector>

#include "runtime/buffer_place.h"
#include "runtime/comm_coll.h"

namespace gpurun {

Status RunPlaced(grComm& comm, const coll::CollCall& call, grStream_t stream) {
  GR_ASSIGN_OR_RETURN(const Placement place, PlaceCollective(call.send, call.recv, stream));
  if (place.device) return RunGpuColl(comm, call, place.ordinal, stream);
  return RunHostColl(comm, call);
}

Status RunPlacedGroup(grComm& comm, std::span<const coll::CollCall> calls, grStream_t stream) {
  std::vector<Placement> places;
  places.reserve(calls.size());
  for (const coll::CollCall& call : calls) {
    GR_ASSIGN_OR_RETURN(const Placement place, PlaceCollective(call.send, call.recv, stream));
    places.push_back(place);
  }
  for (size_t i = 0; i < calls.size();) {
    if (!places[i].device) {
      GR_RETURN_IF_ERROR(RunHostColl(comm, calls[i]));
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < calls.size() && places[end].device && places[end].ordinal == places[i].ordinal) ++end;
    GR_RETURN_IF_ERROR(RunGpuCollGroup(comm, calls.subspan(i, end - i), places[i].ordinal, stream));
    i = end;
  }
  return OkStatus();
}

}  // namespace gpurun
