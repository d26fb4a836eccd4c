// Per-job private temporary directory (see temp_dir.h).
#include "runtime/launcher/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "runtime/base/env.h"

namespace gpurun::launcher {

StatusOr<TempDir> TempDir::Create() {
  std::string base = GetEnv("TMPDIR").value_or("");
  if (base.empty()) base = "/tmp";
  std::string pattern = base + "/gpurun.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) return ErrnoError("mkdtemp " + pattern, errno);
  return TempDir(std::string(buffer.data()));
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace gpurun::launcher
