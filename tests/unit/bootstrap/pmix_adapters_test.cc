// PMIx adapters: status mapping and tolerant value conversion (no server).
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/bootstrap/pmix_status.h"
#include "runtime/bootstrap/pmix_value.h"

namespace gpurun {
namespace {

pmix_value_t Value(pmix_data_type_t type) {
  pmix_value_t v;
  std::memset(&v, 0, sizeof(v));
  v.type = type;
  return v;
}

TEST(PmixStatusTest, MapsCodesAndNamesTheOperation) {
  EXPECT_TRUE(PmixToStatus(PMIX_SUCCESS, "anything").ok());
  const Status timeout = PmixToStatus(PMIX_ERR_TIMEOUT, "fence for Barrier #2");
  EXPECT_EQ(timeout.code(), grTimeout);
  EXPECT_NE(timeout.message().find("fence for Barrier #2"), std::string::npos) << timeout.message();
  EXPECT_NE(timeout.message().find(PMIx_Error_string(PMIX_ERR_TIMEOUT)), std::string::npos) << timeout.message();
  EXPECT_NE(timeout.message().find("-24"), std::string::npos) << timeout.message();
  EXPECT_EQ(PmixToStatus(PMIX_ERR_UNREACH, "init").code(), grRemoteError);
  EXPECT_EQ(PmixToStatus(PMIX_ERR_LOST_CONNECTION, "get").code(), grRemoteError);
  EXPECT_EQ(PmixToStatus(PMIX_ERR_BAD_PARAM, "put").code(), grInvalidArgument);
  EXPECT_EQ(PmixToStatus(PMIX_ERR_NOT_SUPPORTED, "x").code(), grUnsupported);
  EXPECT_EQ(PmixToStatus(PMIX_ERR_NOMEM, "x").code(), grSystemError);
  EXPECT_EQ(PmixToStatus(PMIX_ERR_INIT, "x").code(), grInvalidUsage);
  EXPECT_EQ(PmixToStatus(PMIX_ERR_TYPE_MISMATCH, "x").code(), grInternalError);
  EXPECT_EQ(PmixToStatus(PMIX_ERROR, "x").code(), grRemoteError);
}

TEST(PmixValueTest, AcceptsEveryIntegerType) {
  pmix_value_t v = Value(PMIX_UINT32);
  v.data.uint32 = 16;
  EXPECT_EQ(*PmixValueToUint(v), 16u);
  v = Value(PMIX_UINT16);
  v.data.uint16 = 7;
  EXPECT_EQ(*PmixValueToUint(v), 7u);
  v = Value(PMIX_UINT8);
  v.data.uint8 = 3;
  EXPECT_EQ(*PmixValueToUint(v), 3u);
  v = Value(PMIX_UINT64);
  v.data.uint64 = 1ull << 40;
  EXPECT_EQ(*PmixValueToUint(v), 1ull << 40);
  v = Value(PMIX_INT);
  v.data.integer = 5;
  EXPECT_EQ(*PmixValueToUint(v), 5u);
  v = Value(PMIX_INT16);
  v.data.int16 = 12;
  EXPECT_EQ(*PmixValueToUint(v), 12u);
  v = Value(PMIX_SIZE);
  v.data.size = 99;
  EXPECT_EQ(*PmixValueToUint(v), 99u);
  v = Value(PMIX_PROC_RANK);
  v.data.rank = 4;
  EXPECT_EQ(*PmixValueToUint(v), 4u);
  char digits[] = "42";
  v = Value(PMIX_STRING);
  v.data.string = digits;
  EXPECT_EQ(*PmixValueToUint(v), 42u);
}

TEST(PmixValueTest, RejectsNegativesAndNonIntegers) {
  pmix_value_t v = Value(PMIX_INT32);
  v.data.int32 = -1;
  EXPECT_EQ(PmixValueToUint(v).status().code(), grInvalidArgument);
  v = Value(PMIX_BOOL);
  v.data.flag = true;
  const Status s = PmixValueToUint(v).status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("PMIX_BOOL"), std::string::npos) << s.message();
  char word[] = "four";
  v = Value(PMIX_STRING);
  v.data.string = word;
  EXPECT_FALSE(PmixValueToUint(v).ok());
}

TEST(PmixValueTest, StringsAndByteObjects) {
  char host[] = "node7";
  pmix_value_t v = Value(PMIX_STRING);
  v.data.string = host;
  EXPECT_EQ(*PmixValueToString(v), "node7");
  EXPECT_FALSE(PmixValueToBytes(v).ok());

  char bytes[] = {'\x01', '\x00', '\x7f'};
  v = Value(PMIX_BYTE_OBJECT);
  v.data.bo.bytes = bytes;
  v.data.bo.size = sizeof(bytes);
  auto copy = PmixValueToBytes(v);
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(*copy, (std::vector<std::byte>{std::byte{1}, std::byte{0}, std::byte{0x7f}}));
  EXPECT_FALSE(PmixValueToString(v).ok());

  v = Value(PMIX_BYTE_OBJECT);
  EXPECT_TRUE(PmixValueToBytes(v)->empty());
}

}  // namespace
}  // namespace gpurun
