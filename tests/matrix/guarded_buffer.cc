// Guarded, offset buffers for the matrix (guarded_buffer.h).
#include "tests/matrix/guarded_buffer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace gpurun::matrix {

void GuardedBuffer::Free::operator()(unsigned char* p) const { std::free(p); }

void GuardedBuffer::Prepare(size_t bytes, size_t offset) {
  const size_t need = lead_ + offset + bytes + kGuardBytes;
  if (need > capacity_) {
    const size_t rounded = (need + kAlign - 1) / kAlign * kAlign;
    void* p = std::aligned_alloc(kAlign, rounded);
    if (p == nullptr) throw std::bad_alloc();
    storage_.reset(static_cast<unsigned char*>(p));
    capacity_ = rounded;
  }
  offset_ = offset;
  bytes_ = bytes;
  // The data starts lead_ bytes in (aligned lines of lead guard) plus the offset.
  data_ = storage_.get() + lead_ + offset;
  std::memset(storage_.get(), kGuardByte, lead_ + offset);
  std::memset(data_ + bytes, kGuardByte, kGuardBytes);
}

std::string GuardedBuffer::CheckGuards(const char* name) const {
  char text[160];
  for (size_t i = 0; i < lead_ + offset_; ++i) {
    const unsigned char b = data_[-static_cast<ptrdiff_t>(i) - 1];
    if (b != kGuardByte) {
      std::snprintf(text, sizeof(text), "guard byte %zu before the %s buffer was 0x%02x (expected 0x%02x)", i + 1, name,
                    b, kGuardByte);
      return text;
    }
  }
  for (size_t i = 0; i < kGuardBytes; ++i) {
    if (data_[bytes_ + i] != kGuardByte) {
      std::snprintf(text, sizeof(text), "guard byte %zu past the end of the %s buffer was 0x%02x (expected 0x%02x)", i,
                    name, data_[bytes_ + i], kGuardByte);
      return text;
    }
  }
  return "";
}

}  // namespace gpurun::matrix
