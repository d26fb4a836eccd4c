// AgreeOnSuccess (agree.h).
#include "coll/host/agree.h"

#include <string>
#include <vector>

namespace gpurun::coll {

Status AgreeOnSuccess(CommLink& link, const Status& mine, std::string_view what) {
  const char ok = mine.ok() ? 1 : 0;
  std::vector<char> all(static_cast<size_t>(link.size()));
  GR_RETURN_IF_ERROR(link.AllGather(&ok, 1, all.data()));
  if (!mine.ok()) return mine;
  for (int r = 0; r < link.size(); ++r) {
    if (all[static_cast<size_t>(r)] == 0) return RemoteError(std::string(what) + " failed on " + link.DescribePeer(r));
  }
  return OkStatus();
}

}  // namespace gpurun::coll
