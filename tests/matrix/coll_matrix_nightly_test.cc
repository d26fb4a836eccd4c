// The whole collective correctness matrix (label nightly; registered only
// when the build is configured with -DGPURUN_NIGHTLY_TESTS=ON, as
// scripts/nightly.sh does, so CI never runs it): every collective x every
// type x every op x sizes 0 .. 16 MiB x offsets {0, 4, 8, 12} x in-place and
// out-of-place x roots 0 and last, on 1, 2, 3, 4 and 8 ranks, under every
// forced (algorithm, protocol) and the tuner's own choice. One test per
// (ranks, variant, collective), so a failure names its collective.
#include <gtest/gtest.h>

#include <tuple>

#include "tests/matrix/matrix_driver.h"

namespace gpurun::matrix {
namespace {

class CollMatrixNightly : public ::testing::TestWithParam<std::tuple<int, Variant, Coll>> {};

TEST_P(CollMatrixNightly, Full) {
  MatrixJob job;
  job.ranks = std::get<0>(GetParam());
  job.variant = std::get<1>(GetParam());
  job.colls = {std::get<2>(GetParam())};
  job.limit_s = 4 * 3600;  // forced LL on 8 ranks moves 16 MiB blocks at a few MB/s
  RunMatrixJob(job);
}

INSTANTIATE_TEST_SUITE_P(Matrix, CollMatrixNightly,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4, 8), ::testing::ValuesIn(AllVariants()),
                                            ::testing::ValuesIn(AllColls())),
                         [](const auto& info) {
                           return std::to_string(std::get<0>(info.param)) + "ranks_" +
                                  VariantName(std::get<1>(info.param)) + "_" + CollName(std::get<2>(info.param));
                         });

}  // namespace
}  // namespace gpurun::matrix
