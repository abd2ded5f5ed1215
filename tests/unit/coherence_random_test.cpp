// The random coherence tester on MESI: several seeds and configurations
// (2..16 cores, tiny caches forcing evictions and LLC recalls), and proof
// that the tester catches a corrupted copy and a lost message.
#include "coherence/random_tester.h"

#include "coherence/mesi/mesi.h"
#include "coherence/msi/msi.h"
#include "coherence/nsi/nsi.h"

#include <gtest/gtest.h>

#include <iostream>
#include <random>

namespace npuvp::coherence::testing {
namespace {

TesterConfig config(unsigned cores, unsigned lines, std::uint64_t seed, std::uint64_t operations) {
  TesterConfig result;
  result.cores = cores;
  result.lines = lines;
  result.seed = seed;
  result.operations = operations;
  return result;
}

TEST(CoherenceRandomTest, TwoCoresOneSetL1sManySeeds) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const TesterResult result = run_random_test(config(2, 4, seed, 10000));
    ASSERT_TRUE(result.passed) << result.failure;
    EXPECT_EQ(result.operations, 10000u);
    EXPECT_GT(result.loads, 0u);
    EXPECT_GT(result.stores, 0u);
    EXPECT_GT(result.atomics, 0u);
    EXPECT_GT(result.l1_evictions, 0u);
    EXPECT_GT(result.upgrades, 0u);
  }
}

TEST(CoherenceRandomTest, FourCoresSixLinesWithRecalls) {
  for (std::uint64_t seed = 11; seed <= 16; ++seed) {
    TesterConfig setup = config(4, 6, seed, 10000);
    setup.llc_ways = 1;  // one line per bank: nearly every bank fill recalls L1 copies
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
    EXPECT_EQ(result.operations, 10000u);
    EXPECT_GT(result.llc_recalls, 0u);
    EXPECT_GT(result.l1_stalled, 0u);
    EXPECT_GT(result.home_stalled, 0u);
  }
}

TEST(CoherenceRandomTest, EightCoresTwoMemoryControllersLongDelays) {
  for (std::uint64_t seed = 21; seed <= 24; ++seed) {
    TesterConfig setup = config(8, 8, seed, 20000);
    setup.memory_controllers = 2;
    setup.max_network_delay = 60;
    setup.l1_ways = 1;
    setup.line_stride = 8;  // every line on home 0: 8 lines in its 2 ways
    const TesterResult result = run_random_test(setup);
    EXPECT_GT(result.llc_recalls, 0u);
    ASSERT_TRUE(result.passed) << result.failure;
  }
}

TEST(CoherenceRandomTest, SixteenCoresFewLinesHighContention) {
  for (std::uint64_t seed = 31; seed <= 33; ++seed) {
    TesterConfig setup = config(16, 3, seed, 20000);
    setup.load_percent = 40;
    setup.store_percent = 30;
    setup.line_stride = seed == 31 ? 16 : 1;  // one seed with all three lines on home 0 (2 ways)
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
  }
}

TEST(CoherenceRandomTest, LargerCachesSixtyFourByteLines) {
  TesterConfig setup = config(4, 24, 41, 20000);
  setup.line_bytes = 64;
  setup.l1_sets = 2;
  setup.l1_ways = 2;
  setup.llc_sets = 2;
  const TesterResult result = run_random_test(setup);
  ASSERT_TRUE(result.passed) << result.failure;
}

// One random configuration: cores, lines and their homes, cache shapes, delays,
// latencies and the access mix, drawn from `random`; `seed` drives the accesses.
TesterConfig random_configuration(std::mt19937_64& random, std::uint64_t seed) {
  TesterConfig setup = config(2 + random() % 15, 1 + random() % 20, seed, 3000);
    setup.line_stride = 1 + random() % 17;
    setup.l1_sets = 1 + random() % 2;
    setup.l1_ways = 1 + random() % 3;
    setup.llc_sets = 1 + random() % 2;
    setup.llc_ways = 1 + random() % 3;
    setup.memory_controllers = 1 + random() % 3;
    setup.max_network_delay = 1 + random() % 80;
    setup.llc_latency = 1 + random() % 10;
    setup.memory_latency = 1 + random() % 30;
    setup.load_percent = random() % 70;
    setup.store_percent = random() % (101 - setup.load_percent);
  return setup;
}

// Random configurations (cores, lines and their homes, cache shapes, delays,
// latencies, access mix): every run passes, and together they execute every
// row of the MESI tables except one rare race (a Replace arriving while its
// line, recalled meanwhile, is being fetched again).
TEST(CoherenceRandomTest, RandomConfigurationsReachEveryTransition) {
  std::mt19937_64 random(2026);
  for (unsigned run = 0; run < 30; ++run) {
    const TesterConfig setup = random_configuration(random, 1000 + run);
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
  }
  EXPECT_EQ(mesi::l1_table().never_fired(), "");
  EXPECT_EQ(mesi::home_table().never_fired(), "NP_D + Replace\n");
}

TEST(CoherenceRandomTest, SameSeedSameRun) {
  const TesterResult first = run_random_test(config(4, 5, 77, 3000));
  const TesterResult second = run_random_test(config(4, 5, 77, 3000));
  ASSERT_TRUE(first.passed) << first.failure;
  EXPECT_EQ(first.cycles, second.cycles);
  EXPECT_EQ(first.messages, second.messages);
  EXPECT_EQ(first.loads, second.loads);
}

TEST(CoherenceRandomTest, CatchesACorruptedCopy) {
  TesterConfig setup = config(4, 4, 5, 5000);
  setup.corrupt_after = 500;
  const TesterResult result = run_random_test(setup);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("seed 5"), std::string::npos) << result.failure;
  EXPECT_TRUE(result.failure.find("expected") != std::string::npos ||
              result.failure.find("final check") != std::string::npos)
      << result.failure;
}

TEST(CoherenceRandomTest, CatchesALostMessageAsDeadlock) {
  TesterConfig setup = config(4, 4, 6, 5000);
  setup.drop_message_type = mesi::kAck;
  setup.drop_message_index = 20;
  const TesterResult result = run_random_test(setup);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("deadlock"), std::string::npos) << result.failure;
  EXPECT_NE(result.failure.find("waiting for 1 acks"), std::string::npos) << result.failure;
}

TEST(CoherenceRandomTest, UnknownProtocolIsAClearError) {
  TesterConfig setup = config(2, 2, 1, 10);
  setup.protocol = "mosi";
  try {
    run_random_test(setup);
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("unknown coherence protocol 'mosi' (known: mesi"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace npuvp::coherence::testing

// ---- data-race-free mode (NSI and MESI) ----
namespace npuvp::coherence::testing {
namespace {

TesterConfig drf_config(const std::string& protocol, unsigned cores, unsigned lines, std::uint64_t seed,
                        std::uint64_t operations) {
  TesterConfig result = config(cores, lines, seed, operations);
  result.protocol = protocol;
  result.data_race_free = true;
  result.locks = 2;
  result.load_percent = 60;
  return result;
}

TEST(CoherenceRandomTest, DataRaceFreeNsiAndMesiManySeeds) {
  for (const char* protocol : {"nsi", "mesi"})
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      const TesterResult result = run_random_test(drf_config(protocol, 2 + seed % 3, 4, seed, 8000));
      ASSERT_TRUE(result.passed) << protocol << ": " << result.failure;
      EXPECT_GE(result.operations, 8000u);
      EXPECT_GT(result.episodes, 100u) << result.summary();
      EXPECT_GT(result.loads, 1000u);
      EXPECT_GT(result.stores, 500u);
      EXPECT_GT(result.l1_evictions, 0u);
      if (std::string(protocol) == "nsi") {
        // Self-invalidation happened and both validation outcomes occurred.
        EXPECT_GT(result.suspect_validated_current, 0u) << result.summary();
        EXPECT_GT(result.suspect_validated_stale, 0u) << result.summary();
      }
    }
}

TEST(CoherenceRandomTest, DataRaceFreeNsiRecallsFalseSharingAndPeriodicSync) {
  for (std::uint64_t seed = 31; seed <= 34; ++seed) {
    TesterConfig setup = drf_config("nsi", 4, 6, seed, 12000);
    setup.locks = 3;  // words of one line guarded by different locks: false sharing
    setup.llc_ways = 1;  // LLC evictions recall owners
    setup.max_network_delay = 40;
    setup.options["periodic_synchronisation_cycles"] = 300;
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
    EXPECT_GT(result.llc_recalls, 0u) << result.summary();
    EXPECT_GT(result.periodic_synchronisations, 0u) << result.summary();
    EXPECT_GT(result.lock_retries, 0u) << result.summary();
  }
  TesterConfig wide = drf_config("nsi", 8, 8, 41, 16000);
  wide.memory_controllers = 2;
  wide.locks = 4;
  wide.line_stride = 8;  // every line on home 0
  const TesterResult result = run_random_test(wide);
  ASSERT_TRUE(result.passed) << result.failure;
}

// ---- the thesis's options (MESI thesis_baseline, NSI validation = data) ----

// The thesis baseline under the sequentially consistent check, seeded, with
// evictions and recalls: no Upgrade and no AckChange granting one is ever
// sent (a store to S sends RdEx), and loads are never granted E.
TEST(CoherenceRandomTest, ThesisBaselineMesiManySeeds) {
  for (std::uint64_t seed = 51; seed <= 58; ++seed) {
    TesterConfig setup = config(2 + seed % 3, 5, seed, 10000);
    setup.options["thesis_baseline"] = "true";
    if (seed % 2) setup.llc_ways = 1;  // recalls of shared lines while their RdEx waits
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
    EXPECT_EQ(result.operations, 10000u);
    EXPECT_EQ(result.upgrades, 0u) << result.summary();
    EXPECT_EQ(result.messages_by_type[mesi::kUpgrade], 0u);
    EXPECT_GT(result.messages_by_type[mesi::kRdEx], 0u);
    EXPECT_GT(result.messages_by_type[mesi::kRepShd], 0u);
    EXPECT_GT(result.l1_evictions, 0u);
    if (seed % 2) EXPECT_GT(result.llc_recalls, 0u) << result.summary();
  }
  // The same seed under textbook MESI does send Upgrades: the option changes the messages.
  const TesterResult textbook = run_random_test(config(3, 5, 51, 10000));
  ASSERT_TRUE(textbook.passed) << textbook.failure;
  EXPECT_GT(textbook.messages_by_type[mesi::kUpgrade], 0u);
}

// Thirty random configurations of the thesis baseline execute every row of
// its tables (the textbook test's one exception aside), so the variant has
// no row the protocol cannot reach.
TEST(CoherenceRandomTest, ThesisBaselineRandomConfigurationsReachEveryTransition) {
  std::mt19937_64 random(2028);
  for (unsigned run = 0; run < 30; ++run) {
    TesterConfig setup = random_configuration(random, 3000 + run);
    setup.options["thesis_baseline"] = "true";
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
  }
  EXPECT_EQ(mesi::thesis_l1_table().never_fired(), "");
  EXPECT_EQ(mesi::thesis_home_table().never_fired(), "NP_D + Replace\n");
}

TEST(CoherenceRandomTest, ThesisBaselineMesiDataRaceFree) {
  for (std::uint64_t seed = 61; seed <= 64; ++seed) {
    TesterConfig setup = drf_config("mesi", 4, 6, seed, 8000);
    setup.options["thesis_baseline"] = "true";
    setup.max_network_delay = 40;
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
    EXPECT_GT(result.episodes, 100u) << result.summary();
    EXPECT_EQ(result.messages_by_type[mesi::kUpgrade], 0u);
  }
}

// The literal validation, seeded, with recalls and the periodic
// synchronisation: every validation is answered with data (no RepValid*),
// and both fates still occur (the L1 compares the data).
TEST(CoherenceRandomTest, LiteralValidationNsiManySeeds) {
  for (std::uint64_t seed = 71; seed <= 78; ++seed) {
    TesterConfig setup = drf_config("nsi", 2 + seed % 3, 5, seed, 8000);
    setup.options["validation"] = "data";
    if (seed % 2) {
      setup.llc_ways = 1;
      setup.options["periodic_synchronisation_cycles"] = 300;
    }
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
    EXPECT_GT(result.episodes, 100u) << result.summary();
    EXPECT_EQ(result.messages_by_type[nsi::kRepValidShd], 0u);
    EXPECT_EQ(result.messages_by_type[nsi::kRepValidExc], 0u);
    EXPECT_GT(result.suspect_validated_current, 0u) << result.summary();
    EXPECT_GT(result.suspect_validated_stale, 0u) << result.summary();
  }
  // The same seed with the versioned validation confirms current copies without data.
  TesterConfig versioned = drf_config("nsi", 2 + 71 % 3, 5, 71, 8000);
  const TesterResult result = run_random_test(versioned);
  ASSERT_TRUE(result.passed) << result.failure;
  EXPECT_GT(result.messages_by_type[nsi::kRepValidShd] + result.messages_by_type[nsi::kRepValidExc], 0u);
}

TEST(CoherenceRandomTest, UnknownValidationValueIsAClearError) {
  TesterConfig setup = drf_config("nsi", 2, 2, 1, 100);
  setup.options["validation"] = "both";
  try {
    run_random_test(setup);
    FAIL() << "no error";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("validation"), std::string::npos) << error.what();
  }
}

// The DRF check is strong enough to see a missing self-invalidation.
TEST(CoherenceRandomTest, DataRaceFreeModeCatchesSkippedSelfInvalidation) {
  TesterConfig setup = drf_config("nsi", 4, 4, 7, 20000);
  setup.skip_self_invalidation = true;
  const TesterResult result = run_random_test(setup);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("last write that happens-before it"), std::string::npos) << result.failure;
}

// The sequentially consistent check is too strong for NSI: plain stale
// reads (allowed by weak consistency) are reported.
TEST(CoherenceRandomTest, SequentialConsistencyCheckRejectsNsiStaleReads) {
  TesterConfig setup = config(4, 4, 3, 20000);
  setup.protocol = "nsi";
  const TesterResult result = run_random_test(setup);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("expected"), std::string::npos) << result.failure;
}

TEST(CoherenceRandomTest, UnknownNsiParameterIsAClearError) {
  TesterConfig setup = drf_config("nsi", 2, 2, 1, 100);
  setup.options["periodic_sync"] = 5;
  EXPECT_THROW(
      {
        try {
          run_random_test(setup);
        } catch (const std::invalid_argument& error) {
          EXPECT_NE(std::string(error.what()).find("periodic_synchronisation_cycles"), std::string::npos);
          throw;
        }
      },
      std::invalid_argument);
}

}  // namespace
}  // namespace npuvp::coherence::testing

// ---- MSI (models/coherence/msi/, the worked example of adding a protocol) ----
namespace npuvp::coherence::testing {
namespace {

TesterConfig msi_config(unsigned cores, unsigned lines, std::uint64_t seed, std::uint64_t operations) {
  TesterConfig result = config(cores, lines, seed, operations);
  result.protocol = "msi";
  return result;
}

TEST(CoherenceRandomTest, MsiSeveralSeedsAndConfigurations) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const TesterResult small = run_random_test(msi_config(2, 4, seed, 10000));
    ASSERT_TRUE(small.passed) << small.failure;
    EXPECT_EQ(small.operations, 10000u);
    EXPECT_GT(small.atomics, 0u);
    EXPECT_GT(small.l1_evictions, 0u);
    EXPECT_GT(small.upgrades, 0u);  // stores to S lines (a RdEx from S)

    TesterConfig recalls = msi_config(4, 6, 10 + seed, 10000);
    recalls.llc_ways = 1;
    const TesterResult recalled = run_random_test(recalls);
    ASSERT_TRUE(recalled.passed) << recalled.failure;
    EXPECT_GT(recalled.llc_recalls, 0u);
    EXPECT_GT(recalled.l1_stalled, 0u);
    EXPECT_GT(recalled.home_stalled, 0u);

    TesterConfig crowded = msi_config(8, 8, 20 + seed, 10000);
    crowded.memory_controllers = 2;
    crowded.max_network_delay = 60;
    crowded.l1_ways = 1;
    crowded.line_stride = 8;  // every line on home 0
    const TesterResult result = run_random_test(crowded);
    ASSERT_TRUE(result.passed) << result.failure;

    TesterConfig contended = msi_config(16, 3, 30 + seed, 10000);
    contended.load_percent = 40;
    contended.store_percent = 30;
    const TesterResult contention = run_random_test(contended);
    ASSERT_TRUE(contention.passed) << contention.failure;
    if (seed == 1) std::cout << "[ tester ] msi, 16 cores: " << contention.summary() << "\n";
  }
}

// Random configurations, as for MESI: every run passes, and together they
// execute every row of the MSI tables except, as for MESI, a Replace arriving
// while its line, recalled meanwhile, is being fetched again.
TEST(CoherenceRandomTest, MsiRandomConfigurationsReachEveryTransition) {
  std::mt19937_64 random(2027);
  for (unsigned run = 0; run < 30; ++run) {
    TesterConfig setup = msi_config(2 + random() % 15, 1 + random() % 20, 2000 + run, 3000);
    setup.line_stride = 1 + random() % 17;
    setup.l1_sets = 1 + random() % 2;
    setup.l1_ways = 1 + random() % 3;
    setup.llc_sets = 1 + random() % 2;
    setup.llc_ways = 1 + random() % 3;
    setup.memory_controllers = 1 + random() % 3;
    setup.max_network_delay = 1 + random() % 80;
    setup.llc_latency = 1 + random() % 10;
    setup.memory_latency = 1 + random() % 30;
    setup.load_percent = random() % 70;
    setup.store_percent = random() % (101 - setup.load_percent);
    const TesterResult result = run_random_test(setup);
    ASSERT_TRUE(result.passed) << result.failure;
  }
  EXPECT_EQ(msi::l1_table().never_fired(), "");
  EXPECT_EQ(msi::home_table().never_fired(), "NP_D + Replace\n");
}

TEST(CoherenceRandomTest, MsiLostAckIsCaughtAsDeadlock) {
  TesterConfig setup = msi_config(4, 4, 6, 5000);
  setup.drop_message_type = msi::kAck;
  setup.drop_message_index = 20;
  const TesterResult result = run_random_test(setup);
  EXPECT_FALSE(result.passed);
  EXPECT_NE(result.failure.find("deadlock"), std::string::npos) << result.failure;
}

}  // namespace
}  // namespace npuvp::coherence::testing
