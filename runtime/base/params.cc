// The parameter registry and the typed parameter kinds (see params.h).
#include "runtime/base/params.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/base/parse.h"

namespace gpurun {

const char* ParamSourceName(ParamSource source) {
  switch (source) {
    case ParamSource::kDefault: return "default";
    case ParamSource::kEnvironment: return "environment";
    case ParamSource::kOverride: return "override";
  }
  return "?";
}

ParamRegistry& ParamRegistry::Global() {
  static ParamRegistry registry;
  return registry;
}

size_t ParamRegistry::Register(ParamSpec spec) {
  if (Find(spec.name) != nullptr) {
    std::fprintf(stderr, "gpurun: parameter %s declared twice\n", spec.name.c_str());
    std::abort();
  }
  StatusOr<ParamValue> def = spec.parse(spec.default_text);
  if (!def.ok()) {
    std::fprintf(stderr, "gpurun: default of %s does not parse: %s\n", spec.name.c_str(),
                 def.status().ToString().c_str());
    std::abort();
  }
  Entry entry{std::move(spec), std::move(*def), "", ParamSource::kDefault};
  entry.text = entry.spec.default_text;
  entries_.push_back(std::move(entry));
  return entries_.size() - 1;
}

const ParamRegistry::Entry* ParamRegistry::Find(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.spec.name == name) return &e;
  }
  return nullptr;
}

Status ParamRegistry::Load(const EnvLookup& env) {
  struct Parsed {
    ParamValue value;
    std::string text;
  };
  std::vector<std::optional<Parsed>> parsed(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    const ParamSpec& spec = entries_[i].spec;
    std::optional<std::string> text = env(spec.name);
    if (!text) continue;
    StatusOr<ParamValue> value = spec.parse(*text);
    if (!value.ok()) {
      return InvalidArgument(spec.name + "='" + *text + "': " + value.status().message() + " (" + spec.description +
                             ")");
    }
    parsed[i] = Parsed{std::move(*value), std::move(*text)};
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (parsed[i]) {
      e.value = std::move(parsed[i]->value);
      e.text = std::move(parsed[i]->text);
      e.source = ParamSource::kEnvironment;
    } else {
      e.value = *e.spec.parse(e.spec.default_text);
      e.text = e.spec.default_text;
      e.source = ParamSource::kDefault;
    }
  }
  generation_.fetch_add(1, std::memory_order_release);
  return OkStatus();
}

Status ParamRegistry::Override(std::string_view name, std::string_view text) {
  for (Entry& e : entries_) {
    if (e.spec.name != name) continue;
    StatusOr<ParamValue> value = e.spec.parse(text);
    if (!value.ok()) return InvalidArgument(e.spec.name + "='" + std::string(text) + "': " + value.status().message());
    e.value = std::move(*value);
    e.text = std::string(text);
    e.source = ParamSource::kOverride;
    generation_.fetch_add(1, std::memory_order_release);
    return OkStatus();
  }
  return InvalidArgument("'" + std::string(name) + "' is not a gpurun parameter");
}

void ParamRegistry::Reset() {
  for (Entry& e : entries_) {
    e.value = *e.spec.parse(e.spec.default_text);
    e.text = e.spec.default_text;
    e.source = ParamSource::kDefault;
  }
  generation_.fetch_add(1, std::memory_order_release);
}

std::string ParamRegistry::Describe() const {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof(line), "%-26s %-14s %-12s %s\n", "PARAMETER", "VALUE", "SOURCE", "TYPE / DESCRIPTION");
  out += line;
  for (const Entry& e : entries_) {
    const std::string value = e.text.empty() ? "\"\"" : e.text;
    std::snprintf(line, sizeof(line), "%-26s %-14s %-12s %s\n", e.spec.name.c_str(), value.c_str(),
                  ParamSourceName(e.source), e.spec.type.c_str());
    out += line;
    out += std::string(55, ' ') + e.spec.description + "\n";
  }
  return out;
}

namespace {

ParamParser RangeParser(StatusOr<int64_t> (*parse)(std::string_view), int64_t min, int64_t max) {
  return [=](std::string_view text) -> StatusOr<ParamValue> {
    GR_ASSIGN_OR_RETURN(int64_t v, parse(text));
    if (v < min || v > max) {
      return InvalidArgument(std::to_string(v) + " is outside [" + std::to_string(min) + ", " + std::to_string(max) +
                             "]");
    }
    return ParamValue(v);
  };
}

std::string JoinChoices(const std::vector<std::string_view>& choices) {
  std::string out;
  for (std::string_view c : choices) out += (out.empty() ? "" : "|") + std::string(c);
  return out;
}

}  // namespace

BoolParam::BoolParam(std::string name, bool def, std::string description)
    : Param(ParamSpec{std::move(name), "bool", def ? "1" : "0", std::move(description),
                      [](std::string_view text) -> StatusOr<ParamValue> {
                        GR_ASSIGN_OR_RETURN(bool v, ParseBool(text));
                        return ParamValue(v);
                      }}) {}

IntParam::IntParam(std::string name, int64_t def, int64_t min, int64_t max, std::string description)
    : Param(ParamSpec{std::move(name), "int [" + std::to_string(min) + ", " + std::to_string(max) + "]",
                      std::to_string(def), std::move(description), RangeParser(&ParseInt, min, max)}) {}

SizeParam::SizeParam(std::string name, std::string def, int64_t min, int64_t max, std::string description)
    : Param(ParamSpec{std::move(name), "size", std::move(def), std::move(description),
                      RangeParser(&ParseSize, min, max)}) {}

DurationParam::DurationParam(std::string name, std::string def, std::string description)
    : Param(ParamSpec{std::move(name), "duration", std::move(def), std::move(description),
                      [](std::string_view text) -> StatusOr<ParamValue> {
                        GR_ASSIGN_OR_RETURN(double v, ParseDuration(text));
                        if (v < 0) return InvalidArgument("a duration cannot be negative");
                        return ParamValue(v);
                      }}) {}

EnumParam::EnumParam(std::string name, std::string def, std::vector<std::string_view> choices, std::string description)
    : Param(ParamSpec{std::move(name), JoinChoices(choices), std::move(def), std::move(description),
                      [choices](std::string_view text) -> StatusOr<ParamValue> {
                        GR_ASSIGN_OR_RETURN(int index, ParseChoice(text, choices));
                        return ParamValue(static_cast<int64_t>(index));
                      }}) {}

StringParam::StringParam(std::string name, std::string def, std::string description, Validator validate)
    : Param(ParamSpec{std::move(name), "string", std::move(def), std::move(description),
                      [validate](std::string_view text) -> StatusOr<ParamValue> {
                        if (validate) GR_RETURN_IF_ERROR(validate(text));
                        return ParamValue(std::string(text));
                      }}) {}

}  // namespace gpurun
