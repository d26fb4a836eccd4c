// The environment each rank starts with. Pure: no process environment access
// (the caller passes gpurun's environment in), so it is unit-tested.
//
// Order of precedence, last wins: gpurun's environment, the -x assignments,
// the PMIx variables from PMIx_server_setup_fork, the rank's identity.
#ifndef GPURUN_RUNTIME_LAUNCHER_RANK_ENV_H_
#define GPURUN_RUNTIME_LAUNCHER_RANK_ENV_H_

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/base/env.h"
#include "runtime/launcher/options.h"

namespace gpurun::launcher {

// A set of NAME=value entries, one per name.
class EnvBlock {
 public:
  EnvBlock() = default;
  // From "NAME=value" entries (a C environ-style array, null-terminated).
  static EnvBlock FromEnviron(const char* const* environ_array);

  void Set(std::string_view name, std::string_view value);
  // "NAME=value"; entries without '=' are ignored.
  void SetEntry(std::string_view entry);
  std::optional<std::string> Get(std::string_view name) const;
  size_t size() const { return entries_.size(); }

  // "NAME=value" strings, sorted by name.
  std::vector<std::string> Entries() const;

 private:
  std::map<std::string, std::string, std::less<>> entries_;  // name → value
};

// -x assignments with their values: VAR=value as given, VAR from `lookup`.
// VARs that `lookup` does not know are left out and named in `missing`.
std::vector<std::pair<std::string, std::string>> ResolveExports(std::span<const ExportVar> exports,
                                                                const EnvLookup& lookup,
                                                                std::vector<std::string>* missing);

// A lookup that sees the -x VAR=value assignments over `base` (used to load
// the parameters and for --print-params).
EnvLookup LookupWithAssignments(std::span<const ExportVar> exports, EnvLookup base);

struct RankIdentity {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  std::string job_id;
};

// Adds GPURUN_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE/JOB_ID and the Open MPI
// compatible OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE and MPI_LOCALRANKID.
void SetRankIdentity(const RankIdentity& id, EnvBlock& env);

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_RANK_ENV_H_
