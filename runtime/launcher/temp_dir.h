// A private directory for one job (mode 0700, made with mkdtemp under $TMPDIR
// or /tmp), removed with its contents when the object is destroyed. The PMIx
// server puts its rendezvous files there.
#ifndef GPURUN_RUNTIME_LAUNCHER_TEMP_DIR_H_
#define GPURUN_RUNTIME_LAUNCHER_TEMP_DIR_H_

#include <string>

#include "runtime/base/status.h"

namespace gpurun::launcher {

class TempDir {
 public:
  // Creates "<$TMPDIR or /tmp>/gpurun.XXXXXX".
  static StatusOr<TempDir> Create();

  TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_TEMP_DIR_H_
