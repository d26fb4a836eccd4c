#include "runtime/launcher/options.h"

#include <gtest/gtest.h>

namespace gpurun::launcher {
namespace {

StatusOr<Options> Parse(std::vector<std::string> args) { return ParseOptions(args); }

void ExpectUsageError(std::vector<std::string> args, std::string_view fragment) {
  StatusOr<Options> options = Parse(args);
  ASSERT_FALSE(options.ok()) << "accepted: " << args.front();
  EXPECT_EQ(options.status().code(), grInvalidUsage);
  EXPECT_NE(options.status().message().find(fragment), std::string::npos) << options.status().message();
}

TEST(Options, RankCountSpellings) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{{"-n", "4", "prog"},
                                                                             {"-np", "4", "prog"},
                                                                             {"--np", "4", "prog"},
                                                                             {"--n", "4", "prog"},
                                                                             {"-n=4", "prog"},
                                                                             {"--np=4", "prog"},
                                                                             {"-np=4", "prog"}}) {
    StatusOr<Options> options = Parse(args);
    ASSERT_TRUE(options.ok()) << args[0] << ": " << options.status().ToString();
    EXPECT_EQ(options->num_ranks, 4) << args[0];
    EXPECT_EQ(options->command, std::vector<std::string>{"prog"});
  }
}

TEST(Options, Defaults) {
  StatusOr<Options> options = Parse({"prog"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->num_ranks, 1);
  EXPECT_FALSE(options->tag_output);
  EXPECT_FALSE(options->timeout_s.has_value());
  EXPECT_EQ(options->bind_to, BindTo::kNone);
  EXPECT_EQ(options->oversubscribe, Oversubscribe::kDefault);
  EXPECT_TRUE(options->exports.empty());
}

TEST(Options, ProgramArgumentsAreUntouched) {
  StatusOr<Options> options = Parse({"-n", "2", "prog", "-n", "7", "--tag-output", "--", "x"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->num_ranks, 2);
  EXPECT_FALSE(options->tag_output);
  EXPECT_EQ(options->command, (std::vector<std::string>{"prog", "-n", "7", "--tag-output", "--", "x"}));
}

TEST(Options, DoubleDashEndsOptions) {
  StatusOr<Options> options = Parse({"-l", "--", "-weird-program", "a"});
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->tag_output);
  EXPECT_EQ(options->command, (std::vector<std::string>{"-weird-program", "a"}));
}

TEST(Options, ExportForms) {
  StatusOr<Options> options = Parse({"-x", "HOME", "-x", "FOO=bar=baz", "-x=EMPTY=", "prog"});
  ASSERT_TRUE(options.ok());
  ASSERT_EQ(options->exports.size(), 3u);
  EXPECT_EQ(options->exports[0].name, "HOME");
  EXPECT_FALSE(options->exports[0].value.has_value());
  EXPECT_EQ(options->exports[1].name, "FOO");
  EXPECT_EQ(*options->exports[1].value, "bar=baz");
  EXPECT_EQ(options->exports[2].name, "EMPTY");
  EXPECT_EQ(*options->exports[2].value, "");
}

TEST(Options, FlagsAndValues) {
  StatusOr<Options> options = Parse(
      {"--tag-output", "--timeout", "500ms", "--bind-to", "CORE", "--report-bindings", "--oversubscribe", "prog"});
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->tag_output);
  EXPECT_DOUBLE_EQ(*options->timeout_s, 0.5);
  EXPECT_EQ(options->bind_to, BindTo::kCore);
  EXPECT_TRUE(options->report_bindings);
  EXPECT_EQ(options->oversubscribe, Oversubscribe::kYes);
  options = Parse({"--oversubscribe", "--no-oversubscribe", "--bind-to=numa", "--timeout=0", "prog"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->oversubscribe, Oversubscribe::kNo);  // the last one wins
  EXPECT_EQ(options->bind_to, BindTo::kNuma);
  EXPECT_FALSE(options->timeout_s.has_value());  // 0 = no timeout
}

TEST(Options, InformationalOptionsNeedNoProgram) {
  EXPECT_TRUE(Parse({"--help"})->help);
  EXPECT_TRUE(Parse({"-h"})->help);
  EXPECT_TRUE(Parse({"--version"})->version);
  EXPECT_TRUE(Parse({"--print-params", "-x", "GPURUN_DEBUG=INFO"})->print_params);
}

TEST(Options, Errors) {
  ExpectUsageError({}, "no program");
  ExpectUsageError({"-n", "2"}, "no program");
  ExpectUsageError({"--bogus", "prog"}, "unknown option '--bogus'");
  ExpectUsageError({"-n"}, "needs a value");
  ExpectUsageError({"-n", "0", "prog"}, "between 1 and");
  ExpectUsageError({"-n", "-3", "prog"}, "between 1 and");
  ExpectUsageError({"-n", "99999", "prog"}, "between 1 and");
  ExpectUsageError({"-n", "two", "prog"}, "not an integer");
  ExpectUsageError({"-n", "--tag-output", "prog"}, "not an integer");
  ExpectUsageError({"--timeout", "soon", "prog"}, "--timeout");
  ExpectUsageError({"--bind-to", "socket", "prog"}, "none, core, numa");
  ExpectUsageError({"--tag-output=1", "prog"}, "takes no value");
  ExpectUsageError({"-x", "1BAD", "prog"}, "-x '1BAD'");
  ExpectUsageError({"-x", "=v", "prog"}, "-x '=v'");
}

TEST(Options, HelpDocumentsEveryOptionAndExitCode) {
  const std::string help = HelpText();
  for (std::string_view needle : {"-np", "-x VAR", "--tag-output", "--timeout", "--bind-to", "--report-bindings",
                                  "--oversubscribe", "--no-oversubscribe", "--print-params", "--version", "--help",
                                  "124", "128+S", "  2  ", "Default: more ranks"}) {
    EXPECT_NE(help.find(needle), std::string::npos) << needle;
  }
  EXPECT_NE(VersionText().find("gpurun 0."), std::string::npos);
}

TEST(Options, VirtualNodesAndAutoCleanup) {
  StatusOr<Options> options = Parse({"-n", "6", "--nodes", "3", "--disable-auto-cleanup", "prog"});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->num_nodes, 3);
  EXPECT_FALSE(options->auto_cleanup);
  options = Parse({"prog"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->num_nodes, 1);
  EXPECT_TRUE(options->auto_cleanup);
  ExpectUsageError({"-n", "2", "--nodes", "3", "prog"}, "--nodes 3 needs at least that many ranks");
  ExpectUsageError({"-n", "2", "--nodes", "0", "prog"}, "number of nodes");
  ExpectUsageError({"--disable-auto-cleanup=1", "prog"}, "takes no value");
}

}  // namespace
}  // namespace gpurun::launcher
