// Strict parsing of coll_matrix's flags (matrix_flags.h).
#include "tests/matrix/matrix_flags.h"

#include <charconv>
#include <string_view>

#include "tests/matrix/guarded_buffer.h"

namespace gpurun::matrix {

const char kUsage[] =
    "usage: coll_matrix [flags]   (run it under gpurun -n N)\n"
    "  --colls=LIST      allreduce bcast broadcast reduce allgather allgatherv reducescatter\n"
    "                    alltoall alltoallv gather gatherv scatter scatterv barrier\n"
    "  --types=LIST      int8 uint8 int32 uint32 int64 uint64 half float double bfloat16\n"
    "  --ops=LIST        sum prod min max avg (reducing collectives)\n"
    "  --sizes=LIST      bytes of the count argument (default 0,1,7,1023,4099,1048581,16777216)\n"
    "  --offsets=LIST    bytes added to every buffer's aligned start, each < 64 (default 0,4,8,12)\n"
    "  --inplace=LIST    out, in (default both; bcast runs in place only)\n"
    "  --max-bytes=N     leave out sizes above N bytes\n"
    "  --roots=ends|all  roots of the rooted collectives: 0 and the last rank (default), or every rank\n"
    "  --algo=NAME       auto ring tree: what GPURUN_ALGO forces in this job (decides expected rejections)\n"
    "  --proto=NAME      auto ll ll128 simple: what GPURUN_PROTO forces in this job\n"
    "  --max-printed=N   failure lines printed per rank (default 20)\n"
    "  --device=host|cuda  where every buffer a call sees lives (default host); cuda: each rank uses device\n"
    "                    GPURUN_LOCAL_RANK modulo the visible devices\n"
    "  --stream          (cuda) calls pass a CUDA stream of the program's own, which is synchronized before\n"
    "                    the checks (default: GR_STREAM_HOST, the call completes on return)\n"
    "  --graph           (cuda, --stream) each call is captured into a CUDA graph, which is launched (twice\n"
    "                    out of place: the second launch must give the same result) instead of the call\n"
    "  --device-collectives=LIST|none  (cuda) collectives that must run on device buffers (default all);\n"
    "                    the others may answer grUnsupported, which is counted and printed, not a failure\n"
    "Every list also takes \"all\". \"--name value\" works as \"--name=value\".\n";

namespace {

std::optional<uint64_t> ParseNumber(std::string_view text) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Parses a list with `one` per item into *out; "all" keeps the default.
template <typename T, typename F>
bool ParseList(std::string_view value, std::vector<T>* out, F one, std::string* error) {
  if (value == "all") return true;
  std::vector<T> items;
  for (const std::string& item : SplitList(value)) {
    std::optional<T> parsed = one(item);
    if (!parsed) {
      *error = "unknown value '" + item + "'";
      return false;
    }
    items.push_back(*parsed);
  }
  if (items.empty()) {
    *error = "empty list";
    return false;
  }
  *out = items;
  return true;
}

bool ParseOne(std::string_view name, std::string_view value, Flags* f, std::string* error) {
  auto number = [](std::string_view s) { return ParseNumber(s); };
  if (name == "colls") return ParseList(value, &f->colls, CollByName, error);
  if (name == "device-collectives" && value == "none") {
    f->device_colls.clear();
    return true;
  }
  if (name == "device-collectives") return ParseList(value, &f->device_colls, CollByName, error);
  if (name == "device" && (value == "host" || value == "cuda")) {
    f->on_device = value == "cuda";
    return true;
  }
  if (name == "types") return ParseList(value, &f->types, TypeByName, error);
  if (name == "ops") return ParseList(value, &f->ops, OpByName, error);
  if (name == "sizes") return ParseList(value, &f->sizes, number, error);
  if (name == "offsets") {
    auto offset = [](std::string_view s) -> std::optional<size_t> {
      std::optional<uint64_t> v = ParseNumber(s);
      if (!v || *v >= GuardedBuffer::kAlign) return std::nullopt;
      return *v;
    };
    return ParseList(value, &f->offsets, offset, error);
  }
  if (name == "inplace") {
    auto mode = [](std::string_view s) -> std::optional<bool> {
      if (s == "out" || s == "0") return false;
      if (s == "in" || s == "1") return true;
      return std::nullopt;
    };
    return ParseList(value, &f->in_place, mode, error);
  }
  std::optional<uint64_t> n;
  if (name == "max-bytes" || name == "max-printed") {
    n = ParseNumber(value);
    if (!n) {
      *error = "not a number";
      return false;
    }
    (name == "max-bytes" ? f->max_bytes : f->max_printed) = *n;
    return true;
  }
  if (name == "roots" && (value == "ends" || value == "all")) {
    f->all_roots = value == "all";
    return true;
  }
  if (name == "algo" && AlgoByName(value)) {
    f->algo = *AlgoByName(value);
    return true;
  }
  if (name == "proto" && ProtoByName(value)) {
    f->proto = *ProtoByName(value);
    return true;
  }
  *error = "unknown flag or value";
  return false;
}

// The device flags make sense only together with --device=cuda.
bool CheckDeviceFlags(const Flags& f, bool device_colls_given, std::string* error) {
  if (f.on_device) return true;
  if (f.stream) *error = "--stream needs --device=cuda";
  if (f.graph) *error = "--graph needs --device=cuda";
  if (device_colls_given) *error = "--device-collectives needs --device=cuda";
  return error->empty();
}

}  // namespace

std::optional<Flags> ParseFlags(int argc, char** argv, std::string* error) {
  Flags f;
  bool device_colls_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--stream") {
      f.stream = true;
      continue;
    }
    if (arg == "--graph") {
      f.graph = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const bool separate = eq == std::string_view::npos && i + 1 < argc;  // "--name value"
    if (!arg.starts_with("--") || (eq == std::string_view::npos && !separate)) {
      *error = std::string(arg) + ": expected --name=value or --name value";
      return std::nullopt;
    }
    const std::string_view name = arg.substr(2, separate ? std::string_view::npos : eq - 2);
    const std::string_view value = separate ? std::string_view(argv[++i]) : arg.substr(eq + 1);
    device_colls_given |= name == "device-collectives";
    std::string why;
    if (!ParseOne(name, value, &f, &why)) {
      *error = "--" + std::string(name) + "=" + std::string(value) + ": " + why;
      return std::nullopt;
    }
  }
  if (!CheckDeviceFlags(f, device_colls_given, error)) return std::nullopt;
  if (f.graph && !f.stream) {
    *error = "--graph needs --stream (a graph is captured from the program's own stream)";
    return std::nullopt;
  }
  return f;
}

}  // namespace gpurun::matrix
