#include "runtime/base/status.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace gpurun {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Status Quarter(int x, int* out) {
  GR_ASSIGN_OR_RETURN(int h, Half(x));
  GR_ASSIGN_OR_RETURN(int q, Half(h));
  *out = q;
  return OkStatus();
}

Status Chain(int x) {
  int q = 0;
  GR_RETURN_IF_ERROR(Quarter(x, &q));
  return OkStatus();
}

TEST(Status, PropagatesFirstError) {
  int out = -1;
  EXPECT_TRUE(Quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  out = -1;
  Status s = Quarter(6, &out);
  EXPECT_EQ(s.code(), grInvalidArgument);
  EXPECT_EQ(s.message(), "odd: 3");
  EXPECT_EQ(out, -1) << "outputs are set only on success";
  EXPECT_EQ(Chain(5).code(), grInvalidArgument);
  EXPECT_TRUE(Chain(4).ok());
}

TEST(Status, FormatsCodeAndContext) {
  EXPECT_EQ(OkStatus().ToString(), "success");
  Status s = TimeoutError("waiting for rank 3").WithContext("barrier");
  EXPECT_EQ(s.code(), grTimeout);
  EXPECT_EQ(s.ToString(), "timeout: barrier: waiting for rank 3");
  Status e = ErrnoError("open /x", ENOENT);
  EXPECT_EQ(e.code(), grSystemError);
  EXPECT_EQ(e.message(), "open /x: No such file or directory");
}

TEST(Status, CopiesOwnTheirMessageAndMovesLeaveNone) {
  Status a = RemoteError("rank 2 died");
  Status b = a;  // a deep copy: changing or dropping one leaves the other
  a = InternalError("later");
  EXPECT_EQ(b.code(), grRemoteError);
  EXPECT_EQ(b.message(), "rank 2 died");
  EXPECT_EQ(a.message(), "later");
  Status c = std::move(b);
  EXPECT_EQ(c.message(), "rank 2 died");
  EXPECT_EQ(c.code(), grRemoteError);
  b = c;  // a moved-from Status takes a new value
  EXPECT_EQ(b.message(), "rank 2 died");
  const Status& same = c;
  c = same;  // self-assignment keeps it
  EXPECT_EQ(c.message(), "rank 2 died");
  EXPECT_EQ(OkStatus().message(), "");
  EXPECT_EQ(Status(grTimeout, "").message(), "") << "an error may have no text";
  EXPECT_EQ(Status(grTimeout, "").ToString(), "timeout");
  StatusOr<int> e = Status(grInvalidUsage, "bad count");
  StatusOr<int> e2 = e;
  EXPECT_EQ(e2.status().message(), "bad count");
}

TEST(Status, EveryResultHasAName) {
  for (int r = 0; r < grNumResults; ++r) {
    EXPECT_STRNE(grGetErrorString(static_cast<grResult_t>(r)), "unknown result code") << r;
  }
  EXPECT_STREQ(grGetErrorString(static_cast<grResult_t>(99)), "unknown result code");
}

}  // namespace
}  // namespace gpurun
