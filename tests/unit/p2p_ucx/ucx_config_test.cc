// ApplyConfigDefaults: what gpurun sets on top of UCX's environment, read
// back through ucp_config_print (its transport options appear there as the
// cached "NAME=value" lines ucp_config_modify keeps for the transports).
#include "p2p/ucx/ucx_config.h"

#include <gtest/gtest.h>
#include <ucp/api/ucp.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "ucx_test_support.h"

namespace gpurun::p2p {
namespace {

using testing::ScopedEnvVar;

// The configuration UCX reads from the environment with gpurun's defaults on
// top, as ucp_config_print writes it.
std::string Applied(uint64_t eager_bytes) {
  ucp_config_t* config = nullptr;
  EXPECT_EQ(ucp_config_read(nullptr, nullptr, &config), UCS_OK);
  const Status s = ApplyConfigDefaults(config, eager_bytes, "test");
  EXPECT_TRUE(s.ok()) << s.message();
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  ucp_config_print(config, out, "test", UCS_CONFIG_PRINT_CONFIG);
  std::fclose(out);
  ucp_config_release(config);
  std::string printed(text, size);
  std::free(text);
  return printed;
}

bool HasLine(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(UcxConfigTest, SetsTcpReceiveSegmentWhereTheEnvironmentDoesNot) {
  ScopedEnvVar seg("UCX_TCP_RX_SEG_SIZE", std::nullopt);
  ScopedEnvVar tls("UCX_TLS", std::nullopt);
  EXPECT_TRUE(HasLine(Applied(0), std::string("RX_SEG_SIZE=") + kTcpRxSegSize));
}

TEST(UcxConfigTest, EnvironmentWinsForTheTcpReceiveSegment) {
  ScopedEnvVar seg("UCX_TCP_RX_SEG_SIZE", "1m");
  ScopedEnvVar tls("UCX_TLS", std::nullopt);
  EXPECT_EQ(Applied(0).find("RX_SEG_SIZE="), std::string::npos);
}

TEST(UcxConfigTest, TcpReceiveSegmentOnlyWhereUcxTlsLeavesTcpIn) {
  ScopedEnvVar seg("UCX_TCP_RX_SEG_SIZE", std::nullopt);
  const std::string line = std::string("RX_SEG_SIZE=") + kTcpRxSegSize;
  for (const char* in : {"tcp", "tcp,self", "all", "^sm", "self,tcp"}) {
    ScopedEnvVar tls("UCX_TLS", in);
    EXPECT_TRUE(HasLine(Applied(0), line)) << "UCX_TLS=" << in;
  }
  for (const char* out : {"self", "sm,self", "^tcp", "^self,tcp"}) {
    ScopedEnvVar tls("UCX_TLS", out);
    EXPECT_EQ(Applied(0).find("RX_SEG_SIZE="), std::string::npos) << "UCX_TLS=" << out;
  }
}

TEST(UcxConfigTest, EagerBoundSetsRendezvousThresholdUnlessTheEnvironmentDoes) {
  {
    ScopedEnvVar thresh("UCX_RNDV_THRESH", std::nullopt);
    const std::string plain = Applied(0), bounded = Applied(4096);
    EXPECT_NE(plain, bounded);
    EXPECT_TRUE(HasLine(bounded, "UCX_RNDV_THRESH=4097")) << bounded;
  }
  {
    ScopedEnvVar thresh("UCX_RNDV_THRESH", "8192");
    const std::string bounded = Applied(4096);
    EXPECT_FALSE(HasLine(bounded, "UCX_RNDV_THRESH=4097"));
    EXPECT_TRUE(HasLine(bounded, "UCX_RNDV_THRESH=8K")) << bounded;  // UCX prints 8192 so
  }
}

}  // namespace
}  // namespace gpurun::p2p
