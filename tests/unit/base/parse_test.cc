#include "runtime/base/parse.h"

#include <gtest/gtest.h>

namespace gpurun {
namespace {

TEST(Parse, Int) {
  EXPECT_EQ(*ParseInt("42"), 42);
  EXPECT_EQ(*ParseInt(" -7 "), -7);
  EXPECT_EQ(*ParseInt("+3"), 3);
  EXPECT_FALSE(ParseInt("").ok());
  EXPECT_FALSE(ParseInt("4x").ok());
  EXPECT_FALSE(ParseInt("1.5").ok());
  EXPECT_FALSE(ParseInt("99999999999999999999").ok());
}

TEST(Parse, SizeUnits) {
  EXPECT_EQ(*ParseSize("4096"), 4096);
  EXPECT_EQ(*ParseSize("4K"), 4096);
  EXPECT_EQ(*ParseSize("4k"), 4096);
  EXPECT_EQ(*ParseSize("4KiB"), 4096);
  EXPECT_EQ(*ParseSize("8M"), 8 << 20);
  EXPECT_EQ(*ParseSize("1G"), int64_t{1} << 30);
  EXPECT_EQ(*ParseSize("2T"), int64_t{2} << 40);
  EXPECT_FALSE(ParseSize("").ok());
  EXPECT_FALSE(ParseSize("M").ok());
  EXPECT_FALSE(ParseSize("4Q").ok());
  EXPECT_FALSE(ParseSize("-4").ok());
  EXPECT_FALSE(ParseSize("99999999999T").ok());
}

TEST(Parse, Duration) {
  EXPECT_DOUBLE_EQ(*ParseDuration("30"), 30);
  EXPECT_DOUBLE_EQ(*ParseDuration("30s"), 30);
  EXPECT_DOUBLE_EQ(*ParseDuration("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseDuration("1.5s"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseDuration("2m"), 120);
  EXPECT_DOUBLE_EQ(*ParseDuration("1h"), 3600);
  EXPECT_FALSE(ParseDuration("").ok());
  EXPECT_FALSE(ParseDuration("soon").ok());
  EXPECT_FALSE(ParseDuration("5 days").ok());
  EXPECT_FALSE(ParseDuration("1.2.3").ok());
}

TEST(Parse, BoolAndChoice) {
  EXPECT_TRUE(*ParseBool("yes"));
  EXPECT_TRUE(*ParseBool("ON"));
  EXPECT_FALSE(*ParseBool("0"));
  EXPECT_FALSE(ParseBool("maybe").ok());
  const std::string_view choices[] = {"none", "core", "numa"};
  EXPECT_EQ(*ParseChoice("CORE", choices), 1);
  StatusOr<int> bad = ParseChoice("socket", choices);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("none, core, numa"), std::string::npos);
}

TEST(Parse, SplitList) {
  EXPECT_EQ(SplitList("a, b ,c", ','), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(SplitList("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
}

}  // namespace
}  // namespace gpurun
