// ShmSegment: one POSIX shared-memory segment mapped into this process, owned
// through RAII. The creator makes it with O_CREAT|O_EXCL and mode 0600, and
// reserves its pages up front (posix_fallocate), so that a full /dev/shm is a
// clear error at creation rather than a SIGBUS later. Peers map it with Open.
//
// The owner calls Unlink once every peer has mapped the segment; the mapping
// stays valid until the object is destroyed. An owner destroyed before Unlink
// unlinks on the way out, so a failed setup leaves nothing in /dev/shm.
//
// Thread safety: none (a plain value type); the mapped memory is shared.
#ifndef GPURUN_P2P_SHM_SHM_SEGMENT_H_
#define GPURUN_P2P_SHM_SHM_SEGMENT_H_

#include <cstddef>
#include <string>

#include "runtime/base/status.h"

namespace gpurun::p2p::shm {

class ShmSegment {
 public:
  // Creates and maps segment `name` ("/gpurun-..."), `bytes` long, zero-filled.
  // A leftover with the same name (a crashed earlier incarnation of the same
  // job id) is unlinked and replaced, with a warning.
  static StatusOr<ShmSegment> Create(const std::string& name, size_t bytes);
  // Maps an existing segment that another rank created; fails when it is
  // missing or shorter than `min_bytes`.
  static StatusOr<ShmSegment> Open(const std::string& name, size_t min_bytes);

  ShmSegment() = default;
  ShmSegment(ShmSegment&& other) noexcept { *this = std::move(other); }
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment() { Reset(); }

  // Touches every page of [offset, offset + bytes) for writing now (one
  // store per page of the value already there), so that the first messages
  // through a ring pay no page faults (~15 us a page, measured in a VM). The
  // caller makes sure nobody else writes there meanwhile (at creation, before
  // any rank can send).
  void Prefault(size_t offset, size_t bytes) const;
  // Removes the name (owner only; no-op otherwise or when already done).
  Status Unlink();
  // Unmaps (and unlinks, if owned and still linked).
  void Reset();

  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  bool linked_owner_ = false;  // created here and not unlinked yet
};

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_SEGMENT_H_
