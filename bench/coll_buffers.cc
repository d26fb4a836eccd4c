// Benchmark buffers and the data check (see coll_buffers.h).
#include "bench/coll_buffers.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "bench/elem_codec.h"

namespace {

// 0xa5 in every byte: a negative float/double, -91 or 165 in 8 bits; never a
// value the inputs produce for the wider types.
constexpr unsigned char kPoison = 0xa5;

bool InPlace(const CollCase& c) { return c.in_place && c.layout.in_place_here; }

bool SendsData(const CollCase& c) {
  const bool rooted_source = c.pattern.kind == CollKind::kBcast || c.pattern.kind == CollKind::kScatter;
  return !rooted_source || c.rank == c.pattern.root;
}

bool ReceivesData(const CollCase& c) {
  const bool rooted_sink = c.pattern.kind == CollKind::kReduce || c.pattern.kind == CollKind::kGather;
  return !rooted_sink || c.rank == c.pattern.root;
}

}  // namespace

AlignedBuffer::AlignedBuffer(size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, 4096, bytes > 0 ? bytes : 1) != 0) throw std::bad_alloc();
  data_ = static_cast<char*>(p);
  std::memset(data_, 0, bytes > 0 ? bytes : 1);
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

void* SendPointer(const CollCase& c, BufferView b) {
  if (!InPlace(c)) return b.send + c.shift;
  return b.recv + c.shift + c.layout.in_place_send_offset * ElemSize(c.pattern.type);
}

void* RecvPointer(const CollCase& c, BufferView b) {
  if (!InPlace(c)) return b.recv + c.shift;
  return b.recv + c.shift + c.layout.in_place_recv_offset * ElemSize(c.pattern.type);
}

void PrepareCheck(const CollCase& c, const CollBuffers& b) {
  const grDataType_t type = c.pattern.type;
  std::memset(RecvPointer(c, b), kPoison, c.layout.recv_elems * ElemSize(type));
  if (!SendsData(c)) return;
  void* send = SendPointer(c, b);
  for (size_t i = 0; i < c.layout.send_elems; ++i) StoreElem(type, send, i, InputValue(c.pattern, c.rank, i));
}

size_t CountWrong(const CollCase& c, const CollBuffers& b) {
  if (!ReceivesData(c)) return 0;
  const void* recv = RecvPointer(c, b);
  size_t wrong = 0;
  for (size_t i = 0; i < c.layout.recv_elems; ++i) {
    const double expected = ExpectedValue(c.pattern, c.layout, c.rank, i);
    if (!ValueMatches(c.pattern, LoadElem(c.pattern.type, recv, i), expected)) ++wrong;
  }
  return wrong;
}
