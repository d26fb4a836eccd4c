// Child-process runner for the multi-process tests (see process_runner.h).
#include "tests/mp/process_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace gpurun::mp {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string NewMarker() {
  static std::atomic<int> counter{0};
  return std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(Clock::now().time_since_epoch().count());
}

[[noreturn]] void ExecChild(const RunOptions& o, const std::string& marker, int in_fd, int out_fd, int err_fd) {
  dup2(in_fd, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  setenv("GR_MP_MARKER", marker.c_str(), 1);
  for (const auto& [k, v] : o.env) setenv(k.c_str(), v.c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : o.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::fprintf(stderr, "exec %s: %s\n", args[0], std::strerror(errno));
  _exit(127);
}

// Reads what is available on fds[i] into *outs[i]; closes and clears fds at EOF.
void Drain(int fds[2], std::string* outs[2], int timeout_ms) {
  pollfd p[2];
  int n = 0;
  int which[2];
  for (int i = 0; i < 2; ++i) {
    if (fds[i] < 0) continue;
    p[n] = {fds[i], POLLIN, 0};
    which[n++] = i;
  }
  if (n == 0 || poll(p, n, timeout_ms) <= 0) return;
  for (int k = 0; k < n; ++k) {
    if ((p[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    char buf[65536];
    ssize_t got = read(p[k].fd, buf, sizeof(buf));
    if (got > 0) {
      outs[which[k]]->append(buf, static_cast<size_t>(got));
    } else {
      close(p[k].fd);
      fds[which[k]] = -1;
    }
  }
}

}  // namespace

RunResult RunProcess(const RunOptions& o) {
  RunResult result;
  result.marker = NewMarker();
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) std::abort();
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) ExecChild(o, result.marker, o.stdin_closed ? devnull : in[0], out[1], err[1]);
  close(devnull);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  signal(SIGPIPE, SIG_IGN);
  if (!o.stdin_data.empty()) {
    // Small inputs only: fits in the pipe buffer, so this never blocks.
    ssize_t w = write(in[1], o.stdin_data.data(), o.stdin_data.size());
    (void)w;
  }
  close(in[1]);
  int fds[2] = {out[0], err[0]};
  std::string* outs[2] = {&result.out, &result.err};
  bool signalled = o.signal == 0;
  int status = 0;
  while (true) {
    Drain(fds, outs, 10);
    if (!signalled && Since(start) >= o.signal_after) {
      kill(pid, o.signal);
      signalled = true;
    }
    if (!result.hit_limit && Since(start) > o.limit) {
      result.hit_limit = true;
      kill(pid, SIGKILL);
    }
    if (waitpid(pid, &status, WNOHANG) == pid) break;
  }
  result.seconds = Since(start);
  const auto drain_start = Clock::now();
  while ((fds[0] >= 0 || fds[1] >= 0) && Since(drain_start) < 5) Drain(fds, outs, 50);
  for (int fd : fds) {
    if (fd >= 0) close(fd);
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::vector<int> LeftoverProcesses(const std::string& marker, double grace) {
  const std::string needle = "GR_MP_MARKER=" + marker;
  const auto start = Clock::now();
  while (true) {
    std::vector<int> pids;
    DIR* proc = opendir("/proc");
    while (dirent* e = readdir(proc)) {
      const int pid = std::atoi(e->d_name);
      if (pid <= 0 || pid == getpid()) continue;
      std::ifstream env("/proc/" + std::string(e->d_name) + "/environ", std::ios::binary);
      std::stringstream ss;
      ss << env.rdbuf();
      const std::string text = ss.str();
      if (text.find(needle + '\0') != std::string::npos || text.ends_with(needle)) pids.push_back(pid);
    }
    closedir(proc);
    if (pids.empty() || Since(start) >= grace) return pids;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int CountLines(const std::string& text, const std::string& prefix) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) ++n;
  }
  return n;
}

}  // namespace gpurun::mp
