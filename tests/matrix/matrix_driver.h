// The gtest side of the collective matrix: runs one coll_matrix job under the
// project's gpurun with GPURUN_ALGO / GPURUN_PROTO forcing a variant, and
// checks what it printed: exit status 0, a summary with checks and no
// failures, and skip lines for exactly the collectives the variant must be
// rejected for (matrix_spec.h, ExpectRejected), no more, no fewer. A device
// job (coll_matrix --device=cuda) may also print "unsupported" lines, for the
// collectives it allows to be unsupported only.
//
// The binaries: $GR_TEST_BIN_DIR/coll_matrix, else coll_matrix next to the
// running test executable (so a bundle's .gpu/bin works as it is), else the
// build's bin folder; the launcher is $GR_TEST_LAUNCHER, else gpurun in the
// same folder as coll_matrix.
#ifndef GPURUN_TESTS_MATRIX_MATRIX_DRIVER_H_
#define GPURUN_TESTS_MATRIX_MATRIX_DRIVER_H_

#include <string>
#include <utility>
#include <vector>

#include "tests/matrix/matrix_spec.h"

namespace gpurun::matrix {

struct Variant {
  Algo algo = Algo::kAuto;
  Proto proto = Proto::kAuto;
};

// The tuner's own choice, then ring, tree and oneshot with each protocol
// (the host engine's algorithms).
std::vector<Variant> AllVariants();
// "auto", "ring_ll", "tree_simple", ...
std::string VariantName(const Variant& v);

// Device mode of a job: coll_matrix --device=cuda [--stream]
// --device-collectives=<the job's collectives but may_be_unsupported>.
struct DeviceJob {
  bool on = false;
  bool stream = false;
  std::vector<Coll> may_be_unsupported;
};

struct MatrixJob {
  int ranks = 2;
  int nodes = 1;  // gpurun --nodes: simulated hosts (their ranks meet over NET)
  Variant variant;
  std::vector<Coll> colls;
  std::vector<std::string> slice;  // further coll_matrix flags (--types=..., --sizes=...)
  double limit_s = 600;            // the job is killed (and the test fails) past this
  DeviceJob device;
  std::vector<std::string> wrapper;  // run each rank as wrapper + coll_matrix ... (compute-sanitizer --tool memcheck)
  std::vector<std::pair<std::string, std::string>> env;  // further variables of the job (GPURUN_GPU_PATH=host)
};

// The folder of the rank programs: $GR_TEST_BIN_DIR, else the running test
// executable's folder when `program` is there, else the build's bin folder.
std::string TestBinDir(const std::string& program);
// $GR_TEST_LAUNCHER, else gpurun in `bin_dir`.
std::string TestLauncher(const std::string& bin_dir);

// "allreduce,bcast".
std::string JoinColls(const std::vector<Coll>& colls);

// Runs the job and records gtest failures for everything wrong with it;
// returns what the job printed (stdout, then stderr).
std::string RunMatrixJob(const MatrixJob& job);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_MATRIX_DRIVER_H_
