// The thesis's toy program (Fig. 5.3; docs/coherence.md): two cores share
// X, Y and Z (three lines) with one synchronisation. Under MESI the store of
// Y at (3) invalidates core 1's copy and the store of Z at (5) core 0's: two
// Invalidations and two Acks. NSI sends neither: the writer takes ownership
// and the stale copies wait for the synchronisation.
#include "coherence/hand_network.h"
#include "coherence/mesi/mesi.h"
#include "coherence/nsi/nsi.h"

#include <gtest/gtest.h>

#include <string>

namespace npuvp::coherence {
namespace {

constexpr std::uint64_t kX = 0x40, kY = 0x80, kZ = 0xC0;  // three lines, homes 2, 0 and 2

// Runs the program on cores 0 and 1 (four-way caches: no evictions) and
// returns the messages sent, "<Type> <source>-><destination>" each.
template <typename Network>
std::vector<std::string> run_toy_program(Network& network) {
  network.store64(0, kX, 1);  // (1) X = Y = 1
  network.store64(0, kY, 1);
  network.store64(1, kZ, network.load64(1, kX) + network.load64(1, kY));  // (2) Z = X + Y
  network.store64(0, kY, network.load64(0, kX) + network.load64(0, kZ));  // (3) Y = X + Z
  network.l1s[0]->synchronise();                                         // (4) SYNC on both
  network.l1s[1]->synchronise();
  network.run();
  network.store64(1, kZ, network.load64(1, kX) + network.load64(1, kY));  // (5) Z = X + Y
  EXPECT_EQ(network.load64(1, kZ), 4u);  // X = 1, Y = 1 + 2
  return network.log;
}

unsigned count_type(const std::vector<std::string>& log, const std::string& type) {
  unsigned count = 0;
  for (const std::string& entry : log) count += entry.rfind(type + " ", 0) == 0;
  return count;
}

TEST(CoherenceToyProgram, MesiInvalidatesTwiceAndCollectsTwoAcks) {
  HandNetwork<mesi::L1, mesi::Home, &mesi::message_name> network({4, 4});
  const auto log = run_toy_program(network);
  EXPECT_EQ(count_type(log, "Invalidation"), 2u);
  EXPECT_EQ(count_type(log, "Ack"), 2u);
}

TEST(CoherenceToyProgram, NsiSendsNoInvalidationAndNoAck) {
  HandNetwork<nsi::L1, nsi::Home, &nsi::message_name> network({4, 4});
  const auto log = run_toy_program(network);
  EXPECT_EQ(count_type(log, "Invalidation"), 0u);
  EXPECT_EQ(count_type(log, "Ack"), 0u);
  EXPECT_GT(log.size(), 0u);
}

}  // namespace
}  // namespace npuvp::coherence
