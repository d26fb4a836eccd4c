// Failure and skip reporting of the matrix (reporter.h).
#include "tests/matrix/reporter.h"

#include <cstdio>

namespace gpurun::matrix {

void Reporter::Fail(const Case& c, const std::string& what) {
  ++checks_;
  ++failures_;
  if (failures_ <= max_printed_) {
    std::printf("FAIL %s rank=%d: %s\n", Describe(c).c_str(), rank_, what.c_str());
  } else if (failures_ == max_printed_ + 1) {
    std::printf("FAIL rank=%d: more failures not printed (--max-printed=%llu)\n", rank_,
                static_cast<unsigned long long>(max_printed_));
  }
  std::fflush(stdout);
}

void Reporter::Skip(const Case& c, const std::string& message) {
  ++skipped_;
  bool& printed = skip_printed_[static_cast<int>(c.coll)];
  if (rank_ != 0 || printed) return;
  printed = true;
  std::printf("coll_matrix: %s algo=%s proto=%s: skipped: %s\n", CollName(c.coll), AlgoName(c.algo), ProtoName(c.proto),
              message.c_str());
  std::fflush(stdout);
}

void Reporter::Unsupported(const Case& c, const std::string& message) {
  ++unsupported_;
  bool& printed = unsupported_printed_[static_cast<int>(c.coll)];
  if (rank_ != 0 || printed) return;
  printed = true;
  std::printf("coll_matrix: %s on device buffers: unsupported: %s\n", CollName(c.coll), message.c_str());
  std::fflush(stdout);
}

}  // namespace gpurun::matrix
