// What the GPU tests (ctest label gpu) need before they start a job: whether
// this machine has a CUDA device (and if not, why: the skip message), which
// collectives must run on device buffers (the GPU ring path's and those over
// device point-to-point), the optional restriction of a run to some
// collectives
// (GR_TEST_GPU_COLLS=allreduce,reduce, names as coll_matrix --colls takes),
// and where compute-sanitizer is ($GR_TEST_COMPUTE_SANITIZER, else PATH,
// else /usr/local/cuda/bin). GpuMatrixTest is the fixture of every GPU
// matrix job: it skips without a device (or without compute-sanitizer when
// the case needs it), applies GR_TEST_GPU_COLLS, and makes the job.
#ifndef GPURUN_TESTS_GPU_GPU_ENV_H_
#define GPURUN_TESTS_GPU_GPU_ENV_H_

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "tests/matrix/matrix_driver.h"

namespace gpurun::gpu_test {

using matrix::Coll;

// "" when a CUDA device is there, else why not ("no CUDA device:
// cudaGetDeviceCount returned cudaErrorNoDevice (...)", or that gpurun was
// built without CUDA). Asked once per process.
const std::string& NoGpuReason();

// The number of CUDA devices (0 without).
int GpuCount();

// The path of compute-sanitizer, or "" when there is none.
std::string ComputeSanitizer();

// The collectives of the GPU ring path (every type and op of the host path,
// ring with the Simple protocol only): allreduce, bcast, broadcast, reduce,
// allgather, reducescatter.
std::vector<Coll> RingColls();
// The collectives over device point-to-point, exact on device buffers as on
// host ones, under any forced algorithm and protocol: allgatherv, alltoall,
// alltoallv, gather, gatherv, scatter, scatterv.
std::vector<Coll> P2pColls();
// Both: the collectives that must run on device buffers (grUnsupported is a
// failure for them in every GPU job).
std::vector<Coll> RequiredColls();
// Every other collective (the barrier): on device buffers it may answer
// grUnsupported.
std::vector<Coll> OtherColls();

// One GPU matrix job.
struct GpuCase {
  std::string name;  // the test's name: "2ranks_stream_small"
  int ranks = 2;
  int nodes = 1;        // gpurun --nodes (ranks on different simulated hosts meet over NET)
  bool stream = false;  // coll_matrix --stream
  matrix::Variant variant;
  std::vector<Coll> colls;          // before GR_TEST_GPU_COLLS
  bool may_be_unsupported = false;  // those of OtherColls() may answer grUnsupported
  std::vector<std::string> slice;   // coll_matrix's --types, --sizes, ...
  double limit_s = 300;
  std::string tool;  // run each rank under `compute-sanitizer --tool <tool>` ("": directly)
  std::vector<std::pair<std::string, std::string>> env;  // further variables of the job
};

class GpuMatrixTest : public ::testing::TestWithParam<GpuCase> {
 protected:
  // Skips without a device or a needed compute-sanitizer, fails on a bad
  // GR_TEST_GPU_COLLS, skips when it selects none of the case's collectives.
  void SetUp() override;
  // The case as a matrix job on device buffers (GPURUN_LOCAL_RANK modulo the
  // devices: with 2 GPUs, 2 ranks get one each and 4 ranks two each).
  matrix::MatrixJob Job() const;

  std::vector<Coll> colls_;  // the case's, after GR_TEST_GPU_COLLS
};

// For INSTANTIATE_TEST_SUITE_P: the case's name; and what gtest prints for
// a case (its name, not its bytes).
std::string CaseName(const ::testing::TestParamInfo<GpuCase>& info);
void PrintTo(const GpuCase& g, std::ostream* os);

}  // namespace gpurun::gpu_test

#endif  // GPURUN_TESTS_GPU_GPU_ENV_H_
