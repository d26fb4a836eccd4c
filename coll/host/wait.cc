// Error texts of the executor's waits (wait.h).
#include "coll/host/wait.h"

#include <sstream>

namespace gpurun::coll {
namespace {

std::string Where(const WaitSite& site, int peer, uint64_t step, const char* what) {
  std::ostringstream os;
  os << FuncName(site.func) << " " << AlgoName(site.algo) << "/" << ProtocolName(site.proto) << " channel "
     << site.channel << " step " << step << ": waiting for " << what << " " << site.link->DescribePeer(peer);
  return os.str();
}

}  // namespace

Status WaitError(const WaitSite& site, int peer, uint64_t step, const char* what, const Status& cause) {
  return Status(cause.code(), Where(site, peer, step, what) + ": " + cause.message());
}

Status CheckOtherRanks(const WaitSite& site, int peer) {
  CommLink& link = *site.link;
  for (int r = 0; r < link.size(); ++r) {
    if (r == link.rank() || r == peer) continue;
    if (Status s = link.CheckPeer(r); !s.ok()) {
      return Status(s.code(),
                    "another rank of the communicator failed, so the steps stopped coming round: " + s.message());
    }
  }
  return OkStatus();
}

Status WaitTimeout(const WaitSite& site, int peer, uint64_t step, const char* what) {
  std::ostringstream os;
  os << Where(site, peer, step, what) << ": no progress in " << site.timeout_s << " s (GPURUN_TIMEOUT)";
  return TimeoutError(os.str());
}

}  // namespace gpurun::coll
