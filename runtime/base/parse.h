// Strict parsing of the text forms used by parameters and command-line options.
// Every function rejects empty input, trailing garbage and out-of-range values
// with an InvalidArgument naming what was wrong (the caller adds the variable).
#ifndef GPURUN_RUNTIME_BASE_PARSE_H_
#define GPURUN_RUNTIME_BASE_PARSE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun {

// Decimal integer, optional sign: "42", "-3".
StatusOr<int64_t> ParseInt(std::string_view text);

// Byte count with an optional binary unit: "4096", "4K", "4KiB", "8M", "1G", "2T".
StatusOr<int64_t> ParseSize(std::string_view text);

// Duration in seconds: "30" and "30s" are seconds; "500ms", "2m", "1h", "1.5s".
StatusOr<double> ParseDuration(std::string_view text);

// 1/0, true/false, yes/no, on/off (any case).
StatusOr<bool> ParseBool(std::string_view text);

// Index of `text` in `choices`, compared without case.
StatusOr<int> ParseChoice(std::string_view text, std::span<const std::string_view> choices);

// Lowercase ASCII copy.
std::string ToLower(std::string_view text);

// Splits on `sep`, trimming spaces; empty items are kept (callers reject them).
std::vector<std::string> SplitList(std::string_view text, char sep);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BASE_PARSE_H_
