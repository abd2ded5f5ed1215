// npuvp-compile as a user runs it: --help, usage errors, a missing model, and a real compile.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "run_command.h"

namespace {

using npuvp::test_support::run_command;
using npuvp::test_support::temp_path;

npuvp::test_support::CommandResult compile(const std::string& arguments) {
  return run_command(std::string("timeout 120 ") + NPUVP_COMPILE_EXECUTABLE + " " + arguments);
}

TEST(CompilerCommandLine, HelpDescribesEveryOptionAndExitsZero) {
  for (const char* flag : {"--help", "-h"}) {
    const auto r = compile(flag);
    EXPECT_EQ(r.status, 0) << flag;
    EXPECT_NE(r.out.find("usage: npuvp-compile model.onnx -o model.pkg"), std::string::npos) << r.out;
    for (const char* option : {"--ai-cores", "--ddr-gbps", "--l2-gbps", "--ring-gbps", "--no-double-buffering",
                               "--no-l2", "--no-pinned-weights", "--streams"})
      EXPECT_NE(r.out.find(std::string("  ") + option), std::string::npos) << option << " undescribed";
    EXPECT_TRUE(r.err.empty()) << r.err;
  }
}

TEST(CompilerCommandLine, UsageErrorsExitTwoNamingTheProblem) {
  const auto unknown = compile("--bogus");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown argument '--bogus'"), std::string::npos) << unknown.err;
  const auto no_output = compile("model.onnx");
  EXPECT_EQ(no_output.status, 2);
  EXPECT_NE(no_output.err.find("-o are required"), std::string::npos) << no_output.err;
  const auto cores = compile("model.onnx -o x.pkg --ai-cores 0");
  EXPECT_EQ(cores.status, 2);
  EXPECT_NE(cores.err.find("--ai-cores takes 1 .. 64"), std::string::npos) << cores.err;
}

TEST(CompilerCommandLine, AMissingModelIsACompileError) {
  const std::string package = temp_path("missing.pkg");
  const auto r = compile("/nonexistent/model.onnx -o " + package);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent/model.onnx"), std::string::npos) << r.err;
  std::FILE* written = std::fopen(package.c_str(), "rb");
  EXPECT_EQ(written, nullptr) << "no package for a failed compile";
  if (written) std::fclose(written);
  std::remove(package.c_str());
}

}  // namespace
