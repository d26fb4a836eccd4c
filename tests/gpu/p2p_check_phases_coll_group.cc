// p2p_check_phases_coll_group.cc: the "coll-group" phase of device_p2p_check
// — ring/tree collectives on device buffers inside grGroupStart /
// grGroupEnd, which GpuColl::RunGroup fuses into as few launches as it may
// (one while the calls share a kernel and none touches what an earlier one
// of the launch writes). Every output is poisoned, with guard bytes after
// it, and checked byte for byte: the exact result (small integers, so any
// summation order gives it), poison everywhere else (a reduce's receive
// buffer off the root stays poison). On the rank's stream and on the null
// stream:
//   independent  allreduce of 1, 7, 1023, 4099, 65541 and 1 MiB + 5 floats
//                (one in place), allgather, reduce-scatter, broadcast and
//                reduce, all float sum: one launch where the tuner picks
//                ring or tree for all (gpu_p2p_test forces it and looks for
//                the launch in the log);
//   adjacent     two allreduces writing the two halves of one buffer (no
//                byte shared: they may fuse);
//   chain        allreduce A -> B, B -> C, then C in place: each reads what
//                the one before wrote, so each waits for the last's launch;
//   kernels      int32 max, float sum, int32 max: another kernel each time;
// and a group of three allreduces captured into a CUDA graph, replayed
// twice with new inputs. The "coll-direct" phase, the one-shot batches
// (coll/gpu/direct_batch.h; it also runs with GPURUN_ALGO=allreduce:oneshot):
//   small        twelve allreduces of 1 to 16384 floats (64 KiB, the batch
//                region's largest) and one of 16385 (the large region's),
//                one in place, an int32 max among them: more calls than one
//                launch takes, and another kernel between them;
//   small chain  A -> B, B -> C, C in place, of 4099 floats;
//   small graph  nine allreduces of 1023 floats captured, replayed twice.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"
#include "tests/gpu/p2p_check_phases.h"
#include "tests/gpu/p2p_check_support.h"

namespace gpurun::p2p_check {
namespace {

enum class Kind { kAllreduce, kAllgather, kReduceScatter, kBcast, kReduce };

// One collective of a group: its buffers, what it must leave in them, and
// the call.
struct Call {
  Kind kind = Kind::kAllreduce;
  grDataType_t type = grFloat32;
  grRedOp_t op = grSum;
  size_t count = 0;  // per rank for allgather / reduce-scatter
  int root = 0;
  int salt = 0;
  std::unique_ptr<Buffer> send, recv;  // recv null: in place in send
  std::vector<uint8_t> expected;       // the output buffer's data after the group

  std::string Name() const {
    static const char* names[] = {"allreduce", "allgather", "reduce-scatter", "bcast", "reduce"};
    return std::string(names[static_cast<int>(kind)]) + " of " + std::to_string(count) + " " +
           (type == grFloat32 ? "float" : "int32") + (recv == nullptr ? " in place" : "") + " (call " +
           std::to_string(salt) + ")";
  }
  Buffer& out() const { return recv != nullptr ? *recv : *send; }
};

// Rank r's input element i of call `salt`: a small integer.
int32_t Input(int salt, int r, size_t i) {
  return static_cast<int32_t>((i * 7 + static_cast<size_t>(salt) * 3 + r) % 17 + 1);
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// The elements as `type`.
std::vector<uint8_t> Typed(grDataType_t type, const std::vector<int64_t>& v) {
  if (type == grFloat32) return Bytes(std::vector<float>(v.begin(), v.end()));
  return Bytes(std::vector<int32_t>(v.begin(), v.end()));
}

int64_t Combine(grRedOp_t op, int64_t a, int64_t b) { return op == grMax ? (a > b ? a : b) : a + b; }

// Rank r's input of `c` (n elements) and the result over every rank.
std::vector<int64_t> InputOf(const Call& c, int r, size_t n) {
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Input(c.salt, r, i);
  return v;
}

std::vector<int64_t> Reduced(const Call& c, size_t n) {
  std::vector<int64_t> v = InputOf(c, 0, n);
  for (int r = 1; r < g.size; ++r) {
    const std::vector<int64_t> x = InputOf(c, r, n);
    for (size_t i = 0; i < n; ++i) v[i] = Combine(c.op, v[i], x[i]);
  }
  return v;
}

// Makes c's buffers (input written, output poisoned) and its expected output.
void Prepare(Call& c, bool in_place) {
  const size_t n = static_cast<size_t>(g.size);
  const size_t es = 4;
  const size_t in_count = c.kind == Kind::kReduceScatter ? c.count * n : c.count;
  const size_t out_count = c.kind == Kind::kAllgather ? c.count * n : c.count;
  c.send = std::make_unique<Buffer>(Mem::kDevice, (in_place ? std::max(in_count, out_count) : in_count) * es);
  c.send->Write(Typed(c.type, InputOf(c, g.rank, in_count)));
  if (!in_place) c.recv = std::make_unique<Buffer>(Mem::kDevice, out_count * es);
  std::vector<int64_t> want;
  switch (c.kind) {
    case Kind::kAllreduce: want = Reduced(c, c.count); break;
    case Kind::kAllgather:
      for (int r = 0; r < g.size; ++r) {
        const std::vector<int64_t> x = InputOf(c, r, c.count);
        want.insert(want.end(), x.begin(), x.end());
      }
      break;
    case Kind::kReduceScatter: {
      const std::vector<int64_t> all = Reduced(c, in_count);
      want.assign(all.begin() + static_cast<ptrdiff_t>(c.count * static_cast<size_t>(g.rank)),
                  all.begin() + static_cast<ptrdiff_t>(c.count * static_cast<size_t>(g.rank + 1)));
      break;
    }
    case Kind::kBcast: want = InputOf(c, c.root, c.count); break;
    case Kind::kReduce:
      // Off the root the receive buffer is not touched: poison stays.
      if (g.rank == c.root) want = Reduced(c, c.count);
      break;
  }
  c.expected = Typed(c.type, want);
}

grResult_t Issue(const Call& c, grStream_t stream) {
  const void* send = c.send->data();
  void* recv = c.recv != nullptr ? c.recv->data() : c.send->data();
  switch (c.kind) {
    case Kind::kAllreduce: return grAllreduce(send, recv, c.count, c.type, c.op, g.world, stream);
    case Kind::kAllgather: return grAllgather(send, recv, c.count, c.type, g.world, stream);
    case Kind::kReduceScatter: return grReduceScatter(send, recv, c.count, c.type, c.op, g.world, stream);
    case Kind::kBcast: return grBroadcast(send, recv, c.count, c.type, c.root, g.world, stream);
    case Kind::kReduce: return grReduce(send, recv, c.count, c.type, c.op, c.root, g.world, stream);
  }
  return grInternalError;
}

void Judge(const std::string& what, const Call& c) {
  const std::string bad = Differs(c.out().Image(), c.out(), c.expected);
  Expect(bad.empty(), what + ": " + c.Name() + ": " + bad);
}

void Finish(grStream_t stream) {
  if (stream != GR_STREAM_HOST) Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
}

// All of `calls` in one group on `stream`, then each judged.
void RunGroup(const std::string& what, std::vector<Call>& calls, grStream_t stream) {
  Ok(grGroupStart(), what + ": grGroupStart");
  for (const Call& c : calls) Ok(Issue(c, stream), what + ": " + c.Name() + " in the group");
  Ok(grGroupEnd(), what + ": grGroupEnd");
  Finish(stream);
  for (const Call& c : calls) Judge(what, c);
}

Call MakeCall(Kind kind, size_t count, int salt, grDataType_t type = grFloat32, grRedOp_t op = grSum, int root = 0) {
  Call c;
  c.kind = kind;
  c.count = count;
  c.salt = salt;
  c.type = type;
  c.op = op;
  c.root = root;
  return c;
}

void Independent(const std::string& mode, grStream_t stream) {
  std::vector<Call> calls;
  int salt = 0;
  for (size_t count : {size_t{1}, size_t{7}, size_t{1023}, size_t{4099}, size_t{65541}, size_t{1048581}}) {
    calls.push_back(MakeCall(Kind::kAllreduce, count, salt++));
  }
  calls.push_back(MakeCall(Kind::kAllreduce, 4099, salt++));  // in place
  calls.push_back(MakeCall(Kind::kAllgather, 1023, salt++));
  calls.push_back(MakeCall(Kind::kReduceScatter, 4099, salt++));
  calls.push_back(MakeCall(Kind::kBcast, 65541, salt++, grFloat32, grSum, g.size - 1));
  calls.push_back(MakeCall(Kind::kReduce, 7001, salt++, grFloat32, grSum, g.size - 1));
  for (size_t i = 0; i < calls.size(); ++i) Prepare(calls[i], i == 6);
  RunGroup("independent, " + mode, calls, stream);
}

// Two allreduces into the halves of one buffer: they share no byte.
void Adjacent(const std::string& mode, grStream_t stream) {
  const size_t count = 4099;
  Call a = MakeCall(Kind::kAllreduce, count, 20), b = MakeCall(Kind::kAllreduce, count, 21);
  Prepare(a, false);
  Prepare(b, false);
  Buffer out(Mem::kDevice, 2 * count * 4);
  out.Write({});
  const std::string what = "adjacent, " + mode;
  Ok(grGroupStart(), what + ": grGroupStart");
  float* base = static_cast<float*>(out.data());
  Ok(grAllreduce(a.send->data(), base, count, grFloat32, grSum, g.world, stream), what + ": first half");
  Ok(grAllreduce(b.send->data(), base + count, count, grFloat32, grSum, g.world, stream), what + ": second half");
  Ok(grGroupEnd(), what + ": grGroupEnd");
  Finish(stream);
  std::vector<uint8_t> both = a.expected;
  both.insert(both.end(), b.expected.begin(), b.expected.end());
  const std::string bad = Differs(out.Image(), out, both);
  Expect(bad.empty(), what + ": " + bad);
}

// A -> B, B -> C, C in place, of `count` floats: B = sum of A, C = n * B,
// then n * C.
void ChainOf(const std::string& what, size_t count, int salt, grStream_t stream) {
  Call a = MakeCall(Kind::kAllreduce, count, salt);
  Prepare(a, false);
  Buffer c(Mem::kDevice, count * 4);
  c.Write({});
  Ok(grGroupStart(), what + ": grGroupStart");
  Ok(grAllreduce(a.send->data(), a.recv->data(), count, grFloat32, grSum, g.world, stream), what + ": A -> B");
  Ok(grAllreduce(a.recv->data(), c.data(), count, grFloat32, grSum, g.world, stream), what + ": B -> C");
  Ok(grAllreduce(c.data(), c.data(), count, grFloat32, grSum, g.world, stream), what + ": C in place");
  Ok(grGroupEnd(), what + ": grGroupEnd");
  Finish(stream);
  Judge(what, a);
  std::vector<int64_t> want = Reduced(a, count);
  for (int64_t& x : want) x *= static_cast<int64_t>(g.size) * g.size;
  const std::string bad = Differs(c.Image(), c, Typed(grFloat32, want));
  Expect(bad.empty(), what + ": C: " + bad);
}

void Chain(const std::string& mode, grStream_t stream) { ChainOf("chain, " + mode, 65541, 30, stream); }

void Kernels(const std::string& mode, grStream_t stream) {
  std::vector<Call> calls;
  calls.push_back(MakeCall(Kind::kAllreduce, 1023, 40, grInt32, grMax));
  calls.push_back(MakeCall(Kind::kAllreduce, 1023, 41));
  calls.push_back(MakeCall(Kind::kAllreduce, 65541, 42, grInt32, grMax));
  for (Call& c : calls) Prepare(c, false);
  RunGroup("kernels, " + mode, calls, stream);
}

// A group of out-of-place allreduces captured on the rank's stream, replayed
// twice with new inputs written before each replay.
void GraphOf(const std::string& what, std::vector<Call>& calls) {
  for (Call& c : calls) Prepare(c, false);
  Cuda(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  Ok(grGroupStart(), what + ": grGroupStart");
  for (const Call& c : calls) Ok(Issue(c, reinterpret_cast<grStream_t>(g.stream)), what + ": " + c.Name());
  Ok(grGroupEnd(), what + ": grGroupEnd");
  cudaGraph_t graph = nullptr;
  Cuda(cudaStreamEndCapture(g.stream, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec = nullptr;
  Cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (int replay = 0; replay < 2; ++replay) {
    for (Call& c : calls) {
      c.salt += 10 * (replay + 1);  // new inputs, the same buffers
      c.send->Write(Typed(c.type, InputOf(c, g.rank, c.count)));
      c.recv->Write({});
      c.expected = Typed(c.type, Reduced(c, c.count));
    }
    Cuda(cudaGraphLaunch(exec, g.stream), "cudaGraphLaunch");
    Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    for (const Call& c : calls) Judge(what + " replay " + std::to_string(replay), c);
  }
  Cuda(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  Cuda(cudaGraphDestroy(graph), "cudaGraphDestroy");
}

void Graph() {
  std::vector<Call> calls;
  for (int k = 0; k < 3; ++k) calls.push_back(MakeCall(Kind::kAllreduce, k == 2 ? 1048581 : 4099, 50 + k));
  GraphOf("graph", calls);
}

void Small(const std::string& mode, grStream_t stream) {
  std::vector<Call> calls;
  int salt = 60;
  for (size_t count : {size_t{1}, size_t{7}, size_t{1023}, size_t{4099}, size_t{16384}, size_t{16385}, size_t{2},
                       size_t{255}, size_t{8191}, size_t{3}, size_t{4096}, size_t{16383}}) {
    calls.push_back(MakeCall(Kind::kAllreduce, count, salt++));
  }
  calls.insert(calls.begin() + 3, MakeCall(Kind::kAllreduce, 1023, salt++, grInt32, grMax));
  for (size_t i = 0; i < calls.size(); ++i) Prepare(calls[i], i == 9);
  RunGroup("small, " + mode, calls, stream);
}

// The chain of small calls: each reads what the one before wrote.
void SmallChain(const std::string& mode, grStream_t stream) { ChainOf("small chain, " + mode, 4099, 80, stream); }

}  // namespace

void CollDirect() {
  const struct {
    const char* name;
    grStream_t stream;
  } modes[] = {{"stream", reinterpret_cast<grStream_t>(g.stream)}, {"null stream", GR_STREAM_HOST}};
  for (const auto& m : modes) {
    Small(m.name, m.stream);
    SmallChain(m.name, m.stream);
  }
  std::vector<Call> calls;
  for (int k = 0; k < 9; ++k) calls.push_back(MakeCall(Kind::kAllreduce, 1023, 90 + k));
  GraphOf("small graph", calls);
}

void CollGroup() {
  const struct {
    const char* name;
    grStream_t stream;
  } modes[] = {{"stream", reinterpret_cast<grStream_t>(g.stream)}, {"null stream", GR_STREAM_HOST}};
  for (const auto& m : modes) {
    Independent(m.name, m.stream);
    Adjacent(m.name, m.stream);
    Chain(m.name, m.stream);
    Kernels(m.name, m.stream);
  }
  Graph();
}

}  // namespace gpurun::p2p_check
