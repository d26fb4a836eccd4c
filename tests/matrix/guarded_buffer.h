// A reusable buffer for one side of a collective call: the user data starts
// `offset` bytes past a 64-byte aligned address, and guard bytes fill
// everything around it (a lead of kAlign bytes plus the offset before,
// kGuardBytes past the end), so a write outside the data is caught after the
// call. The whole of it (the image: guards and data) can be mirrored
// elsewhere, e.g. to device memory, and copied back before the checks.
#ifndef GPURUN_TESTS_MATRIX_GUARDED_BUFFER_H_
#define GPURUN_TESTS_MATRIX_GUARDED_BUFFER_H_

#include <cstddef>
#include <memory>
#include <string>

namespace gpurun::matrix {

inline constexpr unsigned char kGuardByte = 0x5C;

class GuardedBuffer {
 public:
  static constexpr size_t kGuardBytes = 64;
  static constexpr size_t kAlign = 64;

  // `lead`: guard bytes before the offset (a multiple of kAlign). A mirror
  // whose image starts at an address aligned to `lead` has its data at that
  // alignment plus the offset.
  explicit GuardedBuffer(size_t lead = kAlign) : lead_(lead) {}

  // Lays out `bytes` of data at `offset` (< kAlign) and writes the guards;
  // the data's contents are left as they are. Reuses the allocation.
  void Prepare(size_t bytes, size_t offset);

  unsigned char* data() { return data_; }
  const unsigned char* data() const { return data_; }
  size_t bytes() const { return bytes_; }

  // The guards and the data, from the first lead guard byte (after Prepare).
  unsigned char* image() { return storage_.get(); }
  const unsigned char* image() const { return storage_.get(); }
  size_t image_bytes() const { return lead_ + offset_ + bytes_ + kGuardBytes; }
  size_t data_in_image() const { return lead_ + offset_; }

  // "" when every guard byte is intact, else where the first bad one is
  // ("guard byte 3 past the end of the receive buffer was 0x00").
  std::string CheckGuards(const char* name) const;

 private:
  struct Free {
    void operator()(unsigned char* p) const;
  };
  std::unique_ptr<unsigned char, Free> storage_;
  size_t lead_;
  size_t capacity_ = 0;
  size_t offset_ = 0;
  size_t bytes_ = 0;
  unsigned char* data_ = nullptr;
};

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_GUARDED_BUFFER_H_
