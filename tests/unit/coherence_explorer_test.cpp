// The exhaustive explorer (tests/coherence/explorer.h) on the real MESI
// controllers: small systems explored to completion must pass, and a broken
// network (a dropped or duplicated message) must be caught with a trace.
#include "coherence/explorer.h"

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
