// The benchmark's buffers: one send and one receive buffer per rank,
// allocated once for the largest size (page-aligned and touched, so neither
// allocation nor page faults fall inside a timed loop), the pointers a call
// gets out of place and in place, and the data check: fill the inputs, poison
// the outputs, count the wrong output elements. The check works on host
// memory; with device buffers it runs on a host copy (bench_target.h).
#ifndef GPURUN_BENCH_COLL_BUFFERS_H_
#define GPURUN_BENCH_COLL_BUFFERS_H_

#include <cstddef>

#include "bench/coll_data.h"
#include "bench/coll_layout.h"

// A page-aligned, zero-filled allocation.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  char* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  char* data_ = nullptr;
  size_t bytes_ = 0;
};

// What one rank's call of one row is: the collective's data pattern, the
// layout, this rank, and whether it is the in-place variant. An in-place call
// works inside the receive buffer.
struct CollCase {
  DataPattern pattern;
  CollLayout layout;
  int rank = 0;
  bool in_place = false;
  size_t shift = 0;  // bytes from the buffers' starts to this call's (-m: the piece of an aggregated call)
};

// Where one rank's send and receive buffers start (host or device memory).
struct BufferView {
  char* send = nullptr;
  char* recv = nullptr;
};

struct CollBuffers {
  explicit CollBuffers(size_t max_bytes) : send(max_bytes), recv(max_bytes) {}
  BufferView view() const { return {send.data(), recv.data()}; }
  AlignedBuffer send;
  AlignedBuffer recv;
};

// The buffers the call passes (in place: the views inside the receive buffer).
void* SendPointer(const CollCase& c, BufferView b);
void* RecvPointer(const CollCase& c, BufferView b);
inline void* SendPointer(const CollCase& c, const CollBuffers& b) { return SendPointer(c, b.view()); }
inline void* RecvPointer(const CollCase& c, const CollBuffers& b) { return RecvPointer(c, b.view()); }

// Poisons this rank's output, then writes the inputs of iteration
// c.pattern.iter (only the root's for bcast and scatter).
void PrepareCheck(const CollCase& c, const CollBuffers& b);

// Output elements of this rank that differ from the expected values (0 on a
// rank that receives nothing, e.g. a non-root of reduce or gather).
size_t CountWrong(const CollCase& c, const CollBuffers& b);

#endif  // GPURUN_BENCH_COLL_BUFFERS_H_
