// The parameter registry: every GPURUN_* variable is declared once (name,
// type, default, validator, description) in param_table.cc as a typed handle,
// parsed strictly, and printable with `gpurun --print-params`.
//
//   const int64_t grace = params::kKillGrace.Get();
//
// Values start at their defaults; ParamRegistry::Load reads the environment
// (grInit and the launcher call it once, before starting threads). A bad value
// makes Load fail with InvalidArgument naming the variable, and leaves every
// value as it was. Get() is safe from any thread once Load has returned.
#ifndef GPURUN_RUNTIME_BASE_PARAMS_H_
#define GPURUN_RUNTIME_BASE_PARAMS_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "runtime/base/env.h"
#include "runtime/base/status.h"

namespace gpurun {

enum class ParamSource { kDefault, kEnvironment, kOverride };
const char* ParamSourceName(ParamSource source);

using ParamValue = std::variant<bool, int64_t, double, std::string>;
using ParamParser = std::function<StatusOr<ParamValue>(std::string_view)>;

struct ParamSpec {
  std::string name;          // "GPURUN_TIMEOUT"
  std::string type;          // shown by --print-params: "duration", "size", "WARN|INFO|TRACE", ...
  std::string default_text;  // parsed with `parse` at registration
  std::string description;
  ParamParser parse;
};

class ParamRegistry {
 public:
  struct Entry {
    ParamSpec spec;
    ParamValue value;
    std::string text;  // the text the value was parsed from
    ParamSource source = ParamSource::kDefault;
  };

  static ParamRegistry& Global();

  // Declares a parameter; returns its index. Aborts on a duplicate name or a
  // default that does not parse (both are programming errors).
  size_t Register(ParamSpec spec);

  // Reads every parameter from `env`: all or nothing.
  Status Load(const EnvLookup& env);
  // Sets one parameter from text, as if from the environment (tests, launcher).
  Status Override(std::string_view name, std::string_view text);
  // Back to every default.
  void Reset();

  const ParamValue& Value(size_t index) const { return entries_[index].value; }
  // Changes with every Load, Override and Reset: a hot path that keeps a
  // value it read (CachedParam) compares this instead of reading it again.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  const std::deque<Entry>& entries() const { return entries_; }
  const Entry* Find(std::string_view name) const;

  // The --print-params table: name, value, source, type, description.
  std::string Describe() const;

 private:
  std::deque<Entry> entries_;
  std::atomic<uint64_t> generation_{0};
};

// Typed handle for one declared parameter.
template <typename T>
class Param {
 public:
  T Get() const { return std::get<T>(ParamRegistry::Global().Value(index_)); }
  const std::string& name() const { return ParamRegistry::Global().entries()[index_].spec.name; }

 protected:
  explicit Param(ParamSpec spec) : index_(ParamRegistry::Global().Register(std::move(spec))) {}

 private:
  size_t index_;
};

// One parameter's value as last read, for a path that runs per call: the
// value is read again only when the registry's generation moved (tests and
// the launcher override parameters between calls). Not thread-safe: one
// owner (a communicator's executor).
template <typename T>
class CachedParam {
 public:
  explicit CachedParam(const Param<T>& param) : param_(param) {}
  T Get() {
    const uint64_t g = ParamRegistry::Global().generation();
    if (g != generation_) [[unlikely]] {
      value_ = param_.Get();
      generation_ = g;
    }
    return value_;
  }

 private:
  const Param<T>& param_;
  uint64_t generation_ = ~uint64_t{0};
  T value_{};
};

class BoolParam : public Param<bool> {
 public:
  BoolParam(std::string name, bool def, std::string description);
};

// Integer in [min, max].
class IntParam : public Param<int64_t> {
 public:
  IntParam(std::string name, int64_t def, int64_t min, int64_t max, std::string description);
};

// Byte count with units ("4M"), in [min, max].
class SizeParam : public Param<int64_t> {
 public:
  SizeParam(std::string name, std::string def, int64_t min, int64_t max, std::string description);
};

// Duration in seconds ("30", "500ms", "5m"), >= 0.
class DurationParam : public Param<double> {
 public:
  DurationParam(std::string name, std::string def, std::string description);
};

// One of a fixed set of names (any case); Get() returns the index in `choices`.
class EnumParam : public Param<int64_t> {
 public:
  EnumParam(std::string name, std::string def, std::vector<std::string_view> choices, std::string description);
};

// Free text, checked by an optional validator.
class StringParam : public Param<std::string> {
 public:
  using Validator = std::function<Status(std::string_view)>;
  StringParam(std::string name, std::string def, std::string description, Validator validate = nullptr);
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BASE_PARAMS_H_
