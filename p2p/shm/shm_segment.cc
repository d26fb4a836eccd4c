// POSIX shared-memory segments (see shm_segment.h).
#include "p2p/shm/shm_segment.h"

#include <algorithm>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "runtime/base/log.h"

namespace gpurun::p2p::shm {
namespace {

// Closes a descriptor on scope exit.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

std::string Where(const std::string& name, size_t bytes) {
  return "shared-memory segment /dev/shm" + name + " (" + std::to_string(bytes) + " bytes)";
}

int OpenExclusive(const std::string& name) {
  int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0 && errno == EEXIST) {
    GR_LOG(Warn, P2p) << "removing leftover shared-memory segment /dev/shm" << name;
    shm_unlink(name.c_str());
    fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  }
  return fd;
}

StatusOr<std::byte*> Map(int fd, size_t bytes, const std::string& what) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    return ErrnoError("mmap of " + what, err);
  }
  return static_cast<std::byte*>(p);
}

}  // namespace

StatusOr<ShmSegment> ShmSegment::Create(const std::string& name, size_t bytes) {
  const int fd = OpenExclusive(name);
  if (fd < 0) {
    const int err = errno;
    return ErrnoError("cannot create " + Where(name, bytes), err);
  }
  FdCloser closer(fd);
  ShmSegment seg;
  seg.name_ = name;
  seg.linked_owner_ = true;  // from here on, failures unlink it
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    return ErrnoError("cannot size " + Where(name, bytes) + " (is /dev/shm full?)", err);
  }
  // ftruncate on tmpfs reserves nothing; allocate now so that running out of
  // room is reported here, not as a SIGBUS on first touch.
  if (const int err = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); err != 0) {
    return ErrnoError("cannot allocate " + Where(name, bytes) + " (is /dev/shm full?)", err);
  }
  GR_ASSIGN_OR_RETURN(seg.data_, Map(fd, bytes, Where(name, bytes)));
  seg.size_ = bytes;
  return seg;
}

StatusOr<ShmSegment> ShmSegment::Open(const std::string& name, size_t min_bytes) {
  const int fd = shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    const int err = errno;
    return ErrnoError("cannot open peer's shared-memory segment /dev/shm" + name, err);
  }
  FdCloser closer(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    return ErrnoError("fstat of /dev/shm" + name, err);
  }
  const auto bytes = static_cast<size_t>(st.st_size);
  if (bytes < min_bytes) {
    return InternalError("peer's " + Where(name, bytes) + " is shorter than its " + std::to_string(min_bytes) +
                         "-byte layout");
  }
  ShmSegment seg;
  seg.name_ = name;
  GR_ASSIGN_OR_RETURN(seg.data_, Map(fd, bytes, Where(name, bytes)));
  seg.size_ = bytes;
  return seg;
}

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    Reset();
    name_ = std::move(other.name_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    linked_owner_ = std::exchange(other.linked_owner_, false);
  }
  return *this;
}

void ShmSegment::Prefault(size_t offset, size_t bytes) const {
  if (data_ == nullptr || offset >= size_) return;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t end = std::min(size_, offset + bytes);
  // A store, not just a fault: MADV_POPULATE_WRITE maps the pages, yet on a
  // virtual machine the first store to each still cost ~15 us, measured.
  for (size_t at = offset / page * page; at < end; at += page) {
    auto* byte = reinterpret_cast<volatile std::byte*>(data_ + at);
    *byte = *byte;
  }
}

Status ShmSegment::Unlink() {
  if (!linked_owner_) return OkStatus();
  linked_owner_ = false;
  if (shm_unlink(name_.c_str()) != 0 && errno != ENOENT) {
    const int err = errno;
    return ErrnoError("cannot unlink /dev/shm" + name_, err);
  }
  return OkStatus();
}

void ShmSegment::Reset() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  if (linked_owner_) {
    linked_owner_ = false;
    shm_unlink(name_.c_str());
  }
}

}  // namespace gpurun::p2p::shm
