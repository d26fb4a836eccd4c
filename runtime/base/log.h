// The one logger: a level (GPURUN_DEBUG=NONE|WARN|INFO|TRACE) and a subsystem
// mask (GPURUN_DEBUG_SUBSYS=INIT,BOOTSTRAP,... or ^LIST to exclude). Warnings
// are printed whatever the mask; INFO and TRACE lines only for subsystems in
// the mask. Each line goes to stderr in one write, prefixed "host:pid:rank".
//
//   GR_LOG(Info, Bootstrap) << "fence done in " << us << " us";
//
// The stream expression is not evaluated when the line is filtered out.
#ifndef GPURUN_RUNTIME_BASE_LOG_H_
#define GPURUN_RUNTIME_BASE_LOG_H_

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "runtime/base/status.h"

namespace gpurun {

enum class LogLevel : int { kNone = 0, kWarn = 1, kInfo = 2, kTrace = 3 };

enum class Subsys : uint32_t {
  kInit = 1u << 0,
  kBootstrap = 1u << 1,
  kTopo = 1u << 2,
  kP2p = 1u << 3,
  kNet = 1u << 4,
  kColl = 1u << 5,
  kTuning = 1u << 6,
  kEnv = 1u << 7,
  kLaunch = 1u << 8,
};
inline constexpr uint32_t kAllSubsys = (1u << 9) - 1;

// "INIT,BOOTSTRAP" → those bits; "^COLL,TUNING" → all but those; "ALL".
StatusOr<uint32_t> ParseSubsysMask(std::string_view text);
const char* SubsysName(Subsys subsys);

class Logger {
 public:
  static void Configure(LogLevel level, uint32_t mask);
  // Applies GPURUN_DEBUG and GPURUN_DEBUG_SUBSYS as the registry holds them.
  static void ConfigureFromParams();
  // The third field of the prefix: a rank number, or a role such as "gpurun".
  static void SetRank(int rank);
  static void SetRole(std::string_view role);

  static bool Enabled(LogLevel level, Subsys subsys);
  static void Write(LogLevel level, Subsys subsys, std::string_view message);
};

// Collects one line and writes it on destruction.
class LogLine {
 public:
  LogLine(LogLevel level, Subsys subsys) : level_(level), subsys_(subsys) {}
  ~LogLine() { Logger::Write(level_, subsys_, stream_.str()); }
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  Subsys subsys_;
  std::ostringstream stream_;
};

// Turns the stream expression into void so both arms of GR_LOG's ?: match.
struct LogVoidify {
  void operator&(std::ostream&) {}
};

}  // namespace gpurun

// An expression (not an if statement), so it nests safely under an unbraced if.
// `&` binds looser than `<<`: the whole stream chain is built first.
#define GR_LOG(level, subsys)                                                           \
  !::gpurun::Logger::Enabled(::gpurun::LogLevel::k##level, ::gpurun::Subsys::k##subsys) \
      ? (void)0                                                                         \
      : ::gpurun::LogVoidify() & ::gpurun::LogLine(::gpurun::LogLevel::k##level, ::gpurun::Subsys::k##subsys).stream()

#endif  // GPURUN_RUNTIME_BASE_LOG_H_
