// One case of the matrix (a collective call with its type, op, size, offset,
// in-place mode and root) and its plan on this rank: what each buffer holds
// before the call, what it must hold after, and the call itself.
//
// A buffer's contents are described by segments over its elements; every
// element outside the segments is poison (kPoisonByte) before the call and
// must still be poison after it. A segment without a pattern is not checked
// after the call (an in-place reducescatter leaves the other blocks
// undefined).
#ifndef GPURUN_TESTS_MATRIX_CASE_PLAN_H_
#define GPURUN_TESTS_MATRIX_CASE_PLAN_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"
#include "tests/matrix/matrix_spec.h"
#include "tests/matrix/pattern.h"

namespace gpurun::matrix {

struct Case {
  Coll coll = Coll::kAllreduce;
  grDataType_t type = grFloat32;
  grRedOp_t op = grSum;  // reducing collectives only
  size_t bytes = 0;      // the size; count = bytes / element size
  size_t count = 0;
  size_t offset = 0;  // bytes added to every buffer's 64-byte aligned start
  bool in_place = false;
  int root = 0;  // rooted collectives only
  Algo algo = Algo::kAuto;
  Proto proto = Proto::kAuto;
};

// "allreduce type=int8 op=sum bytes=7 count=7 offset=4 inplace=1 root=- algo=ring proto=ll"
std::string Describe(const Case& c);

struct Segment {
  size_t at = 0;     // first element, from the start of the buffer
  size_t count = 0;  // elements
  const Pattern* pattern = nullptr;
  size_t first = 0;  // index in the pattern of the segment's first element
};

struct BufferPlan {
  size_t elems = 0;
  std::vector<Segment> before;
  std::vector<Segment> after;
};

struct Plan {
  // In place on this rank: one buffer (`recv`), the call's send and receive
  // pointers at elements send_at and recv_at of it. Otherwise two buffers.
  bool in_place = false;
  BufferPlan send;
  BufferPlan recv;
  size_t send_at = 0;
  size_t recv_at = 0;
  std::function<grResult_t(const void* send, void* recv)> call;
};

class DeviceBuffers;  // device_buffer.h

struct PlanContext {
  int rank = 0;
  int nranks = 1;
  grComm_t comm = GR_COMM_NULL;
  PatternCache* patterns = nullptr;
  // Device mode (coll_matrix --device=cuda): the device mirrors of the
  // buffers, the stream every call passes, and the collectives that may
  // answer grUnsupported. Host mode: null, GR_STREAM_HOST, none.
  DeviceBuffers* device = nullptr;
  grStream_t stream = GR_STREAM_HOST;
  bool graph = false;  // --graph: each call captured from `stream` into a CUDA graph and replayed
  std::vector<Coll> may_be_unsupported;
};

// Whether grUnsupported is an acceptable answer for `coll` in this job.
bool MayBeUnsupported(const PlanContext& x, Coll coll);

Plan MakePlan(const Case& c, PlanContext& x);

// Per collective family (plans_*.cc).
Plan PlanAllreduce(const Case& c, PlanContext& x);
Plan PlanReduce(const Case& c, PlanContext& x);
Plan PlanReducescatter(const Case& c, PlanContext& x);
Plan PlanAllgather(const Case& c, PlanContext& x);
Plan PlanAllgatherv(const Case& c, PlanContext& x);
Plan PlanGather(const Case& c, PlanContext& x);
Plan PlanGatherv(const Case& c, PlanContext& x);
Plan PlanBcast(const Case& c, PlanContext& x);
Plan PlanBroadcast(const Case& c, PlanContext& x);
Plan PlanScatter(const Case& c, PlanContext& x);
Plan PlanScatterv(const Case& c, PlanContext& x);
Plan PlanAlltoall(const Case& c, PlanContext& x);
Plan PlanAlltoallv(const Case& c, PlanContext& x);

// Building blocks shared by the plans.
inline Segment Seg(size_t at, size_t count, const Pattern& p, size_t first = 0) { return {at, count, &p, first}; }
inline Segment Unchecked(size_t at, size_t count) { return {at, count, nullptr, 0}; }

// The data a rank moves (never reduces): sequence of rank `r`, and of the
// block that rank `src` sends to rank `dst`.
const Pattern& RankData(PlanContext& x, grDataType_t type, int r);
const Pattern& PairData(PlanContext& x, grDataType_t type, int src, int dst);

// Blocks of VCount(c, r) elements for r = 0 .. n-1, laid out in reverse rank
// order (the last rank's block first) with `gap` poison elements before,
// between and after them.
struct VLayout {
  std::vector<size_t> counts;
  std::vector<size_t> displs;
  size_t total = 0;
};
VLayout ReversedLayout(size_t c, int nranks, size_t gap);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_CASE_PLAN_H_
