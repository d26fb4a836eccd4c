// LL / LL128 packing of one step on the host (coll/host/host_wire.h):
// partial last lines, the flags of each step, and LL's clean rule.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "coll/host/host_wire.h"

namespace gpurun::coll {
namespace {

constexpr uint64_t kSlotBytes = 1024;

template <typename P>
void RoundTrip(uint64_t bytes, uint64_t step) {
  alignas(128) std::byte slot[kSlotBytes] = {};
  std::vector<std::byte> in(bytes), out(bytes + 1, std::byte{0x5a});
  for (uint64_t i = 0; i < bytes; ++i) in[i] = static_cast<std::byte>(i * 7 + 1);
  HostWire<P>::Pack(slot, kSlotBytes, in.data(), bytes, step);
  int waits = 0;
  const Status s = HostWire<P>::Unpack(slot, out.data(), bytes, step, [&](auto&&) {
    ++waits;
    return TimeoutError("a line was not there");
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(waits, 0);
  EXPECT_EQ(std::memcmp(in.data(), out.data(), bytes), 0);
  EXPECT_EQ(out[bytes], std::byte{0x5a}) << "wrote past the data";
  // The next use of the slot (step + kFifoSteps) does not see this data as its own.
  if (bytes > 0) {
    const Status next = HostWire<P>::Unpack(slot, out.data(), bytes, step + kFifoSteps,
                                            [](auto&&) { return TimeoutError("not ready"); });
    EXPECT_EQ(next.code(), grTimeout);
  }
}

TEST(HostWire, LLRoundTripsPartialLines) {
  for (uint64_t bytes : {0, 1, 7, 8, 9, 100, 512}) RoundTrip<ProtoLL>(bytes, 5);
}

TEST(HostWire, LL128RoundTripsPartialLines) {
  for (uint64_t bytes : {0, 1, 119, 120, 121, 960}) RoundTrip<ProtoLL128>(bytes, 5);
}

TEST(HostWire, LLCleanStepRewritesTheWholeSlot) {
  alignas(16) std::byte slot[kSlotBytes] = {};
  const uint64_t step = kLLCleanMask;  // LLNeedsClean
  ASSERT_TRUE(LLNeedsClean(step));
  const std::byte data[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  HostWire<ProtoLL>::Pack(slot, kSlotBytes, data, sizeof(data), step);
  const auto* lines = reinterpret_cast<const LLLine*>(slot);
  for (uint64_t i = 0; i < kSlotBytes / sizeof(LLLine); ++i) {
    uint64_t v = 1;
    EXPECT_TRUE(lines[i].read(LLFlag(step), &v)) << i;
    EXPECT_EQ(v, i == 0 ? uint64_t{0x030201} : 0u) << i;
  }
  // An ordinary step leaves the lines it does not use alone.
  alignas(16) std::byte other[kSlotBytes] = {};
  HostWire<ProtoLL>::Pack(other, kSlotBytes, data, sizeof(data), 6);
  uint64_t v;
  EXPECT_FALSE(reinterpret_cast<const LLLine*>(other)[1].read(LLFlag(6), &v));
}

}  // namespace
}  // namespace gpurun::coll
