// Strict text parsing (see parse.h).
#include "runtime/base/parse.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace gpurun {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool EqualsNoCase(std::string_view a, std::string_view b) { return ToLower(a) == ToLower(b); }

}  // namespace

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> SplitList(std::string_view text, char sep) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    items.emplace_back(Trim(text.substr(start, end == std::string_view::npos ? end : end - start)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return items;
}

StatusOr<int64_t> ParseInt(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return InvalidArgument("empty value, expected an integer");
  std::string_view digits = text;
  if (digits.front() == '+') digits.remove_prefix(1);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range) return InvalidArgument("'" + std::string(text) + "' is out of range");
  if (ec != std::errc() || ptr != digits.data() + digits.size()) {
    return InvalidArgument("'" + std::string(text) + "' is not an integer");
  }
  return value;
}

StatusOr<int64_t> ParseSize(std::string_view text) {
  text = Trim(text);
  size_t split = 0;
  while (split < text.size() && std::isdigit(static_cast<unsigned char>(text[split]))) ++split;
  if (split == 0) return InvalidArgument("'" + std::string(text) + "' is not a size (examples: 4096, 64K, 8M, 1G)");
  GR_ASSIGN_OR_RETURN(int64_t number, ParseInt(text.substr(0, split)));
  std::string unit = ToLower(text.substr(split));
  if (unit.size() > 1 && (unit.ends_with("ib") || unit.ends_with("b")))
    unit.resize(unit.size() - (unit.ends_with("ib") ? 2 : 1));
  int shift = 0;
  if (unit.empty() || unit == "b")
    shift = 0;
  else if (unit == "k")
    shift = 10;
  else if (unit == "m")
    shift = 20;
  else if (unit == "g")
    shift = 30;
  else if (unit == "t")
    shift = 40;
  else
    return InvalidArgument("'" + std::string(text) + "' has an unknown size unit (use K, M, G or T)");
  if (shift > 0 && number > (INT64_MAX >> shift)) return InvalidArgument("'" + std::string(text) + "' is out of range");
  return number << shift;
}

StatusOr<double> ParseDuration(std::string_view text) {
  text = Trim(text);
  std::string s(text);
  size_t pos = 0;
  while (pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.')) ++pos;
  if (pos == 0) return InvalidArgument("'" + s + "' is not a duration (examples: 30, 30s, 500ms, 5m, 1h)");
  double number = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + pos, number);
  if (ec != std::errc() || ptr != s.data() + pos || !std::isfinite(number)) {
    return InvalidArgument("'" + s + "' is not a duration");
  }
  const std::string unit = ToLower(s.substr(pos));
  double scale = 1;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "us")
    scale = 1e-6;
  else if (unit == "m" || unit == "min")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  else
    return InvalidArgument("'" + s + "' has an unknown time unit (use ms, s, m or h)");
  return number * scale;
}

StatusOr<bool> ParseBool(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "1" || t == "true" || t == "yes" || t == "on") return true;
  if (t == "0" || t == "false" || t == "no" || t == "off") return false;
  return InvalidArgument("'" + std::string(text) + "' is not a boolean (use 1/0, true/false, yes/no, on/off)");
}

StatusOr<int> ParseChoice(std::string_view text, std::span<const std::string_view> choices) {
  const std::string_view t = Trim(text);
  for (size_t i = 0; i < choices.size(); ++i) {
    if (EqualsNoCase(t, choices[i])) return static_cast<int>(i);
  }
  std::string list;
  for (std::string_view c : choices) list += (list.empty() ? "" : ", ") + std::string(c);
  return InvalidArgument("'" + std::string(text) + "' is not one of: " + list);
}

}  // namespace gpurun
