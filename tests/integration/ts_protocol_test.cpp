// The host <-> task-scheduler protocol spoken raw, end to end on the simulator:
// scenarios/ts-protocol.yaml runs firmware/host/ts-protocol.c (no driver: it owns the
// queue header and both rings) against firmware/ts/ts.elf and the AI Cores. The host
// program checks everything itself and prints one "ts-protocol: <section>: ok" line per
// section, then "ts-protocol: PASS"; any failed check prints "ts-protocol: UNEXPECTED: ...".
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <string>

using namespace npuvp::test_support;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

// In the order the program runs them (firmware/host/ts-protocol.c, header comment).
const char* const kSections[] = {
    "attach",        // TS_VERSION, every NPU_ATTACH_* refusal, then READY; SCRATCH[QUEUE] not re-read
    "host-irq",      // WFI on PLIC context 0 source 21, HOST_IRQ level until HOST_IRQ_ACK
    "wrap",          // ring slots and 32-bit counters wrap, launches of 1 .. 2N+1 blocks
    "bad-commands",  // every NPU_BAD_* reason with its detail and seq, the queue carries on
    "stream-order",  // launches of one stream one after the other
    "concurrency",   // different streams overlap, one block per idle core
    "barrier",       // BARRIER after everything earlier, before everything later
    "events",        // WAIT_EVENT holds its stream until the RECORD_EVENT executed
    "cmd-ring-full", // host sees the command ring full and waits for cmd_head
    "cpl-ring-full", // CPL_STALLED, nothing lost or overwritten, resume on cpl_head + doorbell
    "summary",       // every command completed exactly once, rings empty, flag clear
};

}  // namespace

class TsProtocol : public ::testing::TestWithParam<int> {};

TEST_P(TsProtocol, EverySectionPassesOnThisManyAiCores) {
  const int cores = GetParam();
  auto result = run_npuvp("run " + scenario("ts-protocol") + " --quiet --set soc.ai_cores=" + std::to_string(cores));
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("ts-protocol: " + std::to_string(cores) + " AI Core"));
  for (const char* section : kSections)
    EXPECT_THAT(result.out, HasSubstr(std::string("ts-protocol: ") + section + ": ok\n")) << section;
  EXPECT_THAT(result.out, Not(HasSubstr("UNEXPECTED")));
  EXPECT_THAT(result.out, HasSubstr("ts-protocol: PASS\n"));
  EXPECT_THAT(last_line(result.err), HasSubstr("ts-protocol: PASS"));
}

INSTANTIATE_TEST_SUITE_P(Cores, TsProtocol, ::testing::Values(1, 2, 4, 32));

// The scenario as written (2 AI Cores) passes its own checks.
TEST(TsProtocolScenario, PassesWithItsOwnParameters) {
  auto result = run_npuvp("run " + scenario("ts-protocol") + " --quiet");
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr("ts-protocol: 2 AI Cores"));
  EXPECT_THAT(last_line(result.err), HasSubstr("npuvp: ts-protocol: PASS"));
}
