#include "runtime/launcher/program_path.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpurun::launcher {
namespace {

class ProgramPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/gpurun_path_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(dir_ + "/a");
    std::filesystem::create_directory(dir_ + "/b");
    MakeFile(dir_ + "/a/tool", 0644);  // not executable
    MakeFile(dir_ + "/b/tool", 0755);
    MakeFile(dir_ + "/a/only_here", 0644);
    std::filesystem::create_directory(dir_ + "/b/adir");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static void MakeFile(const std::string& path, mode_t mode) {
    std::ofstream(path) << "#!/bin/sh\n";
    chmod(path.c_str(), mode);
  }
  std::string dir_;
};

TEST_F(ProgramPathTest, SearchesPathLikeExecvp) {
  const std::string path = dir_ + "/a:" + dir_ + "/b";
  StatusOr<std::string> found = ResolveProgram("tool", path);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, dir_ + "/b/tool");  // skips the non-executable one
  EXPECT_TRUE(ResolveProgram("sh", std::nullopt).ok());
}

TEST_F(ProgramPathTest, Errors) {
  const std::string path = dir_ + "/a:" + dir_ + "/b";
  StatusOr<std::string> missing = ResolveProgram("no_such_program_xyz", path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), grInvalidUsage);
  EXPECT_NE(missing.status().message().find("not found in PATH"), std::string::npos);
  StatusOr<std::string> not_exec = ResolveProgram("only_here", path);
  ASSERT_FALSE(not_exec.ok());
  EXPECT_NE(not_exec.status().message().find("Permission denied"), std::string::npos);
  StatusOr<std::string> dir = ResolveProgram(dir_ + "/b/adir", path);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("is a directory"), std::string::npos);
  EXPECT_FALSE(ResolveProgram(dir_ + "/a/tool", path).ok());
  EXPECT_TRUE(ResolveProgram(dir_ + "/b/tool", path).ok());
  EXPECT_FALSE(ResolveProgram("", path).ok());
}

}  // namespace
}  // namespace gpurun::launcher
