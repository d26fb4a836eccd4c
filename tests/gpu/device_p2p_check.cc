// device_p2p_check: the rank program of the device-buffer point-to-point
// checks (gpu_p2p_test.cc). Run it under `gpurun -n N`; each rank uses CUDA
// device GPURUN_LOCAL_RANK modulo the device count (ranks may share a GPU).
// Every message is a pattern unique to its phase, sender, receiver and
// index; every receive buffer is poisoned, with kGuard poisoned bytes after
// its end (and a lead before it in some), and is checked byte for byte after
// the call: the data written, poison everywhere else. Each phase runs every
// mix of host and device memory on the sending and the receiving side:
//   blocking    grSend/grRecv between partners rank^1, rank^2, ...: 0, 1 and
//               7 B, 7 int32, 4 KiB, 1 MiB + 3 int32, 64 MiB (rank^1 only);
//               result, status, grGetCount, send buffer unchanged
//   self        a rank to itself: Isend+Recv, Irecv+Send, Sendrecv
//   sendrecv    grSendrecv around the ring
//   inflight    12 messages to every rank (itself too) in flight at once with
//               different tags, Irecvs posted in descending tag order (half
//               before the Isends), completed by grWaitany
//   order       rank 0 receives all with GR_ANY_SOURCE and GR_ANY_TAG: each
//               sender's messages (large and small, device and host, three
//               tags) arrive in the order sent
//   truncation  a receive buffer too small: grTruncated in the result and the
//               status, status bytes = bytes written, nothing past the end
//   probe       grProbe/grIprobe report the whole message (also before a
//               truncating receive); grIprobe finds nothing unsent
//   stream      stream-ordered device messages (0 B .. 136 MiB, beyond the
//               pair's FIFOs): data produced on the stream (behind a 50 ms
//               host function) just before grSend/grIsend/grSendrecv is what
//               arrives; a receive buffer re-poisoned on it just before
//               grRecv/grIrecv is not overwritten by that; a cudaMemcpyAsync
//               on it after the receive sees the data; the status is filled
//               in stream order; grIsend/grIrecv leave a null request; more
//               room than the message; grSendrecv around the ring and to itself
//   stream-errors  refused at the call: a send to itself alone, GR_ANY_SOURCE;
//               reported later: truncated (status, then nothing written past
//               the room) and mismatched (dropped) messages, and without a
//               status by the next stream-ordered call
//   stream-host host buffers with a stream are grUnsupported, post nothing
//   group       grGroupStart/grGroupEnd: an all-to-all of 3 MiB messages
//               (sends ascending, receives descending) and an allreduce in
//               one group, host and device buffers; refusals
//   pool        a send from cudaMallocAsync memory (CUDA IPC cannot export it)
//               is grUnsupported without a stream, with a message saying so,
//               and posts nothing; on a stream it arrives
//   coll-group  ring/tree collectives on device buffers in groups, fused into
//               launches (independent ones, adjacent halves of a buffer,
//               a chain of dependent ones, three kernels in turn; stream and
//               null stream) and a group captured into a CUDA graph and
//               replayed (p2p_check_phases_coll_group.cc)
//   coll-direct small allreduces in groups (one-shot batches: many calls,
//               another kernel among them, a chain) and a group of nine in
//               a CUDA graph (p2p_check_phases_coll_group.cc)
// Prints one line per failure, "FAIL rank=R <phase>: <what>", and rank 0 the
// summary "device_p2p_check: C checks, F failures, S skipped on N ranks".
// Exit status 0 when no rank failed, 1 when one did (a call that fails
// where it must not aborts the job: its ranks may be out of step), 2 on a
// usage or setup error.
//
// This file holds main: the device, grInit, the phases in order (declared in
// p2p_check_phases.h) and the summary; p2p_check_support.h has the buffers,
// messages and failure reporting they share.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpurun/gpurun.h"
#include "tests/gpu/p2p_check_phases.h"
#include "tests/gpu/p2p_check_support.h"

namespace gpurun::p2p_check {
namespace {

int LocalRank() {
  const char* text = std::getenv("GPURUN_LOCAL_RANK");
  return text == nullptr ? 0 : std::atoi(text);
}

// The device and the stream, before grInit (the library finds the device current).
bool OpenDevice() {
  cudaError_t e = cudaGetDeviceCount(&g.devices);
  if (e != cudaSuccess || g.devices == 0) {
    std::fprintf(stderr, "device_p2p_check: no CUDA device: cudaGetDeviceCount: %s\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no devices");
    return false;
  }
  g.device = LocalRank() % g.devices;
  if ((e = cudaSetDevice(g.device)) == cudaSuccess) e = cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) std::fprintf(stderr, "device_p2p_check: device %d: %s\n", g.device, cudaGetErrorString(e));
  return e == cudaSuccess;
}

int Main(int argc, char** argv) {
  // Optional: the phases to run, comma separated (a reduced set under
  // compute-sanitizer); every phase by default.
  std::string only;
  if (argc == 2 && std::strncmp(argv[1], "--phases=", 9) == 0) {
    only = "," + std::string(argv[1] + 9) + ",";
  } else if (argc > 1) {
    std::fprintf(stderr, "usage: gpurun -n N device_p2p_check [--phases=NAME,NAME...]\n");
    return 2;
  }
  if (!OpenDevice()) return 2;
  grResult_t r = grInit(&argc, &argv);
  if (r != grSuccess) {
    std::fprintf(stderr, "device_p2p_check: grInit: %s\n", ErrorText(r).c_str());
    return 2;
  }
  g.world = grCommWorld();
  grCommRank(g.world, &g.rank);
  grCommSize(g.world, &g.size);
  const struct {
    const char* name;
    void (*run)();
  } phases[] = {{"blocking", Blocking},
                {"self", Self},
                {"sendrecv", SendrecvRing},
                {"inflight", Inflight},
                {"order", Order},
                {"truncation", Truncation},
                {"probe", Probe},
                {"stream", Streams},
                {"stream-errors", StreamErrors},
                {"stream-host", HostBufferWithStream},
                {"pool", Pool},
                {"group", Group},
                {"coll-group", CollGroup},
                {"coll-direct", CollDirect}};
  for (const auto& phase : phases) {
    if (!only.empty() && only.find("," + std::string(phase.name) + ",") == std::string::npos) continue;
    g.phase = phase.name;
    phase.run();
    Ok(grBarrier(g.world, GR_STREAM_HOST), "grBarrier after the phase");
  }
  g.phase = "summary";
  const uint64_t mine[3] = {g.checks, g.failures, g.skipped};
  uint64_t total[3] = {0, 0, 0};
  Ok(grAllreduce(mine, total, 3, grUint64, grSum, g.world, GR_STREAM_HOST), "grAllreduce of the counts");
  if (g.rank == 0) {
    std::printf("device_p2p_check: %llu checks, %llu failures, %llu skipped on %d ranks (%d GPUs)\n",
                static_cast<unsigned long long>(total[0]), static_cast<unsigned long long>(total[1]),
                static_cast<unsigned long long>(total[2]), g.size, g.devices);
    std::fflush(stdout);
  }
  r = grFinalize();
  if (r != grSuccess) {
    std::fprintf(stderr, "device_p2p_check rank %d: grFinalize: %s\n", g.rank, ErrorText(r).c_str());
    return 2;
  }
  cudaStreamDestroy(g.stream);
  return total[1] == 0 ? 0 : 1;
}

}  // namespace
}  // namespace gpurun::p2p_check

int main(int argc, char** argv) { return gpurun::p2p_check::Main(argc, argv); }
