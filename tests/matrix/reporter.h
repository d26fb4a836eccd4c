// Counts and prints what the matrix found on one rank: checks (calls this
// rank verified), failures (printed with the case, the rank and what was
// wrong, up to a limit), skips (calls rejected as expected; the first
// rejection of each collective is printed as "skipped: <message>") and, in
// device mode, calls answered grUnsupported where that is allowed (the first
// of each collective printed as "unsupported: <message>").
#ifndef GPURUN_TESTS_MATRIX_REPORTER_H_
#define GPURUN_TESTS_MATRIX_REPORTER_H_

#include <array>
#include <cstdint>
#include <string>

#include "tests/matrix/case_plan.h"

namespace gpurun::matrix {

class Reporter {
 public:
  Reporter(int rank, uint64_t max_printed) : rank_(rank), max_printed_(max_printed) {}

  void Pass() { ++checks_; }
  // A check that failed: "FAIL <case> rank=R: <what>".
  void Fail(const Case& c, const std::string& what);
  // A call rejected as expected: printed once per collective (by rank 0)
  // as "coll_matrix: <coll> algo=A proto=P: skipped: <message>".
  void Skip(const Case& c, const std::string& message);
  // A call on device buffers answered grUnsupported, as it may: printed once
  // per collective (by rank 0) as
  // "coll_matrix: <coll> on device buffers: unsupported: <message>".
  void Unsupported(const Case& c, const std::string& message);

  uint64_t checks() const { return checks_; }
  uint64_t failures() const { return failures_; }
  uint64_t skipped() const { return skipped_; }
  uint64_t unsupported() const { return unsupported_; }
  // Calls made (each is one of the above).
  uint64_t calls() const { return checks_ + skipped_ + unsupported_; }

 private:
  int rank_;
  uint64_t max_printed_;
  uint64_t checks_ = 0;
  uint64_t failures_ = 0;
  uint64_t skipped_ = 0;
  uint64_t unsupported_ = 0;
  std::array<bool, kNumColls> skip_printed_{};
  std::array<bool, kNumColls> unsupported_printed_{};
};

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_REPORTER_H_
