// Messages for the user of gpurun ("gpurun: rank 1 ... exited with code 3"),
// as opposed to log lines (log.h): plain, on stderr, one write per message so
// they never mix with forwarded output lines.
#ifndef GPURUN_RUNTIME_LAUNCHER_USER_MESSAGE_H_
#define GPURUN_RUNTIME_LAUNCHER_USER_MESSAGE_H_

#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

namespace gpurun::launcher {

inline void TellUser(std::string_view message) {
  std::string line = "gpurun: ";
  line += message;
  if (line.back() != '\n') line += '\n';
  std::string_view rest = line;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    rest.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_USER_MESSAGE_H_
