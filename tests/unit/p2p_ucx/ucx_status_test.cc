// UcsToStatus: UCX result codes → Status codes and messages.
#include "p2p/ucx/ucx_status.h"

#include <gtest/gtest.h>

namespace gpurun::p2p {
namespace {

TEST(UcxStatusTest, MapsCodes) {
  EXPECT_TRUE(UcsToStatus(UCS_OK, "x").ok());
  EXPECT_TRUE(UcsToStatus(UCS_INPROGRESS, "x").ok());
  EXPECT_EQ(UcsToStatus(UCS_ERR_CONNECTION_RESET, "x").code(), grRemoteError);
  EXPECT_EQ(UcsToStatus(UCS_ERR_UNREACHABLE, "x").code(), grRemoteError);
  EXPECT_EQ(UcsToStatus(UCS_ERR_ENDPOINT_TIMEOUT, "x").code(), grRemoteError);
  EXPECT_EQ(UcsToStatus(UCS_ERR_TIMED_OUT, "x").code(), grTimeout);
  EXPECT_EQ(UcsToStatus(UCS_ERR_INVALID_PARAM, "x").code(), grInvalidArgument);
  EXPECT_EQ(UcsToStatus(UCS_ERR_UNSUPPORTED, "x").code(), grUnsupported);
  EXPECT_EQ(UcsToStatus(UCS_ERR_NO_MEMORY, "x").code(), grSystemError);
  EXPECT_EQ(UcsToStatus(UCS_ERR_NO_DEVICE, "x").code(), grSystemError);
  EXPECT_EQ(UcsToStatus(UCS_ERR_MESSAGE_TRUNCATED, "x").code(), grInternalError);
  EXPECT_EQ(UcsToStatus(UCS_ERR_CANCELED, "x").code(), grInternalError);
}

TEST(UcxStatusTest, MessageNamesWhatAndUcxText) {
  const Status s = UcsToStatus(UCS_ERR_NO_MEMORY, "ucx: ucp_init");
  EXPECT_EQ(s.message(), std::string("ucx: ucp_init: ") + ucs_status_string(UCS_ERR_NO_MEMORY) + " (UCS status -4)");
}

TEST(UcxStatusTest, PeerFailures) {
  EXPECT_TRUE(IsPeerFailure(UCS_ERR_CONNECTION_RESET));
  EXPECT_TRUE(IsPeerFailure(UCS_ERR_ENDPOINT_TIMEOUT));
  EXPECT_TRUE(IsPeerFailure(static_cast<ucs_status_t>(UCS_ERR_FIRST_LINK_FAILURE)));
  EXPECT_FALSE(IsPeerFailure(UCS_ERR_NO_MEMORY));
  EXPECT_FALSE(IsPeerFailure(UCS_OK));
}

}  // namespace
}  // namespace gpurun::p2p
