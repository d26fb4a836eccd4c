// Counts and prints what the matrix found on one rank: checks (calls this
// rank verified), failures (printed with the case, the rank and what was
// wrong, up to a limit) and skips (calls rejected as expected; the first
// rejection of each collective is printed as "skipped: <message>").
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

  uint64_t checks() const { return checks_; }
  uint64_t failures() const { return failures_; }
  uint64_t skipped() const { return skipped_; }

 private:
  int rank_;
  uint64_t max_printed_;
  uint64_t checks_ = 0;
  uint64_t failures_ = 0;
  uint64_t skipped_ = 0;
  std::array<bool, kNumColls> skip_printed_{};
};

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_REPORTER_H_
