// PMIx value and info adapters (see pmix_value.h).
#include "runtime/bootstrap/pmix_value.h"

#include <cstring>
#include <limits>

#include "runtime/base/parse.h"
#include "runtime/bootstrap/pmix_status.h"

namespace gpurun {
namespace {

std::string TypeName(pmix_data_type_t type) {
  const char* name = PMIx_Data_type_string(type);
  return name != nullptr ? name : "type " + std::to_string(type);
}

StatusOr<uint64_t> NonNegative(int64_t v, pmix_data_type_t type) {
  if (v < 0) return InvalidArgument("negative " + TypeName(type) + " value " + std::to_string(v));
  return static_cast<uint64_t>(v);
}

}  // namespace

void PmixValueDeleter::operator()(pmix_value_t* value) const {
  if (value != nullptr) PMIX_VALUE_RELEASE(value);
}

PmixInfos::~PmixInfos() {
  for (pmix_info_t& info : infos_) PMIX_INFO_DESTRUCT(&info);
}

// Scalar values only: the vector may move the infos bit by bit when it grows.
void PmixInfos::AddBool(const char* key, bool value) {
  infos_.emplace_back();
  PMIX_INFO_CONSTRUCT(&infos_.back());
  PMIx_Info_load(&infos_.back(), key, &value, PMIX_BOOL);
}

void PmixInfos::AddInt(const char* key, int value) {
  infos_.emplace_back();
  PMIX_INFO_CONSTRUCT(&infos_.back());
  PMIx_Info_load(&infos_.back(), key, &value, PMIX_INT);
}

StatusOr<uint64_t> PmixValueToUint(const pmix_value_t& value) {
  const auto& d = value.data;
  switch (value.type) {
    case PMIX_INT8: return NonNegative(d.int8, value.type);
    case PMIX_INT16: return NonNegative(d.int16, value.type);
    case PMIX_INT32: return NonNegative(d.int32, value.type);
    case PMIX_INT64: return NonNegative(d.int64, value.type);
    case PMIX_INT: return NonNegative(d.integer, value.type);
    case PMIX_PID: return NonNegative(d.pid, value.type);
    case PMIX_UINT8: return uint64_t{d.uint8};
    case PMIX_UINT16: return uint64_t{d.uint16};
    case PMIX_UINT32: return uint64_t{d.uint32};
    case PMIX_UINT64: return uint64_t{d.uint64};
    case PMIX_UINT: return uint64_t{d.uint};
    case PMIX_SIZE: return uint64_t{d.size};
    case PMIX_PROC_RANK: return uint64_t{d.rank};
    case PMIX_STRING: {
      if (d.string == nullptr) return InvalidArgument("null PMIX_STRING where an integer was expected");
      StatusOr<int64_t> v = ParseInt(d.string);
      if (!v.ok()) return v.status().WithContext("PMIX_STRING where an integer was expected");
      return NonNegative(*v, value.type);
    }
    default: return InvalidArgument("expected an integer, got " + TypeName(value.type));
  }
}

StatusOr<std::string> PmixValueToString(const pmix_value_t& value) {
  if (value.type != PMIX_STRING) return InvalidArgument("expected PMIX_STRING, got " + TypeName(value.type));
  if (value.data.string == nullptr) return InvalidArgument("null PMIX_STRING");
  return std::string(value.data.string);
}

StatusOr<std::vector<std::byte>> PmixValueToBytes(const pmix_value_t& value) {
  if (value.type != PMIX_BYTE_OBJECT) return InvalidArgument("expected PMIX_BYTE_OBJECT, got " + TypeName(value.type));
  const pmix_byte_object_t& bo = value.data.bo;
  std::vector<std::byte> bytes(bo.size);
  if (bo.size > 0) std::memcpy(bytes.data(), bo.bytes, bo.size);
  return bytes;
}

StatusOr<PmixValuePtr> PmixGet(const pmix_proc_t& proc, const char* key, PmixInfos& infos, std::string_view what) {
  pmix_value_t* raw = nullptr;
  const pmix_status_t rc = PMIx_Get(&proc, key, infos.data(), infos.size(), &raw);
  PmixValuePtr value(raw);
  GR_RETURN_IF_ERROR(PmixToStatus(rc, std::string(what) + " (PMIx_Get " + key + ")"));
  if (value == nullptr) return InternalError(std::string(what) + ": PMIx_Get " + key + " returned no value");
  return value;
}

}  // namespace gpurun
