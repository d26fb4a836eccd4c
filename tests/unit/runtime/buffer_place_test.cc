// Buffer placement (runtime/buffer_place.h) for host memory: whatever the
// machine (with or without a CUDA driver), host buffers place on the host,
// a stream with them is Unsupported saying why, and StreamDeviceOf (the GPU
// of a stream-ordered call) names them.
#include "runtime/buffer_place.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpurun {
namespace {

TEST(BufferPlace, HostBuffersRunOnTheHost) {
  std::vector<float> a(16), b(16);
  StatusOr<Placement> p = PlaceCollective(a.data(), b.data(), GR_STREAM_HOST);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_FALSE(p->device);
  p = PlaceCollective(nullptr, b.data(), GR_STREAM_HOST);  // a rank without a send buffer
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->device);
}

TEST(BufferPlace, AStreamWithHostBuffersIsUnsupported) {
  std::vector<float> a(16);
  const StatusOr<Placement> p = PlaceCollective(a.data(), a.data(), reinterpret_cast<grStream_t>(0x10));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), grUnsupported);
  EXPECT_NE(std::string(p.status().message()).find("stream orders device work"), std::string::npos)
      << p.status().message();
}

TEST(BufferPlace, StreamOrderedCallsRefuseHostBuffersNamingThem) {
  std::vector<char> a(8);
  const Status s = StreamDeviceOf({a.data(), nullptr}, {"sendbuf", "recvbuf"}).status();
  EXPECT_EQ(s.code(), grUnsupported);
  EXPECT_NE(std::string(s.message()).find("sendbuf is host memory"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gpurun
