// The exhaustive explorer (tests/coherence/explorer.h) on the real MESI
// controllers: small systems explored to completion must pass, and a broken
// network (a dropped or duplicated message) must be caught with a trace.
#include "coherence/explorer.h"
#include "coherence/mesi/mesi.h"
#include "coherence/nsi/nsi.h"

#include <gtest/gtest.h>

#include <deque>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

namespace {

using namespace npuvp::coherence::exploration;
using npuvp::coherence::Controller;
using npuvp::coherence::Environment;
using npuvp::coherence::Message;

// How often the row (state, event) of `table` ran in this process.
template <typename Table>
std::uint64_t times_fired(const Table& table, typename Table::State state, typename Table::Event event) {
  const auto* row = table.find(state, event);
  return row ? table.times_fired(static_cast<std::size_t>(row - table.rows().data())) : 0;
}


// A memory controller whose work waits for a scheduled action (like a DRAM
// latency modelled with Environment::schedule): every scheduled action is a
// choice of the explorer. In order: one action at a time, requests in
// arrival order, as the memory controller's contract requires. Unordered:
// one action per request, which the explorer may run in any order.
class DeferredMemoryController : public Controller {
 public:
  DeferredMemoryController(std::unique_ptr<Controller> inner, Environment& environment, bool in_order)
      : inner_(std::move(inner)), environment_(environment), in_order_(in_order) {}
  void handle(const Message& message) override {
    queue_.push_back(message);
    if (!in_order_ || queue_.size() == 1) environment_.schedule(10, [this, message] { run(message); });
  }
  std::string name() const override { return inner_->name(); }
  std::string describe(std::uint64_t line) const override { return inner_->describe(line); }
  bool quiescent() const override { return queue_.empty() && inner_->quiescent(); }
  void serialize(std::string& out) const override {
    inner_->serialize(out);
    for (const Message& message : queue_) {
      out += std::to_string(message.type) + '@' + std::to_string(message.line) + ':';
      if (message.has_data) out.append(reinterpret_cast<const char*>(message.data.data()), 32);
    }
  }

 private:
  void run(const Message& message) {
    if (in_order_) {
      queue_.pop_front();
      inner_->handle(message);
      if (!queue_.empty()) {
        Message next = queue_.front();
        environment_.schedule(10, [this, next] { run(next); });
      }
      return;
    }
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (it->type == message.type && it->line == message.line && it->data == message.data) {
        queue_.erase(it);
        break;
      }
    inner_->handle(message);
  }

  std::unique_ptr<Controller> inner_;
  Environment& environment_;
  bool in_order_;
  std::deque<Message> queue_;
};

std::shared_ptr<ProtocolBinding> deferred_memory(bool in_order) {
  auto binding = std::make_shared<ProtocolBinding>(protocol_binding("mesi"));
  auto make = binding->make_memory_controller;
  binding->make_memory_controller = [make, in_order](unsigned index, const npuvp::coherence::Geometry& geometry,
                                                      Environment& environment,
                                                      npuvp::coherence::MemoryBackend& memory) {
    return std::unique_ptr<Controller>(
        new DeferredMemoryController(make(index, geometry, environment, memory), environment, in_order));
  };
  return binding;
}

// Dirty data of line 0 goes back to memory when the one-line LLC bank makes
// room for line 1, and line 0 is read from memory again afterwards.
Configuration write_back_then_read_again() {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 2;
  configuration.l1_sets = 2;
  configuration.llc_sets = 1;
  configuration.llc_ways = 1;
  configuration.scripts = {{store(0), load(1), load(0)}, {load(1)}};
  return configuration;
}

Result run(const Configuration& configuration) {
  Result result = explore(configuration);
  std::cout << "[ explorer ] " << configuration.protocol << ", " << configuration.caches << " caches x "
            << configuration.lines << " line(s): " << summary(result) << "\n";
  if (result.failed()) std::cout << result.trace;
  return result;
}

TEST(CoherenceExplorer, MesiTwoCachesOneLine) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 1;
  configuration.scripts = {{store(0), load(0), make_writable_store(0), load(0, 1)},
                           {load(0), store(0, 1), load(0), store(0)}};
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 500u);
  EXPECT_GT(result.terminal_states, 0u);
  EXPECT_GT(result.max_depth, 10u);
}

// 1-set x 1-way L1s and two lines on one home: every access to the other
// line evicts (clean and dirty replacements racing with forwards).
TEST(CoherenceExplorer, MesiTwoCachesTwoLinesWithEvictions) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 2;
  configuration.scripts = {{store(0), load(1), store(1), load(0)}, {load(0), store(1), load(1), store(0)}};
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 2000u);
}

// Lines on different homes: two directories work at once.
TEST(CoherenceExplorer, MesiTwoCachesTwoLinesOnTwoHomes) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 2;
  configuration.lines_share_home = false;
  configuration.scripts = {{store(0), store(1)}, {load(1), load(0), store(0)}};
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 500u);
}

TEST(CoherenceExplorer, MesiThreeCachesOneLine) {
  Configuration configuration;
  configuration.caches = 3;
  configuration.lines = 1;
  configuration.scripts = {{store(0), load(0), store(0)},
                           {load(0), make_writable_store(0), load(0)},
                           {load(0), store(0, 1), load(0)}};
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 4000u);
}

// Three L1s fighting over two lines that evict each other.
TEST(CoherenceExplorer, MesiThreeCachesTwoLines) {
  Configuration configuration;
  configuration.caches = 3;
  configuration.lines = 2;
  configuration.scripts = {{store(0), load(1)}, {load(0), store(1)}, {load(1), store(0)}};
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 10000u);
}

// Atomics: kMakeWritable locks the line until the core's next store to it,
// its next access to another line, or synchronise(); forwards wait meanwhile.
TEST(CoherenceExplorer, MesiLockedLines) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 2;
  configuration.l1_sets = 2;
  configuration.scripts = {{make_writable(0), load(1), make_writable_store(0)},
                           {make_writable(0), synchronise(), load(0), make_writable(1), store(0)}};
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 500u);
}

// A one-line LLC bank: the second line recalls the first from the L1s
// (inclusion) while they use it.
TEST(CoherenceExplorer, MesiLlcRecalls) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 2;
  configuration.l1_sets = 2;
  configuration.llc_sets = 1;
  configuration.llc_ways = 1;
  configuration.scripts = {{store(0), load(1)}, {load(0), store(1)}};
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 200u);
}

// The thesis's baseline MESI (thesis_baseline): every interleaving of the
// programs above that exercise it — stores to shared lines (RdEx from S,
// Invalidations crossing it), evictions, atomics and recalls — under the
// same invariants (SWMR, data value, no deadlock).
TEST(CoherenceExplorer, MesiThesisBaselineToCompletion) {
  struct Case {
    const char* name;
    Configuration configuration;
    std::uint64_t minimum_states;
  };
  std::vector<Case> cases;
  {
    Configuration c;  // both read, then both write: RdEx from S racing an Invalidation
    c.scripts = {{load(0), store(0), load(0)}, {load(0), store(0, 1), load(0)}};
    cases.push_back({"stores to a shared line", c, 150});
  }
  {
    Configuration c;
    c.scripts = {{store(0), load(0), make_writable_store(0), load(0, 1)}, {load(0), store(0, 1), load(0), store(0)}};
    cases.push_back({"two caches, one line", c, 400});
  }
  {
    Configuration c;
    c.lines = 2;
    c.scripts = {{store(0), load(1), store(1), load(0)}, {load(0), store(1), load(1), store(0)}};
    cases.push_back({"two lines with evictions", c, 3000});
  }
  {
    Configuration c;
    c.caches = 3;
    c.scripts = {{load(0), store(0)}, {load(0), make_writable_store(0), load(0)}, {load(0), store(0, 1), load(0)}};
    cases.push_back({"three caches, one line", c, 4000});
  }
  {
    Configuration c;
    c.lines = 2;
    c.l1_sets = 2;
    c.scripts = {{make_writable(0), load(1), make_writable_store(0)},
                 {load(0), make_writable(0), synchronise(), load(0), make_writable(1), store(0)}};
    cases.push_back({"locked lines", c, 2000});
  }
  {
    Configuration c;
    c.lines = 2;
    c.l1_sets = 2;
    c.llc_sets = 1;
    c.llc_ways = 1;
    c.scripts = {{load(0), store(0), load(1)}, {load(0), store(0), store(1)}};
    cases.push_back({"LLC recalls", c, 1000});
  }
  for (Case& each : cases) {
    each.configuration.options["thesis_baseline"] = "true";
    const Result result = explore(each.configuration);
    std::cout << "[ MESI thesis ] " << each.name << ": " << summary(result) << "\n";
    EXPECT_TRUE(result.passed()) << each.name << ": " << result.message << "\n" << result.trace;
    EXPECT_GE(result.states, each.minimum_states) << each.name;
  }
  // The controllers explored ran the thesis's tables: its own rows fired.
  namespace mesi = npuvp::coherence::mesi;
  EXPECT_GT(times_fired(mesi::thesis_home_table(), mesi::HomeMachine::State::kSHD,
                        mesi::HomeMachine::Event::kRdExFromSharer),
            0u);
  EXPECT_GT(times_fired(mesi::thesis_l1_table(), mesi::L1Machine::State::kIM_D, mesi::L1Machine::Event::kInvalidation),
            0u);
}

// The explorer can fail: losing one message leaves a core waiting forever
// (or a controller stuck in a transient state).
TEST(CoherenceExplorer, DroppedMessageIsCaught) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 1;
  configuration.scripts = {{store(0)}, {load(0)}};
  configuration.fault = Fault::kDropMessage;
  Result result = run(configuration);
  ASSERT_TRUE(result.failed());
  EXPECT_EQ(result.outcome, Result::Outcome::kDeadlock) << result.message;
  // The path from the initial state, with the messages named by the
  // protocol (core 0's store sends RdEx).
  EXPECT_NE(result.trace.find("step 1: core"), std::string::npos) << result.trace;
  EXPECT_NE(result.trace.find("FAULT: drop"), std::string::npos) << result.trace;
  EXPECT_NE(result.trace.find("sends RdEx L1 0 -> home 0"), std::string::npos) << result.trace;
  EXPECT_NE(result.trace.find("deadlock"), std::string::npos);
}

// A message delivered twice is an unexpected event (or breaks an invariant).
TEST(CoherenceExplorer, DuplicatedMessageIsCaught) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 1;
  configuration.scripts = {{store(0), load(0)}, {load(0), store(0)}};
  configuration.fault = Fault::kDuplicateMessage;
  Result result = run(configuration);
  ASSERT_TRUE(result.failed());
  EXPECT_NE(result.trace.find("FAULT: deliver without removing it"), std::string::npos) << result.trace;
}

// A permission probe that calls every copy writable makes any sharing a
// single-writer violation: the SWMR check is live.
TEST(CoherenceExplorer, SingleWriterCheckFires) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 1;
  configuration.scripts = {{load(0)}, {load(0)}};
  configuration.permission = [](const npuvp::coherence::L1Controller& l1, std::uint64_t line) {
    Permission permission = default_permission(l1, line);
    return permission == Permission::kNone ? Permission::kNone : Permission::kWrite;
  };
  Result result = run(configuration);
  EXPECT_EQ(result.outcome, Result::Outcome::kSingleWriterViolation) << result.message;
  EXPECT_NE(result.message.find("2 writer(s)"), std::string::npos) << result.message;
}

// Scheduled actions are choices like messages: with the memory's work in
// order the protocol still passes ...
TEST(CoherenceExplorer, ScheduledActionsInOrderPass) {
  Configuration configuration = write_back_then_read_again();
  configuration.binding = deferred_memory(true);
  Result result = run(configuration);
  EXPECT_TRUE(result.passed()) << result.message;
  Configuration direct = write_back_then_read_again();
  Result without_deferral = run(direct);
  EXPECT_TRUE(without_deferral.passed()) << without_deferral.message;
  EXPECT_GT(result.states, without_deferral.states);
}

// ... and a memory that may perform a read before an earlier write of the
// same line returns stale data: a data-value violation.
TEST(CoherenceExplorer, ScheduledActionsOutOfOrderAreCaught) {
  Configuration configuration = write_back_then_read_again();
  configuration.binding = deferred_memory(false);
  Result result = run(configuration);
  EXPECT_EQ(result.outcome, Result::Outcome::kDataValueViolation) << result.message;
  EXPECT_NE(result.trace.find("scheduled action of memory controller 0"), std::string::npos) << result.trace;
}

// Without the mesh's point-to-point order the memory controller may read a
// line before the write-back sent ahead of it on the same channel (its
// contract, memory_controller.h, relies on that order): the explorer finds
// the stale load.
TEST(CoherenceExplorer, UnorderedChannelsBreakWriteBackThenRead) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 2;
  configuration.scripts = {{store(0), load(1), store(0)}, {load(0), store(1), load(0)}};
  configuration.l1_sets = 2;
  configuration.llc_sets = 1;
  configuration.llc_ways = 1;
  Result ordered = run(configuration);
  EXPECT_TRUE(ordered.passed()) << ordered.message;
  configuration.ordered_channels = false;
  Result unordered = run(configuration);
  EXPECT_EQ(unordered.outcome, Result::Outcome::kDataValueViolation) << unordered.message;
  EXPECT_NE(unordered.trace.find("deliver MemoryRead"), std::string::npos) << unordered.trace;
}

TEST(CoherenceExplorer, StateLimitStopsTheSearch) {
  Configuration configuration;
  configuration.caches = 2;
  configuration.lines = 1;
  configuration.scripts = {{store(0), load(0), store(0)}, {load(0), store(0), load(0)}};
  configuration.max_states = 50;
  Result result = run(configuration);
  EXPECT_EQ(result.outcome, Result::Outcome::kStateLimit);
  EXPECT_EQ(result.states, 50u);
}

TEST(CoherenceExplorer, BadConfigurationsAreRejected) {
  Configuration unknown;
  unknown.protocol = "no-such-protocol";
  EXPECT_THROW(explore(unknown), std::invalid_argument);
  Configuration outside;
  outside.lines = 1;
  outside.scripts = {{load(1)}};
  try {
    explore(outside);
    FAIL() << "a script naming line 1 of a one-line configuration was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("line 1"), std::string::npos) << error.what();
  }
  Configuration too_many;
  too_many.caches = 2;
  too_many.scripts = {{}, {}, {}};
  EXPECT_THROW(explore(too_many), std::invalid_argument);
}

}  // namespace

// ---- MSI (models/coherence/msi/): the same scripts as MESI's above, to completion ----
namespace npuvp::coherence::exploration {
namespace {

Configuration msi(unsigned caches, unsigned lines, std::vector<std::vector<ScriptOperation>> scripts) {
  Configuration configuration;
  configuration.protocol = "msi";
  configuration.caches = caches;
  configuration.lines = lines;
  configuration.scripts = std::move(scripts);
  return configuration;
}

Result run_msi(const Configuration& configuration) {
  Result result = explore(configuration);
  std::cout << "[ explorer ] msi, " << configuration.caches << " caches x " << configuration.lines
            << " line(s): " << summary(result) << "\n";
  if (result.failed()) std::cout << result.trace;
  return result;
}

TEST(CoherenceExplorer, MsiTwoCachesOneLine) {
  const Result result = run_msi(msi(2, 1,
                                    {{store(0), load(0), make_writable_store(0), load(0, 1)},
                                     {load(0), store(0, 1), load(0), store(0)}}));
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 300u);  // MESI: more (E, Upgrade, write-back buffer)
  EXPECT_GT(result.terminal_states, 0u);
}

// 1 x 1 L1s: every access to the other line evicts; an evicting line keeps
// its way until its AckChange, so the access waits for it.
TEST(CoherenceExplorer, MsiTwoCachesTwoLinesWithEvictions) {
  const Result result =
      run_msi(msi(2, 2, {{store(0), load(1), store(1), load(0)}, {load(0), store(1), load(1), store(0)}}));
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 1000u);
}

TEST(CoherenceExplorer, MsiThreeCachesTwoLines) {
  const Result result = run_msi(msi(3, 2, {{store(0), load(1)}, {load(0), store(1)}, {load(1), store(0)}}));
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 5000u);
}

TEST(CoherenceExplorer, MsiThreeCachesOneLine) {
  const Result result = run_msi(msi(3, 1,
                                    {{store(0), load(0), store(0)},
                                     {load(0), make_writable_store(0), load(0)},
                                     {load(0), store(0, 1), load(0)}}));
  EXPECT_TRUE(result.passed()) << result.message;
  EXPECT_GT(result.states, 4000u);
}

TEST(CoherenceExplorer, MsiLockedLinesAndLlcRecalls) {
  Configuration locked = msi(2, 2,
                             {{make_writable(0), load(1), make_writable_store(0)},
                              {make_writable(0), synchronise(), load(0), make_writable(1), store(0)}});
  locked.l1_sets = 2;
  const Result locking = run_msi(locked);
  EXPECT_TRUE(locking.passed()) << locking.message;
  Configuration recalls = msi(2, 2, {{store(0), load(1)}, {load(0), store(1)}});
  recalls.l1_sets = 2;
  recalls.llc_sets = 1;
  recalls.llc_ways = 1;
  const Result recalled = run_msi(recalls);
  EXPECT_TRUE(recalled.passed()) << recalled.message;
  EXPECT_GT(recalled.states, 100u);
}

// The controller's own permission() answers the single-writer check: a
// broken answer (every copy writable) is caught.
TEST(CoherenceExplorer, MsiPermissionComesFromTheController) {
  Configuration configuration = msi(2, 1, {{load(0)}, {load(0)}});
  EXPECT_TRUE(run_msi(configuration).passed());
  configuration.permission = [](const L1Controller& l1, std::uint64_t line) {
    return l1.permission(line) == L1Controller::Permission::kRead ? Permission::kWrite
                                                                  : default_permission(l1, line);
  };
  EXPECT_EQ(explore(configuration).outcome, Result::Outcome::kSingleWriterViolation);
}

}  // namespace
}  // namespace npuvp::coherence::exploration

// ---- NSI: weak-consistency invariants ----
namespace {

Configuration nsi_configuration() {
  Configuration configuration;
  configuration.protocol = "nsi";
  configuration.allow_readers_with_writer = true;   // at most one EXC/MOD copy; SHD/SUS copies may coexist
  configuration.happens_before_data_value = true;   // loads see every write that happens-before them
  return configuration;
}

// The thesis's Fig. 5.1 and the litmus shapes with synchronisations, to
// completion; small caches force L1 evictions and LLC recalls.
struct NsiCase {
  const char* name;
  Configuration configuration;
  std::uint64_t minimum_states;
};

std::vector<NsiCase> nsi_synchronised_cases() {
  using Case = NsiCase;
  std::vector<Case> cases;
  {
    Configuration c = nsi_configuration();  // Fig. 5.1: S(x); Syn1 || L1(x); Syn2; L2(x)
    c.scripts = {{store(0), synchronise(), store(0)}, {load(0), synchronise(), load(0), store(0)}};
    cases.push_back({"Fig. 5.1", c, 200});
  }
  {
    Configuration c = nsi_configuration();  // MP+syncs, both lines in one 1-way L1 set
    c.lines = 2;
    c.scripts = {{store(0), synchronise(), store(1)}, {load(1), synchronise(), load(0)}};
    cases.push_back({"MP+syncs", c, 500});
  }
  {
    Configuration c = nsi_configuration();  // SB+syncs with one-line LLC banks: recalls
    c.lines = 2;
    c.llc_sets = 1;
    c.llc_ways = 1;
    c.scripts = {{load(0), store(1), synchronise(), load(0)}, {load(1), store(0), synchronise(), load(1)}};
    cases.push_back({"SB+syncs, LLC recalls", c, 3000});
  }
  {
    Configuration c = nsi_configuration();  // write-backs crossing interventions and recalls
    c.lines = 2;
    c.llc_sets = 1;
    c.llc_ways = 1;
    c.scripts = {{store(0), load(1), store(1), synchronise(), load(0)},
                 {store(1), load(0), store(0), synchronise(), load(1)}};
    cases.push_back({"write-backs and recalls", c, 8000});
  }
  {
    Configuration c = nsi_configuration();  // atomics (AMO = make-writable + store, then sync)
    c.scripts = {{make_writable_store(0), synchronise(), load(0)}, {load(0), make_writable_store(0), synchronise(), load(0)}};
    cases.push_back({"atomics", c, 150});
  }
  {
    Configuration c = nsi_configuration();  // three caches, false sharing (words 0 and 1 of one line)
    c.caches = 3;
    c.scripts = {{store(0), synchronise()}, {load(0), synchronise(), load(0)}, {load(0), store(0, 1), synchronise(), load(0)}};
    cases.push_back({"three caches", c, 3000});
  }
  {
    Configuration c = nsi_configuration();  // bounded periodic synchronisation (every 4 explorer steps)
    c.options["periodic_synchronisation_cycles"] = 4;
    c.scripts = {{store(0), store(0)}, {load(0), load(0), load(0)}};
    cases.push_back({"periodic synchronisation", c, 500});
  }
  return cases;
}

TEST(CoherenceExplorerTest, NsiSynchronisedProgramsPassToCompletion) {
  for (const NsiCase& each : nsi_synchronised_cases()) {
    const Result result = explore(each.configuration);
    std::cout << "[ NSI      ] " << each.name << ": " << summary(result) << "\n";
    EXPECT_TRUE(result.passed()) << each.name << ": " << result.message << "\n" << result.trace;
    EXPECT_GE(result.states, each.minimum_states) << each.name;
  }
}

// The thesis's literal validation (validation = data): the same programs,
// to completion, under the same invariants. (They reach as many states as
// with the versioned validation: a RepShd carrying the current data takes
// the L1 exactly where a RepValidShd does, so the two graphs are the same
// up to the reply's type.)
TEST(CoherenceExplorerTest, NsiLiteralValidationPassesToCompletion) {
  for (NsiCase each : nsi_synchronised_cases()) {
    each.configuration.options["validation"] = "data";
    const Result result = explore(each.configuration);
    std::cout << "[ NSI data ] " << each.name << ": " << summary(result) << "\n";
    EXPECT_TRUE(result.passed()) << each.name << ": " << result.message << "\n" << result.trace;
    EXPECT_GE(result.states, each.minimum_states) << each.name;
  }
  // The controllers explored ran the literal tables: a current copy was answered with data.
  namespace nsi = npuvp::coherence::nsi;
  EXPECT_GT(times_fired(nsi::literal_validation_home_table(), nsi::HomeMachine::State::kEXC,
                        nsi::HomeMachine::Event::kReadCurrentOwned),
            0u);
}

// Without synchronisations NSI returns stale data (MP: r1 = y = 1, r2 = x =
// old): the strong data-value check of MESI rejects it, the happens-before
// check accepts it; MESI passes the strong one.
TEST(CoherenceExplorerTest, NsiAllowsStaleReadsThatMesiForbids) {
  Configuration c = nsi_configuration();
  c.lines = 2;
  c.l1_ways = 2;
  c.scripts = {{store(0), store(1)}, {load(0), load(1), load(0)}};
  EXPECT_TRUE(explore(c).passed());
  c.happens_before_data_value = false;
  const Result strong = explore(c);
  EXPECT_EQ(strong.outcome, Result::Outcome::kDataValueViolation) << summary(strong);
  c.protocol = "mesi";
  c.allow_readers_with_writer = false;
  EXPECT_TRUE(explore(c).passed());
}

// Fault injection: an NSI whose synchronise() does not self-invalidate is
// caught (a load after a synchronisation returns a value older than a write
// that happens-before it).
TEST(CoherenceExplorerTest, NsiMissingSelfInvalidationIsCaught) {
  Configuration c = nsi_configuration();
  c.scripts = {{store(0), synchronise()}, {load(0), synchronise(), load(0)}};
  auto binding = std::make_shared<ProtocolBinding>(
      protocol_binding("nsi", {{"periodic_synchronisation_cycles", 0}}));
  auto make = binding->make_l1;
  binding->make_l1 = [make](unsigned tile, const npuvp::coherence::Geometry& geometry,
                            const npuvp::coherence::CacheShape& shape, Environment& environment) {
    auto l1 = make(tile, geometry, shape, environment);
    dynamic_cast<npuvp::coherence::nsi::L1&>(*l1).skip_self_invalidation_for_testing(true);
    return l1;
  };
  c.binding = binding;
  const Result result = explore(c);
  EXPECT_EQ(result.outcome, Result::Outcome::kDataValueViolation) << summary(result);
  EXPECT_NE(result.message.find("happens-before"), std::string::npos) << result.message;
}

// Two owners at once are caught even with read-only copies allowed.
TEST(CoherenceExplorerTest, NsiSingleOwnerCheckCatchesTwoWriters) {
  Configuration c = nsi_configuration();
  c.scripts = {{load(0)}, {load(0)}};
  c.permission = [](const npuvp::coherence::L1Controller& l1, std::uint64_t line) {
    std::uint64_t word;
    bool owner = false;
    return l1.peek(line, &word, sizeof word, owner) ? Permission::kWrite : Permission::kNone;
  };
  EXPECT_EQ(explore(c).outcome, Result::Outcome::kSingleWriterViolation);
}

}  // namespace
