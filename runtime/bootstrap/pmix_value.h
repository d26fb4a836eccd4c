// Small adapters over PMIx values and info arrays: ownership of what PMIx_Get
// returns, tolerant conversions (servers differ in the integer type they use
// for the same key: gpurun and OpenPMIx use uint32, others uint16 or int),
// and a builder for the info arrays passed to Fence and Get.
// Internal to the bootstrap library.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_PMIX_VALUE_H_
#define GPURUN_RUNTIME_BOOTSTRAP_PMIX_VALUE_H_

#include <pmix.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun {

struct PmixValueDeleter {
  void operator()(pmix_value_t* value) const;
};
// A value returned by PMIx_Get, released with PMIX_VALUE_RELEASE.
using PmixValuePtr = std::unique_ptr<pmix_value_t, PmixValueDeleter>;

// An info array of scalar values (bool, int), destructed on scope exit.
class PmixInfos {
 public:
  PmixInfos() = default;
  ~PmixInfos();
  PmixInfos(const PmixInfos&) = delete;
  PmixInfos& operator=(const PmixInfos&) = delete;

  void AddBool(const char* key, bool value);
  void AddInt(const char* key, int value);

  // nullptr when empty, as PMIx expects.
  pmix_info_t* data() { return infos_.empty() ? nullptr : infos_.data(); }
  size_t size() const { return infos_.size(); }

 private:
  std::vector<pmix_info_t> infos_;
};

// Any integer type PMIx has (int8..uint64, int, uint, size, pid, rank), or a
// string holding a decimal number, as a non-negative integer. An error names
// the type found.
StatusOr<uint64_t> PmixValueToUint(const pmix_value_t& value);
// A PMIX_STRING value.
StatusOr<std::string> PmixValueToString(const pmix_value_t& value);
// A PMIX_BYTE_OBJECT value, copied.
StatusOr<std::vector<std::byte>> PmixValueToBytes(const pmix_value_t& value);

// PMIx_Get(proc, key); `what` says what was being read, for the error.
StatusOr<PmixValuePtr> PmixGet(const pmix_proc_t& proc, const char* key, PmixInfos& infos, std::string_view what);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_PMIX_VALUE_H_
