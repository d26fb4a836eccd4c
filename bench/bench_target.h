// Where gpurun-bench's collectives run (--device): host buffers with
// GR_STREAM_HOST, or buffers on this rank's GPU with one CUDA stream
// (cuda_target.h). The sweep reaches memory, ordering and the data check's
// copies only through BenchTarget, so one sweep serves both.
//
// This file's .cc is the one place that knows whether the build has CUDA
// (GPURUN_HAVE_CUDA): PrepareDevice, MakeTarget and MakeCompareLibrary fail
// with a clear message in a build without it.
#ifndef GPURUN_BENCH_BENCH_TARGET_H_
#define GPURUN_BENCH_BENCH_TARGET_H_

#include <cstddef>
#include <memory>
#include <string>

#include "bench/bench_args.h"
#include "bench/coll_buffers.h"
#include "bench/coll_library.h"
#include "gpurun/gpurun.h"
#include "runtime/base/status.h"

class BenchTarget {
 public:
  virtual ~BenchTarget() = default;

  // The buffers the calls get (send and receive, max_bytes each).
  virtual BufferView buffers() const = 0;
  // The benchmark's stream: GR_STREAM_HOST on the host, else the stream it
  // created (a cudaStream_t; gpurun gets it unless --blocking).
  virtual grStream_t stream() const = 0;
  // Host memory the data check fills and reads (the buffers themselves on the host).
  virtual CollBuffers& mirror() = 0;
  // Waits for everything enqueued on stream() (nothing to do on the host).
  virtual gpurun::Status Sync() = 0;
  // Copies the first `bytes` of both mirror buffers to the buffers, and waits.
  virtual gpurun::Status Upload(size_t bytes) = 0;
  // Copies the first `bytes` of the receive buffer back to the mirror, and waits.
  virtual gpurun::Status Download(size_t bytes) = 0;
  // --graph: starts capturing stream() (this thread's calls), ends it into
  // an instantiated graph, launches that graph on stream(), and destroys it
  // (before the library whose calls it holds goes: NCCL's teardown waits for
  // graphs that hold its work). Unsupported on the host.
  virtual gpurun::Status BeginCapture() = 0;
  virtual gpurun::Status EndCapture() = 0;
  virtual gpurun::Status Replay() = 0;
  virtual void DropGraph() = 0;
};

// Host buffers of max_bytes each, page-aligned and touched.
std::unique_ptr<BenchTarget> MakeHostTarget(size_t max_bytes);

struct NcclApi;  // nccl_loader.h (CUDA builds only)

// What PrepareDevice set up before grInit.
struct DeviceSetup {
  int device = -1;  // this rank's CUDA device; -1 on the host
  int device_count = 0;
  std::string device_name;
  std::shared_ptr<const NcclApi> nccl;  // --compare nccl
  std::string nccl_version;             // "2.28.9"
};

// Before grInit, on every rank: --device cuda selects this rank's GPU
// (GPURUN_LOCAL_RANK modulo the visible devices) before anything is
// allocated; --compare nccl sets NCCL_NVLS_ENABLE=0 (refusing any other
// value) and loads NCCL. An error names what failed (dlerror() for dlopen).
gpurun::StatusOr<DeviceSetup> PrepareDevice(const BenchArgs& args);

// After grInit: the target --device asks for, with buffers of args.max_bytes
// (and, on a device with checks on, host mirrors of that size).
gpurun::StatusOr<std::unique_ptr<BenchTarget>> MakeTarget(const BenchArgs& args);

// After grInit, collective over the world communicator: NCCL on the target's
// buffers and stream (rank 0's unique id reaches the others by grBcast).
gpurun::StatusOr<std::unique_ptr<CollLibrary>> MakeCompareLibrary(const BenchArgs& args, const DeviceSetup& setup,
                                                                  BenchTarget& target, int rank, int nranks);

#endif  // GPURUN_BENCH_BENCH_TARGET_H_
