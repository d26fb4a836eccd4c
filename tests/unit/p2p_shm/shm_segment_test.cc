// Segment names, creation with O_EXCL, mapping by a peer, unlinking, and the
// error for a segment that does not fit in /dev/shm.
#include "p2p/shm/shm_segment.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "p2p/shm/shm_names.h"

namespace gpurun::p2p::shm {
namespace {

bool Exists(const std::string& name) {
  struct stat st {};
  return stat(("/dev/shm" + name).c_str(), &st) == 0;
}

std::string UniqueJob(const char* tag) { return std::string("segtest-") + tag + "-" + std::to_string(getpid()); }

TEST(ShmNamesTest, PrefixSanitizesAndMatchesOnlyRanks) {
  EXPECT_EQ(ShmSegmentPrefix("job/1:a b"), "/gpurun-job_1_a_b-");
  EXPECT_EQ(ShmSegmentName("j.7", 12), "/gpurun-j.7-12");
  EXPECT_TRUE(IsShmSegmentOf("a", "gpurun-a-3"));
  EXPECT_FALSE(IsShmSegmentOf("a", "gpurun-a-1-0"));  // job "a-1", rank 0
  EXPECT_FALSE(IsShmSegmentOf("a", "gpurun-a-"));
  EXPECT_FALSE(IsShmSegmentOf("a", "gpurun-b-3"));
  EXPECT_LT(ShmSegmentName(std::string(1000, 'x'), 1 << 30).size(), 255u);
}

TEST(ShmSegmentTest, CreateOpenShareUnlink) {
  const std::string name = ShmSegmentName(UniqueJob("share"), 0);
  StatusOr<ShmSegment> owner = ShmSegment::Create(name, 8192);
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  EXPECT_TRUE(Exists(name));
  struct stat st {};
  ASSERT_EQ(stat(("/dev/shm" + name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  StatusOr<ShmSegment> peer = ShmSegment::Open(name, 8192);
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  owner->data()[100] = std::byte{42};
  EXPECT_EQ(peer->data()[100], std::byte{42});
  EXPECT_TRUE(owner->Unlink().ok());
  EXPECT_FALSE(Exists(name));
  peer->data()[101] = std::byte{7};  // mappings outlive the name
  EXPECT_EQ(owner->data()[101], std::byte{7});
}

TEST(ShmSegmentTest, OpenMissingOrShortFails) {
  const std::string name = ShmSegmentName(UniqueJob("short"), 0);
  EXPECT_FALSE(ShmSegment::Open(name, 1).ok());
  StatusOr<ShmSegment> owner = ShmSegment::Create(name, 4096);
  ASSERT_TRUE(owner.ok());
  EXPECT_FALSE(ShmSegment::Open(name, 8192).ok());
}

TEST(ShmSegmentTest, DestroyedOwnerUnlinks) {
  const std::string name = ShmSegmentName(UniqueJob("raii"), 1);
  {
    StatusOr<ShmSegment> owner = ShmSegment::Create(name, 4096);
    ASSERT_TRUE(owner.ok());
    EXPECT_TRUE(Exists(name));
  }
  EXPECT_FALSE(Exists(name));
}

TEST(ShmSegmentTest, LeftoverIsReplaced) {
  const std::string name = ShmSegmentName(UniqueJob("leftover"), 2);
  StatusOr<ShmSegment> first = ShmSegment::Create(name, 4096);
  ASSERT_TRUE(first.ok());
  StatusOr<ShmSegment> second = ShmSegment::Create(name, 4096);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
}

TEST(ShmSegmentTest, TooLargeNamesPathAndSize) {
  const std::string name = ShmSegmentName(UniqueJob("huge"), 3);
  const size_t huge = size_t{1} << 50;
  StatusOr<ShmSegment> seg = ShmSegment::Create(name, huge);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), grSystemError);
  EXPECT_NE(seg.status().message().find("/dev/shm" + name), std::string::npos) << seg.status().message();
  EXPECT_NE(seg.status().message().find(std::to_string(huge)), std::string::npos) << seg.status().message();
  EXPECT_FALSE(Exists(name));
}

TEST(ShmNamesTest, RemoveShmSegmentsCleansUpOneJob) {
  const std::string job = UniqueJob("cleanup");
  StatusOr<ShmSegment> a = ShmSegment::Create(ShmSegmentName(job, 0), 4096);
  StatusOr<ShmSegment> b = ShmSegment::Create(ShmSegmentName(job, 5), 4096);
  StatusOr<ShmSegment> other = ShmSegment::Create(ShmSegmentName(job + "-1", 0), 4096);
  ASSERT_TRUE(a.ok() && b.ok() && other.ok());
  EXPECT_EQ(RemoveShmSegments(job), 2);
  EXPECT_TRUE(Exists(ShmSegmentName(job + "-1", 0)));
}

}  // namespace
}  // namespace gpurun::p2p::shm
