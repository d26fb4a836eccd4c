// The fast part of the collective correctness matrix (label mp, run in CI):
// every collective x every type x every op under every forced (algorithm,
// protocol) and the tuner's own choice, on 1 to 4 ranks, with sizes up to
// 4096+3 bytes, offsets 0 and 12, both in-place modes, roots 0 and last.
// The whole matrix is the nightly part (coll_matrix_nightly_test.cc).
#include <gtest/gtest.h>

#include <tuple>

#include "tests/matrix/matrix_driver.h"

namespace gpurun::matrix {
namespace {

class CollMatrixCi : public ::testing::TestWithParam<std::tuple<int, Variant>> {};

TEST_P(CollMatrixCi, SmallSizes) {
  MatrixJob job;
  job.ranks = std::get<0>(GetParam());
  job.variant = std::get<1>(GetParam());
  job.colls = AllColls();
  job.slice = {"--types=all", "--ops=all", "--sizes=0,1,7,1023,4099", "--offsets=0,12", "--inplace=out,in"};
  job.limit_s = 120;
  RunMatrixJob(job);
}

INSTANTIATE_TEST_SUITE_P(Matrix, CollMatrixCi,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4), ::testing::ValuesIn(AllVariants())),
                         [](const auto& info) {
                           return std::to_string(std::get<0>(info.param)) + "ranks_" +
                                  VariantName(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace gpurun::matrix
