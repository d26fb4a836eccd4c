#include "runtime/launcher/rank_env.h"

#include <gtest/gtest.h>

#include <map>

namespace gpurun::launcher {
namespace {

TEST(RankEnv, EnvBlockReplacesByName) {
  const char* environ_array[] = {"A=1", "B=x=y", "NOEQUALS", "A=2", nullptr};
  EnvBlock env = EnvBlock::FromEnviron(environ_array);
  EXPECT_EQ(env.size(), 2u);
  EXPECT_EQ(*env.Get("A"), "2");
  EXPECT_EQ(*env.Get("B"), "x=y");
  env.SetEntry("B=z");
  env.Set("C", "");
  EXPECT_EQ(env.Entries(), (std::vector<std::string>{"A=2", "B=z", "C="}));
  EXPECT_FALSE(env.Get("D").has_value());
}

TEST(RankEnv, ResolveExports) {
  const std::map<std::string, std::string, std::less<>> process = {{"HOME", "/root"}};
  EnvLookup lookup = [&](std::string_view name) -> std::optional<std::string> {
    auto it = process.find(name);
    return it == process.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  const std::vector<ExportVar> exports = {{"HOME", std::nullopt}, {"X", "1"}, {"UNSET", std::nullopt}};
  std::vector<std::string> missing;
  auto resolved = ResolveExports(exports, lookup, &missing);
  ASSERT_EQ(resolved.size(), 2u);
  EXPECT_EQ(resolved[0], (std::pair<std::string, std::string>{"HOME", "/root"}));
  EXPECT_EQ(resolved[1], (std::pair<std::string, std::string>{"X", "1"}));
  EXPECT_EQ(missing, std::vector<std::string>{"UNSET"});

  EnvLookup with = LookupWithAssignments(std::vector<ExportVar>{{"HOME", "/x"}, {"HOME", "/y"}}, lookup);
  EXPECT_EQ(*with("HOME"), "/y");  // the last -x wins
  EXPECT_FALSE(with("UNSET").has_value());
}

TEST(RankEnv, RankIdentity) {
  EnvBlock env;
  env.Set("GPURUN_RANK", "stale");
  SetRankIdentity({3, 8, 1, 4, "host-1-0"}, env);
  EXPECT_EQ(*env.Get("GPURUN_RANK"), "3");
  EXPECT_EQ(*env.Get("GPURUN_SIZE"), "8");
  EXPECT_EQ(*env.Get("GPURUN_LOCAL_RANK"), "1");
  EXPECT_EQ(*env.Get("GPURUN_LOCAL_SIZE"), "4");
  EXPECT_EQ(*env.Get("GPURUN_JOB_ID"), "host-1-0");
  EXPECT_EQ(*env.Get("OMPI_COMM_WORLD_RANK"), "3");
  EXPECT_EQ(*env.Get("OMPI_COMM_WORLD_SIZE"), "8");
  EXPECT_EQ(*env.Get("OMPI_COMM_WORLD_LOCAL_RANK"), "1");
  EXPECT_EQ(*env.Get("OMPI_COMM_WORLD_LOCAL_SIZE"), "4");
  EXPECT_EQ(*env.Get("MPI_LOCALRANKID"), "1");
}

}  // namespace
}  // namespace gpurun::launcher
