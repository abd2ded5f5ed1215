// The SMP programs of firmware/mesh/ on Debian's qemu-system-riscv64 -M virt -smp N
// (all harts start at the ELF entry, as on the mesh cluster): hello's hart order, each
// workload's self-check at 16 harts and at an odd smaller count, and every litmus
// outcome judged against the RISC-V memory model (RVWMO) by the checker below, which is
// independent of the program that produced the histogram.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace npuvp::test_support;

namespace {

CommandResult run_qemu(const std::string& elf, int harts) {
  return run_command("timeout 60 qemu-system-riscv64 -M virt -smp " + std::to_string(harts) +
                     " -bios none -nographic -monitor none -kernel " + firmware(elf) + " </dev/null");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// ---- RVWMO allowed outcomes -------------------------------------------------------------
//
// RISC-V Unprivileged ISA, chapter "RVWMO Memory Consistency Model" (rules of preserved
// program order, PPO, and the load value / atomicity / progress axioms), and its
// appendix of litmus tests. Every shared location starts at 0 and is written only with
// the values the test names. An outcome maps names (r0.., or x/y for final values) to
// values.
using Outcome = std::map<std::string, unsigned>;

bool all_values_in(const Outcome& o, unsigned low, unsigned high) {
  for (const auto& [name, value] : o)
    if (value < low || value > high) return false;
  return true;
}

// Returns an empty string if RVWMO allows `o` for `test`, else why it is forbidden.
std::string rvwmo_forbids(const std::string& test, const Outcome& o) {
  auto v = [&](const char* name) { return o.count(name) ? o.at(name) : 99u; };
  if (test == "2+2W" || test == "2+2W+fences") {
    // Both locations are written twice before the final barrier: the final value is
    // one of the two stores (coherence order is total, load value axiom).
    if (!all_values_in(o, 1, 2) || o.size() != 2) return "final value not written by any store";
    // x=1 and y=1 means each thread's first store is coherence-last: a cycle
    // through both threads' program order. Without fences stores to different
    // addresses are not ordered by PPO, so it is allowed; `fence w,w` orders them
    // (PPO rule 4, fence), which forbids it.
    if (test == "2+2W+fences" && v("x") == 1 && v("y") == 1) return "x=1 y=1 needs w->w reordering across fence w,w";
    return "";
  }
  if (!all_values_in(o, 0, 1)) return "a load returned a value no store wrote";
  if (test == "MP" || test == "SB" || test == "LB" || test == "IRIW") {
    // Without fences RVWMO orders none of these accesses (different addresses, no
    // dependencies): every combination is allowed, including load buffering.
    return "";
  }
  if (test == "MP+fences") {
    // fence w,w orders the producer's stores and fence r,r the consumer's loads (PPO
    // rule 4): seeing the flag (r0=1) implies seeing the data.
    if (v("r0") == 1 && v("r1") == 0) return "r0=1 r1=0 (message passing broken across fences)";
    return "";
  }
  if (test == "SB+fences") {
    // fence rw,rw orders each store before the following load (PPO rule 4): at least
    // one thread sees the other's store.
    if (v("r0") == 0 && v("r1") == 0) return "r0=0 r1=0 (store buffering across fence rw,rw)";
    return "";
  }
  if (test == "LB+fences") {
    // fence r,w orders each load before the following store: both loads reading the
    // other thread's later store would be a cycle.
    if (v("r0") == 1 && v("r1") == 1) return "r0=1 r1=1 (load buffering across fence r,w)";
    return "";
  }
  if (test == "IRIW+fences") {
    // RVWMO is multi-copy atomic (a single global memory order): with each reader's
    // loads ordered by fence r,r, the readers cannot see the two independent stores in
    // opposite orders.
    if (v("r0") == 1 && v("r1") == 0 && v("r2") == 1 && v("r3") == 0)
      return "r0=1 r1=0 r2=1 r3=0 (independent writes seen in different orders)";
    return "";
  }
  if (test == "CoRR" || test == "CoRR+fence") {
    // Two loads of the same address in program order that return values of different
    // stores are ordered (PPO rule 2, same-address load-load), and coherence: once the
    // new value is read, the older one cannot be read again. Forbidden even without a
    // fence.
    if (v("r0") == 1 && v("r1") == 0) return "r0=1 r1=0 (read-read coherence violated)";
    return "";
  }
  return "unknown test " + test;
}

struct LitmusRun {
  std::map<std::string, unsigned> iterations;         // from the header line
  std::map<std::string, std::vector<std::pair<Outcome, unsigned>>> outcomes;
  std::vector<std::string> skipped;
  bool done = false;
  std::vector<std::string> malformed;
};

LitmusRun parse_litmus(const std::string& text) {
  LitmusRun run;
  static const std::regex header(R"(litmus (\S+) iterations=(\d+) threads=(\d+))");
  static const std::regex outcome(R"(litmus (\S+) outcome((?: \w+=\d+)+) count=(\d+))");
  static const std::regex skipped(R"(litmus (\S+) skipped harts=\d+)");
  static const std::regex pair(R"((\w+)=(\d+))");
  for (const auto& line : lines_of(text)) {
    std::smatch m;
    if (line == "litmus done") {
      run.done = true;
    } else if (std::regex_match(line, m, header)) {
      run.iterations[m[1]] = std::stoul(m[2]);
    } else if (std::regex_match(line, m, outcome)) {
      Outcome o;
      std::string values = m[2];
      for (std::sregex_iterator it(values.begin(), values.end(), pair), end; it != end; ++it)
        o[(*it)[1]] = std::stoul((*it)[2]);
      run.outcomes[m[1]].emplace_back(o, std::stoul(m[3]));
    } else if (std::regex_match(line, m, skipped)) {
      run.skipped.push_back(m[1]);
    } else {
      run.malformed.push_back(line);
    }
  }
  return run;
}

std::string describe(const Outcome& o) {
  std::string text;
  for (const auto& [name, value] : o) text += name + "=" + std::to_string(value) + " ";
  return text;
}

// Every test ran fully (counts add up to its iterations) and every outcome is allowed.
void expect_litmus_allowed(const LitmusRun& run, const std::vector<std::string>& expected_tests) {
  EXPECT_TRUE(run.done) << "no 'litmus done' line";
  EXPECT_TRUE(run.malformed.empty()) << "unexpected line: " << run.malformed.front();
  for (const auto& test : expected_tests) {
    ASSERT_TRUE(run.iterations.count(test)) << "test " << test << " did not run";
    unsigned total = 0;
    for (const auto& [o, count] : run.outcomes.at(test)) {
      total += count;
      std::string why = rvwmo_forbids(test, o);
      EXPECT_TRUE(why.empty()) << "litmus " << test << ": forbidden outcome " << describe(o) << "seen "
                               << count << " times: " << why;
    }
    EXPECT_EQ(total, run.iterations.at(test)) << test;
  }
}

const std::vector<std::string> kLitmusTests = {"MP",          "MP+fences", "SB",   "SB+fences",
                                               "LB",          "LB+fences", "IRIW", "IRIW+fences",
                                               "CoRR",        "CoRR+fence", "2+2W", "2+2W+fences"};

void expect_workload_passes(const std::string& name, int harts) {
  auto result = run_qemu("mesh/" + name + ".elf", harts);
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  const std::string prefix = name + ": PASS ";
  bool found = false;
  for (const auto& line : lines_of(result.out))
    if (line.rfind(prefix, 0) == 0) {
      found = true;
      EXPECT_NE(line.find(" harts=" + std::to_string(harts) + " "), std::string::npos) << line;
    }
  EXPECT_TRUE(found) << "no '" << prefix << "' line in:\n" << result.out;
}

}  // namespace

TEST(MeshQemu, HelloInHartOrder) {
  for (int harts : {16, 3}) {
    auto result = run_qemu("mesh/hello.elf", harts);
    EXPECT_EQ(result.status, 0) << result.err;
    std::vector<std::string> expected;
    for (int h = 0; h < harts; ++h)
      expected.push_back("hello from hart " + std::to_string(h) + " of " + std::to_string(harts));
    EXPECT_EQ(lines_of(result.out), expected);
  }
}

TEST(MeshQemu, BlockedLu) {
  expect_workload_passes("lu", 16);
  expect_workload_passes("lu", 3);
}
TEST(MeshQemu, Fft) {
  expect_workload_passes("fft", 16);
  expect_workload_passes("fft", 3);
}
TEST(MeshQemu, RadixSort) {
  expect_workload_passes("radix", 16);
  expect_workload_passes("radix", 3);
}
TEST(MeshQemu, OceanStencil) {
  expect_workload_passes("ocean", 16);
  expect_workload_passes("ocean", 3);
}
TEST(MeshQemu, NBody) {
  expect_workload_passes("nbody", 16);
  expect_workload_passes("nbody", 3);
}

TEST(MeshQemu, LitmusOutcomesAllowedByRvwmo) {
  auto result = run_qemu("mesh/litmus.elf", 16);
  ASSERT_EQ(result.status, 0) << result.err;
  auto run = parse_litmus(result.out);
  EXPECT_TRUE(run.skipped.empty());
  expect_litmus_allowed(run, kLitmusTests);
}

// With 2 harts the 4-thread tests are skipped, the others still run completely.
TEST(MeshQemu, LitmusWithTwoHarts) {
  auto result = run_qemu("mesh/litmus.elf", 2);
  ASSERT_EQ(result.status, 0) << result.err;
  auto run = parse_litmus(result.out);
  EXPECT_EQ(run.skipped, (std::vector<std::string>{"IRIW", "IRIW+fences"}));
  expect_litmus_allowed(run, {"MP", "MP+fences", "SB", "SB+fences", "LB", "LB+fences", "CoRR",
                              "CoRR+fence", "2+2W", "2+2W+fences"});
}

// The checker itself must reject what RVWMO forbids (so the tests above can fail).
TEST(MeshQemu, CheckerRejectsForbiddenOutcomes) {
  EXPECT_NE(rvwmo_forbids("MP+fences", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_EQ(rvwmo_forbids("MP", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("SB+fences", {{"r0", 0}, {"r1", 0}}), "");
  EXPECT_EQ(rvwmo_forbids("SB", {{"r0", 0}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("LB+fences", {{"r0", 1}, {"r1", 1}}), "");
  EXPECT_EQ(rvwmo_forbids("LB", {{"r0", 1}, {"r1", 1}}), "");
  EXPECT_NE(rvwmo_forbids("IRIW+fences", {{"r0", 1}, {"r1", 0}, {"r2", 1}, {"r3", 0}}), "");
  EXPECT_EQ(rvwmo_forbids("IRIW", {{"r0", 1}, {"r1", 0}, {"r2", 1}, {"r3", 0}}), "");
  EXPECT_NE(rvwmo_forbids("CoRR", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("CoRR+fence", {{"r0", 1}, {"r1", 0}}), "");
  EXPECT_NE(rvwmo_forbids("2+2W+fences", {{"x", 1}, {"y", 1}}), "");
  EXPECT_EQ(rvwmo_forbids("2+2W", {{"x", 1}, {"y", 1}}), "");
  EXPECT_NE(rvwmo_forbids("2+2W", {{"x", 0}, {"y", 1}}), "");
  EXPECT_NE(rvwmo_forbids("MP", {{"r0", 2}, {"r1", 0}}), "");

  auto run = parse_litmus(
      "litmus MP+fences iterations=3 threads=2\n"
      "litmus MP+fences outcome r0=1 r1=0 count=1\n"
      "litmus MP+fences outcome r0=1 r1=1 count=2\n"
      "litmus done\n");
  ASSERT_EQ(run.outcomes["MP+fences"].size(), 2u);
  EXPECT_EQ(run.outcomes["MP+fences"][0].first, (Outcome{{"r0", 1}, {"r1", 0}}));
  EXPECT_EQ(run.outcomes["MP+fences"][0].second, 1u);
  EXPECT_EQ(run.iterations["MP+fences"], 3u);
}
