// The thesis's workloads (firmware/mesh/, docs/workloads.md) at their small CI
// inputs: each passes its own check on Debian's qemu-system-riscv64 -smp 16 and, as its
// scenario scenarios/mesh-NAME.yaml, on the npuvp cluster under every registered coherence
// protocol, and prints the same checksum of its result everywhere: a protocol that lost
// or reordered a store would change it. The workloads whose values do not depend on the
// partition (all but streamcluster, whose decisions follow hart-ordered partial sums) must
// also give that checksum on QEMU with 3 harts. The Table 5.3 inputs (NAME-full.elf,
// scenarios/full/) run in the NSI study, not here: they take minutes.
#include "coherence/protocol_registry.h"
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <ostream>
#include <sstream>
#include <string>

using namespace npuvp::test_support;
using ::testing::HasSubstr;

namespace {

struct Workload {
  const char* name;
  bool same_for_any_hart_count;
};

// gtest prints the parameter in test listings and failures.
void PrintTo(const Workload& workload, std::ostream* out) { *out << workload.name; }

const Workload kWorkloads[] = {
    {"lu", true},           {"lu-non", true},        {"fft", true},           {"radix", true},
    {"ocean", true},        {"ocean-non", true},     {"cholesky", true},      {"water-nsquared", true},
    {"blackscholes", true}, {"streamcluster", false}, {"swaptions", true},     {"barnes", true},
};

// The workload's "NAME: PASS ... harts=H ... checksum=X" line in OUT; its checksum, or "" if
// there is no such line.
std::string checksum_of(const std::string& name, int harts, const std::string& out) {
  const std::string prefix = name + ": PASS ";
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0) continue;
    EXPECT_NE(line.find(" harts=" + std::to_string(harts) + " "), std::string::npos) << line;
    EXPECT_NE(line.find(" size=ci "), std::string::npos) << line;
    const auto at = line.find(" checksum=");
    if (at == std::string::npos) return "";
    return line.substr(at + 10, 16);
  }
  return "";
}

std::string qemu_checksum(const std::string& name, int harts) {
  auto result = run_command("timeout 60 qemu-system-riscv64 -M virt -smp " + std::to_string(harts) +
                            " -bios none -nographic -monitor none -kernel " + firmware("mesh/" + name + ".elf") +
                            " </dev/null");
  EXPECT_EQ(result.status, 0) << name << " on QEMU -smp " << harts << ": " << result.out << result.err;
  auto checksum = checksum_of(name, harts, result.out);
  EXPECT_EQ(checksum.size(), 16u) << name << ": no PASS line with a checksum in:\n" << result.out;
  return checksum;
}

}  // namespace

class MeshWorkload : public ::testing::TestWithParam<Workload> {};

TEST_P(MeshWorkload, SameChecksumOnQemuAndUnderEveryProtocol) {
  const std::string name = GetParam().name;
  const std::string expected = qemu_checksum(name, 16);
  ASSERT_FALSE(expected.empty());
  if (GetParam().same_for_any_hart_count) EXPECT_EQ(qemu_checksum(name, 3), expected) << name;
  for (const auto& protocol : npuvp::coherence::protocol_names()) {
    auto result = run_npuvp("run " + scenario("mesh-" + name) + " --quiet --set mesh.coherence=" + protocol);
    EXPECT_EQ(result.status, 0) << name << " under " << protocol << ": " << result.err;
    EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: mesh-" + name + ": PASS")) << protocol;
    EXPECT_EQ(checksum_of(name, 16, result.out), expected) << name << " under " << protocol << ":\n" << result.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Thesis, MeshWorkload, ::testing::ValuesIn(kWorkloads), [](const auto& info) {
  std::string name = info.param.name;
  for (auto& c : name)
    if (c == '-') c = '_';
  return name;
});
