// Program lookup through PATH (see program_path.h).
#include "runtime/launcher/program_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace gpurun::launcher {
namespace {

// 0 when `path` is an executable regular file, else an errno value.
int CheckExecutable(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return errno;
  if (S_ISDIR(st.st_mode)) return EISDIR;
  if (!S_ISREG(st.st_mode)) return EACCES;
  if (access(path.c_str(), X_OK) != 0) return errno;
  return 0;
}

// PATH entries, split on ':' without trimming (a name may hold spaces).
std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (true) {
    const size_t end = path.find(':', start);
    dirs.emplace_back(path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return dirs;
    start = end + 1;
  }
}

Status CannotRun(std::string_view program, std::string_view path, int err) {
  std::string text = "cannot run '" + std::string(program) + "'";
  if (path != program) text += " (" + std::string(path) + ")";
  return InvalidUsage(text + ": " + (err == EISDIR ? "is a directory" : std::strerror(err)));
}

}  // namespace

StatusOr<std::string> ResolveProgram(std::string_view program, const std::optional<std::string>& path_env) {
  if (program.empty()) return InvalidUsage("the program name is empty");
  const std::string name(program);
  if (name.find('/') != std::string::npos) {
    const int err = CheckExecutable(name);
    if (err != 0) return CannotRun(program, name, err);
    return name;
  }
  const std::string path = path_env.value_or("/usr/local/bin:/bin:/usr/bin");
  std::string first_bad;  // an existing but unusable candidate, reported if nothing better is found
  int first_err = 0;
  for (const std::string& dir : SplitPath(path)) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    const int err = CheckExecutable(candidate);
    if (err == 0) return candidate;
    if (err != ENOENT && err != ENOTDIR && first_bad.empty()) {
      first_bad = candidate;
      first_err = err;
    }
  }
  if (!first_bad.empty()) return CannotRun(program, first_bad, first_err);
  return InvalidUsage("cannot run '" + name + "': not found in PATH");
}

}  // namespace gpurun::launcher
