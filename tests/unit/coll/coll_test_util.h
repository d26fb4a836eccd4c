// Shared by the collective pattern tests: the rank counts every pattern is
// checked over, and a deterministic pseudo-random source.
#ifndef GPURUN_TESTS_UNIT_COLL_COLL_TEST_UTIL_H_
#define GPURUN_TESTS_UNIT_COLL_COLL_TEST_UTIL_H_

#include <cstdint>
#include <vector>

namespace gpurun::coll::testing {

// 1..17 (odd and even, powers of two and their neighbours), then larger ones.
inline std::vector<int> RankCounts() {
  std::vector<int> counts;
  for (int n = 1; n <= 17; ++n) counts.push_back(n);
  for (int n : {31, 32, 33, 64, 100, 127, 128, 129, 255, 1000}) counts.push_back(n);
  return counts;
}

// SplitMix64: a fixed, platform-independent sequence for test data.
class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace gpurun::coll::testing

#endif  // GPURUN_TESTS_UNIT_COLL_COLL_TEST_UTIL_H_
