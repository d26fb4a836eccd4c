// Command-line flags of coll_matrix: which slice of the matrix one job runs,
// and where the buffers live (host memory, or CUDA device memory with the
// calls on the null stream or on a stream of the program's own). Lists are
// comma-separated; "all" (or leaving a flag out) means the whole dimension.
// A flag is "--name=value" or "--name value" ("--stream" takes none).
// Parsing is strict: an unknown flag or name is an error.
#ifndef GPURUN_TESTS_MATRIX_MATRIX_FLAGS_H_
#define GPURUN_TESTS_MATRIX_MATRIX_FLAGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/matrix/matrix_spec.h"

namespace gpurun::matrix {

struct Flags {
  std::vector<Coll> colls = AllColls();
  std::vector<grDataType_t> types = AllTypes();
  std::vector<grRedOp_t> ops = AllOps();
  std::vector<size_t> sizes = AllSizes();  // bytes of the count argument
  std::vector<size_t> offsets = AllOffsets();
  std::vector<bool> in_place = {false, true};
  uint64_t max_bytes = UINT64_MAX;  // sizes above are left out
  bool all_roots = false;           // every rank as root (default: 0 and the last)
  Algo algo = Algo::kAuto;          // what the job's GPURUN_ALGO forces
  Proto proto = Proto::kAuto;       // what the job's GPURUN_PROTO forces
  uint64_t max_printed = 20;        // failure lines printed per rank
  // Device mode (--device=cuda): every buffer a call sees is device memory.
  bool on_device = false;
  bool stream = false;  // --stream: calls pass the program's CUDA stream (else GR_STREAM_HOST)
  bool graph = false;   // --graph: each call is captured into a CUDA graph and replayed (needs --stream)
  // The collectives that must run on device buffers; the others of `colls`
  // may answer grUnsupported (counted and printed, never a failure).
  std::vector<Coll> device_colls = AllColls();
};

extern const char kUsage[];

// The flags, or nullopt with *error saying which argument is wrong.
std::optional<Flags> ParseFlags(int argc, char** argv, std::string* error);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_MATRIX_FLAGS_H_
