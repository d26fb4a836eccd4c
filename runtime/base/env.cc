// Environment access (see env.h).
#include "runtime/base/env.h"

#include <cstdlib>
#include <cstring>

extern char** environ;

namespace gpurun {

std::optional<std::string> GetEnv(std::string_view name) {
  const std::string key(name);
  const char* value = std::getenv(key.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

EnvLookup ProcessEnv() {
  return [](std::string_view name) { return GetEnv(name); };
}

std::vector<std::string> EnvNamesWithPrefix(std::string_view prefix) {
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    if (entry.substr(0, prefix.size()) != prefix) continue;
    names.emplace_back(entry.substr(0, entry.find('=')));
  }
  return names;
}

}  // namespace gpurun
