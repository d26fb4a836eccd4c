// UcxWire between ranks that are threads of this process (InprocBootstrap),
// each with its own context, worker and recording sink; every test runs over
// UCX's default transport choice and over loopback TCP (UCX_TLS=tcp,self).
// With error handling mode PEER, UCX 1.13 picks TCP on one host by default
// too (its shared-memory transports cannot report peer failures).
#include "p2p/ucx/ucx_wire.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <optional>

#include "ucx_test_support.h"

namespace gpurun::p2p {
namespace {

using testing::Arrival;
using testing::MatchesPattern;
using testing::NextArrival;
using testing::Pattern;
using testing::ProgressUntil;
using testing::Receive;
using testing::RunUcxRanks;
using testing::SendAndWait;
using testing::UcxMode;
using testing::UcxRank;

constexpr size_t kMiB = 1 << 20;

class UcxWireTest : public ::testing::TestWithParam<UcxMode> {
 protected:
  testing::ScopedUcxEnv env_{GetParam()};
};

// Rank 0 sends each size to rank 1, which checks it and sends it back.
TEST_P(UcxWireTest, SizesRoundTrip) {
  const std::vector<size_t> sizes = {0, 1, kUcxEagerLimit - 1, kUcxEagerLimit, kUcxEagerLimit + 1, kMiB + 5, 64 * kMiB};
  RunUcxRanks(2, [&](UcxRank& me) {
    const int peer = 1 - me.rank;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const MatchHeader header{.context = 5, .source = me.rank, .tag = static_cast<int32_t>(i), .bytes = sizes[i]};
      if (me.rank == 0) {
        const std::vector<std::byte> data = Pattern(i, sizes[i]);
        ASSERT_TRUE(SendAndWait(*me.wire, peer, header, data.data()).ok()) << sizes[i];
      }
      std::optional<Arrival> got = NextArrival(*me.wire, me.sink);
      ASSERT_TRUE(got.has_value()) << "size " << sizes[i];
      EXPECT_EQ(got->world_source, peer);
      EXPECT_EQ(got->header.context, 5u);
      EXPECT_EQ(got->header.source, peer);
      EXPECT_EQ(got->header.tag, static_cast<int32_t>(i));
      ASSERT_EQ(got->header.bytes, sizes[i]);
      EXPECT_EQ(got->pending != nullptr, sizes[i] > kUcxEagerLimit) << sizes[i];
      std::optional<std::vector<std::byte>> data = Receive(*me.wire, *got);
      ASSERT_TRUE(data.has_value()) << sizes[i];
      ASSERT_TRUE(MatchesPattern(i, data->data(), data->size())) << "size " << sizes[i];
      if (me.rank == 1) {
        const MatchHeader back{.context = 5, .source = 1, .tag = static_cast<int32_t>(i), .bytes = sizes[i]};
        ASSERT_TRUE(SendAndWait(*me.wire, peer, back, data->data()).ok()) << sizes[i];
      }
    }
  });
}

// Two senders interleave small and large messages to one receiver, which
// must see each sender's messages in the order sent.
TEST_P(UcxWireTest, ManyMessagesKeepOrderPerSender) {
  constexpr int kCount = 400;
  auto size_of = [](int i) -> size_t { return i % 9 == 4 ? 20000 + i : i % 13 == 0 ? 8 : 4 + (i * 37) % 3000; };
  RunUcxRanks(3, [&](UcxRank& me) {
    if (me.rank < 2) {
      std::vector<std::vector<std::byte>> buffers(kCount);
      int completed = 0;
      for (int i = 0; i < kCount; ++i) {
        buffers[i] = Pattern(me.rank * 1000 + i, size_of(i));
        std::memcpy(buffers[i].data(), &i, sizeof(i));  // sequence number up front
        // Communicator ranks differ from world ranks: this rank is 5 + rank in context 9.
        const MatchHeader h{.context = 9, .source = 5 + me.rank, .tag = i % 4, .bytes = buffers[i].size()};
        ASSERT_TRUE(me.wire
                        ->Send(2, h, buffers[i].data(),
                               [&](const Status& s) {
                                 EXPECT_TRUE(s.ok()) << s.ToString();
                                 ++completed;
                               })
                        .ok());
        me.wire->Progress().value();
      }
      EXPECT_TRUE(ProgressUntil(*me.wire, [&] { return completed == kCount; }));
      return;
    }
    int next[2] = {0, 0};
    for (int n = 0; n < 2 * kCount; ++n) {
      std::optional<Arrival> got = NextArrival(*me.wire, me.sink);
      ASSERT_TRUE(got.has_value()) << "after " << n << " messages";
      const int from = got->world_source;
      ASSERT_TRUE(from == 0 || from == 1) << from;
      EXPECT_EQ(got->header.source, 5 + from);
      const int i = next[from]++;
      EXPECT_EQ(got->header.tag, i % 4);
      ASSERT_EQ(got->header.bytes, size_of(i));
      std::optional<std::vector<std::byte>> data = Receive(*me.wire, *got);
      ASSERT_TRUE(data.has_value());
      int seq = -1;
      std::memcpy(&seq, data->data(), sizeof(seq));
      ASSERT_EQ(seq, i) << "from rank " << from;
      std::vector<std::byte> expected = Pattern(from * 1000 + i, size_of(i));
      std::memcpy(expected.data(), &i, sizeof(i));
      ASSERT_TRUE(*data == expected) << "from rank " << from << " message " << i;
    }
  });
}

// Fetch of fewer bytes than a large message holds writes exactly that many.
TEST_P(UcxWireTest, TruncatingFetchWritesNoMore) {
  constexpr size_t kSize = kMiB + 5;
  constexpr size_t kGuard = 64;
  const std::vector<size_t> fetch_sizes = {1000, 0, kSize - 1, kSize};
  RunUcxRanks(2, [&](UcxRank& me) {
    if (me.rank == 0) {
      const std::vector<std::byte> data = Pattern(3, kSize);
      for (size_t i = 0; i < fetch_sizes.size(); ++i) {
        const MatchHeader h{.context = 1, .source = 0, .tag = static_cast<int32_t>(i), .bytes = kSize};
        ASSERT_TRUE(SendAndWait(*me.wire, 1, h, data.data()).ok());
      }
      return;
    }
    for (size_t n : fetch_sizes) {
      std::optional<Arrival> got = NextArrival(*me.wire, me.sink);
      ASSERT_TRUE(got.has_value() && got->pending);
      std::vector<std::byte> buffer(n + kGuard, std::byte{0xAB});
      std::optional<Status> result;
      got->pending->Fetch(buffer.data(), n, [&](const Status& s) { result = s; });
      ASSERT_TRUE(ProgressUntil(*me.wire, [&] { return result.has_value(); }));
      ASSERT_TRUE(result->ok()) << result->ToString();
      EXPECT_TRUE(MatchesPattern(3, buffer.data(), n)) << n;
      for (size_t g = n; g < n + kGuard; ++g) ASSERT_EQ(buffer[g], std::byte{0xAB}) << "guard byte " << g - n;
    }
  });
}

// A payload destroyed without Fetch is drained: the sender's send completes
// and later messages still arrive, in order.
TEST_P(UcxWireTest, DroppedPayloadReleasesTheSender) {
  RunUcxRanks(2, [&](UcxRank& me) {
    // Dropped: 0, 2, 4 (12000 B travels as UCX eager on TCP, the others as rendezvous).
    const std::vector<size_t> sizes = {2 * kMiB, 100, 3 * kMiB + 1, 64 * 1024, 12000, 9000};
    if (me.rank == 0) {
      std::vector<std::vector<std::byte>> data;
      int completed = 0;
      for (size_t i = 0; i < sizes.size(); ++i) {
        data.push_back(Pattern(i, sizes[i]));
        const MatchHeader h{.context = 2, .source = 0, .tag = static_cast<int32_t>(i), .bytes = sizes[i]};
        ASSERT_TRUE(me.wire
                        ->Send(1, h, data.back().data(),
                               [&](const Status& s) {
                                 EXPECT_TRUE(s.ok()) << s.ToString();
                                 ++completed;
                               })
                        .ok());
      }
      EXPECT_TRUE(ProgressUntil(
          *me.wire, [&] { return completed == static_cast<int>(sizes.size()); }, 30));
      return;
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      std::optional<Arrival> got = NextArrival(*me.wire, me.sink);
      ASSERT_TRUE(got.has_value());
      ASSERT_EQ(got->header.tag, static_cast<int32_t>(i));
      if (i % 2 == 0) continue;
      std::optional<std::vector<std::byte>> data = Receive(*me.wire, *got);
      ASSERT_TRUE(data.has_value());
      EXPECT_TRUE(MatchesPattern(i, data->data(), data->size()));
    }
  });
}

// An endpoint to this rank's own worker works like any other.
// The engine's flagged messages (a sync note, then the message it announces,
// and a DeviceFin back) arrive eagerly with their flags, in order with the
// plain messages around them; a flagged message over the eager limit is refused.
TEST_P(UcxWireTest, FlaggedMessagesKeepTheirFlags) {
  RunUcxRanks(2, [&](UcxRank& me) {
    const int peer = 1 - me.rank;
    const uint64_t note = 0x1122334455667788ull;
    const std::vector<std::byte> big = Pattern(9, kUcxEagerLimit + 1);
    if (me.rank == 0) {
      const MatchHeader flagged{.context = 3, .source = 0, .tag = 7, .flags = kFlagSyncNote, .bytes = sizeof(note)};
      ASSERT_TRUE(SendAndWait(*me.wire, peer, flagged, &note).ok());
      ASSERT_TRUE(
          SendAndWait(*me.wire, peer, {.context = 3, .source = 0, .tag = 7, .bytes = big.size()}, big.data()).ok());
      const MatchHeader too_big{.context = 3, .source = 0, .tag = 7, .flags = kFlagSyncNote, .bytes = big.size()};
      EXPECT_EQ(me.wire->Send(peer, too_big, big.data(), [](const Status&) {}).code(), grInvalidArgument);
      std::optional<Arrival> fin = NextArrival(*me.wire, me.sink);
      ASSERT_TRUE(fin.has_value());
      EXPECT_EQ(fin->world_source, 1);
      EXPECT_EQ(fin->header.flags, kFlagDeviceFin);
      EXPECT_EQ(fin->header.source, 1);
      ASSERT_EQ(fin->eager.size(), 16u);
      EXPECT_TRUE(MatchesPattern(4, fin->eager.data(), fin->eager.size()));
      return;
    }
    std::optional<Arrival> got = NextArrival(*me.wire, me.sink);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->world_source, 0);
    EXPECT_EQ(got->header.flags, kFlagSyncNote);
    EXPECT_EQ(got->header.context, 3u);
    EXPECT_EQ(got->header.tag, 7);
    ASSERT_EQ(got->header.bytes, sizeof(note));
    ASSERT_EQ(got->eager.size(), sizeof(note));
    uint64_t id = 0;
    std::memcpy(&id, got->eager.data(), sizeof(id));
    EXPECT_EQ(id, note);
    std::optional<Arrival> message = NextArrival(*me.wire, me.sink);
    ASSERT_TRUE(message.has_value());
    EXPECT_EQ(message->header.flags, 0u);
    EXPECT_EQ(message->header.tag, 7);
    std::optional<std::vector<std::byte>> data = Receive(*me.wire, *message);
    ASSERT_TRUE(data.has_value());
    EXPECT_TRUE(*data == big);
    const std::vector<std::byte> fin = Pattern(4, 16);
    ASSERT_TRUE(SendAndWait(*me.wire, peer, {.context = 0, .source = 1, .tag = 0, .flags = kFlagDeviceFin, .bytes = 16},
                            fin.data())
                    .ok());
  });
}

TEST_P(UcxWireTest, SelfEndpoint) {
  RunUcxRanks(
      1,
      [&](UcxRank& me) {
        EXPECT_TRUE(me.wire->Reaches(0));
        for (size_t size : {size_t{3}, 5 * kMiB}) {
          const std::vector<std::byte> data = Pattern(size, size);
          const MatchHeader h{.context = 0, .source = 0, .tag = 1, .bytes = size};
          std::optional<Status> sent;
          ASSERT_TRUE(me.wire->Send(0, h, data.data(), [&](const Status& s) { sent = s; }).ok());
          std::optional<Arrival> got = NextArrival(*me.wire, me.sink);
          ASSERT_TRUE(got.has_value());
          EXPECT_EQ(got->world_source, 0);
          std::optional<std::vector<std::byte>> back = Receive(*me.wire, *got);
          ASSERT_TRUE(back.has_value());
          EXPECT_TRUE(*back == data);
          ASSERT_TRUE(ProgressUntil(*me.wire, [&] { return sent.has_value(); }));
          EXPECT_TRUE(sent->ok());
        }
      },
      /*with_self=*/true);
}

TEST_P(UcxWireTest, RejectsBadSends) {
  RunUcxRanks(2, [&](UcxRank& me) {
    EXPECT_TRUE(me.wire->Reaches(1 - me.rank));
    EXPECT_FALSE(me.wire->Reaches(me.rank));
    EXPECT_FALSE(me.wire->Reaches(2));
    EXPECT_FALSE(me.wire->Reaches(-1));
    const char byte = 0;
    bool called = false;
    auto done = [&](const Status&) { called = true; };
    EXPECT_EQ(me.wire->Send(me.rank, {}, &byte, done).code(), grInvalidArgument);
    EXPECT_EQ(me.wire->Send(1 - me.rank, {.tag = kMaxTag + 1}, &byte, done).code(), grInvalidArgument);
    EXPECT_EQ(me.wire->Send(1 - me.rank, {.source = kMaxRanks}, &byte, done).code(), grInvalidArgument);
    EXPECT_EQ(me.wire->Send(1 - me.rank, {.context = kMaxContext + 1}, &byte, done).code(), grInvalidArgument);
    EXPECT_FALSE(called);
    const UcxSetupTimes& t = me.wire->setup_times();
    EXPECT_GT(t.init_s, 0);
    EXPECT_GE(t.total_s, t.init_s + t.worker_s);
    if (me.rank == 0) {
      std::printf(
          "[ setup    ] %s: context %.1f ms, worker %.1f ms, exchange %.1f ms, connect %.1f ms, total %.1f ms\n",
          ModeName(GetParam()), t.init_s * 1e3, t.worker_s * 1e3, t.exchange_s * 1e3, t.connect_s * 1e3,
          t.total_s * 1e3);
    }
  });
}

// Shutdown completes pending sends with its status; a payload that outlives
// its wire is inert.
TEST_P(UcxWireTest, ShutdownCompletesPendingWork) {
  const Status why = InvalidUsage("finalizing");
  std::atomic<bool> have_pending{false};
  RunUcxRanks(2, [&](UcxRank& me) {
    const std::vector<std::byte> data = Pattern(1, 2 * kMiB);
    const MatchHeader h{.context = 0, .source = me.rank, .tag = 0, .bytes = data.size()};
    if (me.rank == 0) {
      std::optional<Status> sent;
      ASSERT_TRUE(me.wire->Send(1, h, data.data(), [&](const Status& s) { sent = s; }).ok());
      ASSERT_TRUE(ProgressUntil(*me.wire, [&] { return have_pending.load(); }));  // rank 1 holds it, unfetched
      ASSERT_TRUE(me.bootstrap->Barrier().ok());
      EXPECT_FALSE(sent.has_value());
      me.wire->Shutdown(why);
      ASSERT_TRUE(sent.has_value());
      EXPECT_EQ(sent->code(), why.code());
      EXPECT_EQ(sent->message(), why.message());
      EXPECT_EQ(me.wire->Send(1, h, data.data(), [](const Status&) {}).code(), grInvalidUsage);
      EXPECT_EQ(me.wire->Progress().value(), 0);
      ASSERT_TRUE(me.bootstrap->Barrier().ok());
      return;
    }
    std::optional<Arrival> got = NextArrival(*me.wire, me.sink);
    ASSERT_TRUE(got.has_value() && got->pending);
    have_pending = true;
    ASSERT_TRUE(me.bootstrap->Barrier().ok());
    ASSERT_TRUE(me.bootstrap->Barrier().ok());
    me.wire->Shutdown(why);
    std::vector<std::byte> sink(h.bytes);
    std::optional<Status> fetched;
    got->pending->Fetch(sink.data(), sink.size(), [&](const Status& s) { fetched = s; });
    ASSERT_TRUE(fetched.has_value());
    EXPECT_FALSE(fetched->ok());
    got->pending.reset();
  });
}

INSTANTIATE_TEST_SUITE_P(Modes, UcxWireTest, ::testing::Values(UcxMode::kDefault, UcxMode::kTcp),
                         [](const ::testing::TestParamInfo<UcxMode>& info) { return testing::ModeName(info.param); });

}  // namespace
}  // namespace gpurun::p2p
