// Endpoint encoding (see shm_exchange.h): little-endian host words, strings
// and lists prefixed by a uint32 count. Both ends run the same binary.
#include "p2p/shm/shm_exchange.h"

#include <cstring>

namespace gpurun::p2p::shm {
namespace {

template <typename T>
void Put(std::vector<std::byte>& out, const T& value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

void PutString(std::vector<std::byte>& out, const std::string& s) {
  Put(out, static_cast<uint32_t>(s.size()));
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  out.insert(out.end(), p, p + s.size());
}

class Reader {
 public:
  explicit Reader(std::span<const std::byte> blob) : blob_(blob) {}

  template <typename T>
  bool Get(T* value) {
    if (blob_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(value, blob_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool GetString(std::string* s) {
    uint32_t n = 0;
    if (!Get(&n) || blob_.size() - pos_ < n) return false;
    s->assign(reinterpret_cast<const char*>(blob_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  bool AtEnd() const { return pos_ == blob_.size(); }

 private:
  std::span<const std::byte> blob_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<std::byte> EncodeEndpoint(const ShmEndpoint& endpoint) {
  std::vector<std::byte> out;
  PutString(out, endpoint.error);
  PutString(out, endpoint.segment);
  Put(out, endpoint.header_address);
  Put(out, static_cast<uint32_t>(endpoint.reach.size()));
  for (int32_t r : endpoint.reach) Put(out, r);
  return out;
}

StatusOr<ShmEndpoint> DecodeEndpoint(std::span<const std::byte> blob) {
  ShmEndpoint e;
  Reader in(blob);
  uint32_t count = 0;
  bool ok = in.GetString(&e.error) && in.GetString(&e.segment) && in.Get(&e.header_address) && in.Get(&count);
  for (uint32_t i = 0; ok && i < count; ++i) {
    int32_t r = 0;
    ok = in.Get(&r);
    e.reach.push_back(r);
  }
  if (!ok || !in.AtEnd())
    return InternalError("malformed shm endpoint blob (" + std::to_string(blob.size()) + " bytes)");
  return e;
}

}  // namespace gpurun::p2p::shm
