#include "runtime/launcher/srun_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace gpurun::launcher {
namespace {

Options Parse(std::vector<std::string> args) {
  StatusOr<Options> options = ParseOptions(args);
  EXPECT_TRUE(options.ok()) << options.status().ToString();
  return options.ok() ? *options : Options{};
}

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::vector<std::string> Srun(const Options& options,
                              const std::vector<std::pair<std::string, std::string>>& exports = {}) {
  StatusOr<std::vector<std::string>> argv = SrunCommand(options, "/usr/bin/srun", "/abs/app", exports);
  EXPECT_TRUE(argv.ok()) << argv.status().ToString();
  return argv.ok() ? *argv : std::vector<std::string>{};
}

bool Has(const std::vector<std::string>& argv, const std::string& word) {
  return std::find(argv.begin(), argv.end(), word) != argv.end();
}

TEST(UseSrun, AutoFollowsTheAllocation) {
  const Options options = Parse({"app"});
  EXPECT_FALSE(*UseSrun(options, Env({})));
  EXPECT_TRUE(*UseSrun(options, Env({{"SLURM_JOB_ID", "12"}})));
  // Inside a job step (a rank of srun runs gpurun) gpurun starts its ranks itself.
  EXPECT_FALSE(*UseSrun(options, Env({{"SLURM_JOB_ID", "12"}, {"SLURM_STEP_ID", "0"}})));
}

TEST(UseSrun, ExplicitChoices) {
  EXPECT_FALSE(*UseSrun(Parse({"--launcher", "local", "app"}), Env({{"SLURM_JOB_ID", "12"}})));
  EXPECT_TRUE(*UseSrun(Parse({"--launcher=srun", "app"}), Env({{"SLURM_JOB_ID", "12"}, {"SLURM_STEP_ID", "0"}})));
  StatusOr<bool> outside = UseSrun(Parse({"--launcher", "srun", "app"}), Env({}));
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.status().code(), grInvalidUsage);
  EXPECT_NE(outside.status().message().find("SLURM_JOB_ID"), std::string::npos);
}

TEST(UseSrun, DryRunNeedsSrun) {
  StatusOr<bool> outside = UseSrun(Parse({"--dry-run", "app"}), Env({}));
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("SLURM_JOB_ID is not set"), std::string::npos);
  StatusOr<bool> in_step = UseSrun(Parse({"--dry-run", "app"}), Env({{"SLURM_JOB_ID", "1"}, {"SLURM_STEP_ID", "3"}}));
  ASSERT_FALSE(in_step.ok());
  EXPECT_NE(in_step.status().message().find("job step"), std::string::npos);
  EXPECT_TRUE(*UseSrun(Parse({"--dry-run", "app"}), Env({{"SLURM_JOB_ID", "1"}})));
}

TEST(SrunCommand, Defaults) {
  EXPECT_EQ(Srun(Parse({"-n", "4", "app", "-x", "arg two"})),
            (std::vector<std::string>{"/usr/bin/srun", "--mpi=pmix", "-n", "4", "--export=ALL", "--kill-on-bad-exit=1",
                                      "--input=0", "--quit-on-interrupt", "--", "/abs/app", "-x", "arg two"}));
}

TEST(SrunCommand, TranslatedOptions) {
  const std::vector<std::string> argv =
      Srun(Parse({"-n", "8", "--nodes", "4", "--tag-output", "--disable-auto-cleanup", "--oversubscribe", "app"}));
  EXPECT_TRUE(Has(argv, "-N"));
  EXPECT_EQ(*(std::find(argv.begin(), argv.end(), "-N") + 1), "4");
  EXPECT_TRUE(Has(argv, "--label"));
  EXPECT_TRUE(Has(argv, "--kill-on-bad-exit=0"));
  EXPECT_FALSE(Has(argv, "--kill-on-bad-exit=1"));
  EXPECT_TRUE(Has(argv, "--overcommit"));
}

TEST(SrunCommand, Bindings) {
  EXPECT_TRUE(Has(Srun(Parse({"--bind-to", "core", "app"})), "--cpu-bind=cores"));
  EXPECT_TRUE(Has(Srun(Parse({"--bind-to", "numa", "--report-bindings", "app"})), "--cpu-bind=verbose,ldoms"));
  EXPECT_TRUE(Has(Srun(Parse({"--report-bindings", "app"})), "--cpu-bind=verbose"));
  for (const std::string& word : Srun(Parse({"--bind-to", "none", "app"}))) {
    EXPECT_FALSE(word.starts_with("--cpu-bind")) << word;
  }
}

TEST(SrunCommand, Exports) {
  const Options options = Parse({"-x", "HOME", "-x", "FOO=a b=c", "-x", "UNSET", "-x", "EMPTY=", "app"});
  // UNSET is not in gpurun's environment: ResolveExports left it out, so it is not passed.
  const std::vector<std::string> argv = Srun(options, {{"HOME", "/root"}, {"FOO", "a b=c"}, {"EMPTY", ""}});
  EXPECT_TRUE(Has(argv, "--export=ALL,HOME,FOO=a b=c,EMPTY=")) << ShellLine(argv);
}

TEST(SrunCommand, ExportValueWithCommaIsAnError) {
  StatusOr<std::vector<std::string>> argv = SrunCommand(Parse({"-x", "LIST=a,b", "app"}), "srun", "/abs/app", {});
  ASSERT_FALSE(argv.ok());
  EXPECT_EQ(argv.status().code(), grInvalidUsage);
  EXPECT_NE(argv.status().message().find("-x LIST=a,b"), std::string::npos) << argv.status().message();
  EXPECT_NE(argv.status().message().find("--export"), std::string::npos);
}

TEST(ShellLine, QuotesWhatTheShellWouldSplit) {
  EXPECT_EQ(ShellLine({"srun", "-n", "2", "--export=ALL,A=1", "/a/b"}), "srun -n 2 --export=ALL,A=1 /a/b");
  EXPECT_EQ(ShellLine({"x", "a b", "", "it's", "$HOME"}), "x 'a b' '' 'it'\\''s' '$HOME'");
}

}  // namespace
}  // namespace gpurun::launcher
