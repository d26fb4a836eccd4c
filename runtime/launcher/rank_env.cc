// Per-rank environment (see rank_env.h).
#include "runtime/launcher/rank_env.h"

namespace gpurun::launcher {

EnvBlock EnvBlock::FromEnviron(const char* const* environ_array) {
  EnvBlock env;
  for (const char* const* e = environ_array; e != nullptr && *e != nullptr; ++e) env.SetEntry(*e);
  return env;
}

void EnvBlock::Set(std::string_view name, std::string_view value) {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    entries_.emplace(std::string(name), std::string(value));
  } else {
    it->second = std::string(value);
  }
}

void EnvBlock::SetEntry(std::string_view entry) {
  const size_t eq = entry.find('=');
  if (eq == std::string_view::npos || eq == 0) return;
  Set(entry.substr(0, eq), entry.substr(eq + 1));
}

std::optional<std::string> EnvBlock::Get(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> EnvBlock::Entries() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [name, value] : entries_) {
    std::string entry;
    entry.reserve(name.size() + 1 + value.size());
    entry.append(name).append("=").append(value);
    out.push_back(std::move(entry));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ResolveExports(std::span<const ExportVar> exports,
                                                                const EnvLookup& lookup,
                                                                std::vector<std::string>* missing) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ExportVar& var : exports) {
    if (var.value) {
      out.emplace_back(var.name, *var.value);
    } else if (std::optional<std::string> value = lookup(var.name)) {
      out.emplace_back(var.name, *value);
    } else if (missing != nullptr) {
      missing->push_back(var.name);
    }
  }
  return out;
}

EnvLookup LookupWithAssignments(std::span<const ExportVar> exports, EnvLookup base) {
  std::vector<ExportVar> assigned(exports.begin(), exports.end());
  return [assigned = std::move(assigned), base = std::move(base)](std::string_view name) -> std::optional<std::string> {
    for (auto it = assigned.rbegin(); it != assigned.rend(); ++it) {
      if (it->name == name && it->value) return it->value;
    }
    return base(name);
  };
}

void SetRankIdentity(const RankIdentity& id, EnvBlock& env) {
  const std::string rank = std::to_string(id.rank);
  const std::string size = std::to_string(id.size);
  const std::string local_rank = std::to_string(id.local_rank);
  const std::string local_size = std::to_string(id.local_size);
  env.Set("GPURUN_RANK", rank);
  env.Set("GPURUN_SIZE", size);
  env.Set("GPURUN_LOCAL_RANK", local_rank);
  env.Set("GPURUN_LOCAL_SIZE", local_size);
  env.Set("GPURUN_JOB_ID", id.job_id);
  env.Set("OMPI_COMM_WORLD_RANK", rank);
  env.Set("OMPI_COMM_WORLD_SIZE", size);
  env.Set("OMPI_COMM_WORLD_LOCAL_RANK", local_rank);
  env.Set("OMPI_COMM_WORLD_LOCAL_SIZE", local_size);
  env.Set("MPI_LOCALRANKID", local_rank);
}

}  // namespace gpurun::launcher
