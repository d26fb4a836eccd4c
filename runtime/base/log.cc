// The logger (see log.h).
#include "runtime/base/log.h"

#include <unistd.h>

#include <atomic>
#include <mutex>

#include "runtime/base/param_table.h"
#include "runtime/base/parse.h"

namespace gpurun {
namespace {

struct SubsysEntry {
  std::string_view name;
  Subsys bit;
};
constexpr SubsysEntry kSubsysNames[] = {
    {"INIT", Subsys::kInit},     {"BOOTSTRAP", Subsys::kBootstrap}, {"TOPO", Subsys::kTopo},     {"P2P", Subsys::kP2p},
    {"NET", Subsys::kNet},       {"COLL", Subsys::kColl},           {"TUNING", Subsys::kTuning}, {"ENV", Subsys::kEnv},
    {"LAUNCH", Subsys::kLaunch},
};

std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};
std::atomic<uint32_t> g_mask{kAllSubsys};

std::mutex g_prefix_mutex;
std::string g_prefix;  // "host:pid:rank"
std::string g_role = "-";

std::string BuildPrefix() {
  char host[256] = "?";
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + g_role;
}

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kWarn: return "WARN";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kTrace: return "TRACE";
    case LogLevel::kNone: break;
  }
  return "";
}

}  // namespace

StatusOr<uint32_t> ParseSubsysMask(std::string_view text) {
  bool exclude = !text.empty() && text.front() == '^';
  if (exclude) text.remove_prefix(1);
  uint32_t mask = 0;
  for (const std::string& item : SplitList(text, ',')) {
    const std::string upper = [&] {
      std::string u = item;
      for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return u;
    }();
    if (upper == "ALL") {
      mask |= kAllSubsys;
      continue;
    }
    bool found = false;
    for (const SubsysEntry& e : kSubsysNames) {
      if (e.name == upper) {
        mask |= static_cast<uint32_t>(e.bit);
        found = true;
      }
    }
    if (!found) {
      std::string names = "ALL";
      for (const SubsysEntry& e : kSubsysNames) names += "," + std::string(e.name);
      return InvalidArgument("unknown subsystem '" + item + "' (known: " + names + ")");
    }
  }
  return exclude ? (kAllSubsys & ~mask) : mask;
}

const char* SubsysName(Subsys subsys) {
  for (const SubsysEntry& e : kSubsysNames) {
    if (e.bit == subsys) return e.name.data();
  }
  return "?";
}

void Logger::Configure(LogLevel level, uint32_t mask) {
  g_level.store(static_cast<int>(level), std::memory_order_relaxed);
  g_mask.store(mask, std::memory_order_relaxed);
}

void Logger::ConfigureFromParams() {
  StatusOr<uint32_t> mask = ParseSubsysMask(params::kDebugSubsys.Get());
  Configure(static_cast<LogLevel>(params::kDebug.Get()), mask.ok() ? *mask : kAllSubsys);
}

void Logger::SetRank(int rank) { SetRole(rank < 0 ? "-" : std::to_string(rank)); }

void Logger::SetRole(std::string_view role) {
  std::lock_guard<std::mutex> lock(g_prefix_mutex);
  g_role = std::string(role);
  g_prefix.clear();
}

bool Logger::Enabled(LogLevel level, Subsys subsys) {
  if (static_cast<int>(level) > g_level.load(std::memory_order_relaxed)) return false;
  if (level == LogLevel::kWarn) return true;
  return (g_mask.load(std::memory_order_relaxed) & static_cast<uint32_t>(subsys)) != 0;
}

void Logger::Write(LogLevel level, Subsys subsys, std::string_view message) {
  std::string line;
  {
    std::lock_guard<std::mutex> lock(g_prefix_mutex);
    if (g_prefix.empty()) g_prefix = BuildPrefix();
    line = g_prefix;
  }
  line += " gpurun ";
  line += LevelName(level);
  line += ' ';
  line += SubsysName(subsys);
  line += ' ';
  line += message;
  if (line.back() != '\n') line += '\n';
  // One write per line so that lines of threads and ranks never interleave.
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

}  // namespace gpurun
