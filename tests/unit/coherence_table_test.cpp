// The protocol-table machinery, the cache array, and docs/coherence.md's
// tables against what the code prints.
#include "coherence/cache_array.h"
#include "coherence/protocol_registry.h"
#include "coherence/protocol_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace npuvp::coherence {
namespace {

struct Toy {
  enum class State : std::uint8_t { kOff, kOn, kCount };
  enum class Event : std::uint8_t { kPress, kHold, kUnplug, kCount };
  enum class Action : std::uint8_t { kBeep, kLight, kCount };
  static const char* name(State s) { return s == State::kOff ? "Off" : "On"; }
  static const char* name(Event e) { return e == Event::kPress ? "Press" : e == Event::kHold ? "Hold" : "Unplug"; }
  static const char* name(Action a) { return a == Action::kBeep ? "beep" : "light"; }
  static const char* meaning(State) { return "a state"; }
  static const char* meaning(Event) { return "an event"; }
  static const char* meaning(Action) { return "an action"; }
};
using ToyTable = ProtocolTable<Toy>;

ToyTable toy_table() {
  using S = Toy::State;
  using E = Toy::Event;
  using A = Toy::Action;
  return ToyTable("toy", {
                             ToyTable::row(S::kOff, E::kPress, {A::kBeep, A::kLight}, S::kOn),
                             ToyTable::row(S::kOff, E::kHold, {A::kBeep, A::kLight}, S::kOn),
                             ToyTable::row(S::kOn, E::kPress, {}, S::kOff),
                             ToyTable::row(S::kOn, E::kUnplug, {A::kBeep}, S::kOff),
                         });
}

TEST(CoherenceTableTest, FindsRowsAndReportsMissingPairs) {
  const ToyTable table = toy_table();
  const ToyTable::Row* row = table.find(Toy::State::kOff, Toy::Event::kPress);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->action_count, 2u);
  EXPECT_EQ(row->actions[1], Toy::Action::kLight);
  EXPECT_EQ(row->next, Toy::State::kOn);
  EXPECT_EQ(table.find(Toy::State::kOff, Toy::Event::kUnplug), nullptr);
  EXPECT_EQ(table.find(Toy::State::kOn, Toy::Event::kHold), nullptr);
}

TEST(CoherenceTableTest, DuplicateRowIsRejected) {
  ToyTable table = toy_table();
  EXPECT_THROW(table.add(ToyTable::row(Toy::State::kOn, Toy::Event::kPress, {}, Toy::State::kOn)), std::logic_error);
}

TEST(CoherenceTableTest, MarkdownMergesEventsWithTheSameOutcome) {
  const std::string text = toy_table().markdown();
  EXPECT_NE(text.find("| Off | Press, Hold | beep, light | On |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| On | Press | — | Off |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| On | Unplug | beep | Off |\n"), std::string::npos) << text;
  EXPECT_NE(text.find("| Unplug | an event |"), std::string::npos) << text;
}

// A variant (a protocol option) keeps the base's rows but those it changes,
// removes or drops with their state; differences_markdown() prints exactly
// what differs.
TEST(CoherenceTableTest, VariantReplacesRemovesAndAddsRows) {
  using S = Toy::State;
  using E = Toy::Event;
  using A = Toy::Action;
  const ToyTable base = toy_table();
  const ToyTable variant = base.variant("toy, quiet", {ToyTable::row(S::kOff, E::kPress, {A::kLight}, S::kOn),
                                                       ToyTable::row(S::kOn, E::kHold, {}, S::kOn)},
                                        {{S::kOff, E::kHold}});
  ASSERT_NE(variant.find(S::kOff, E::kPress), nullptr);
  EXPECT_EQ(variant.find(S::kOff, E::kPress)->action_count, 1u);
  EXPECT_EQ(variant.find(S::kOff, E::kHold), nullptr);
  EXPECT_NE(variant.find(S::kOn, E::kHold), nullptr);
  EXPECT_NE(variant.find(S::kOn, E::kUnplug), nullptr);  // kept
  EXPECT_EQ(base.find(S::kOff, E::kPress)->action_count, 2u);  // the base is unchanged
  EXPECT_EQ(variant.title(), "toy, quiet");
  EXPECT_EQ(variant.differences_markdown(base),
            "| State | Event | Actions | Next | Instead of |\n|---|---|---|---|---|\n"
            "| Off | Press | light | On | beep, light → On |\n"
            "| On | Hold | — | On | — |\n"
            "\nNo row (unreachable, or now a protocol error): Off + Hold.\n");
  const ToyTable without_on = base.variant("toy, off only", {}, {}, {S::kOn});
  EXPECT_EQ(without_on.rows().size(), 2u);
  EXPECT_THROW(base.variant("twice", {ToyTable::row(S::kOn, E::kHold, {}, S::kOn),
                                      ToyTable::row(S::kOn, E::kHold, {A::kBeep}, S::kOn)}),
               std::logic_error);
}

TEST(CoherenceTableTest, ProtocolErrorTextHasTheFullContext) {
  const std::string text =
      protocol_error_text("L1 3", 0x1240, "SM_A", "ExcIntervention", "message ExcIntervention from node 5", 977);
  EXPECT_EQ(text,
            "L1 3: no transition for event ExcIntervention in state SM_A, line 0x1240, message ExcIntervention from "
            "node 5, cycle 977");
}

TEST(CoherenceCacheArrayTest, ShapeIsCheckedWithAClearMessage) {
  EXPECT_NO_THROW(CacheArray("L1", CacheShape{64 * 1024, 4, 3}, 32));
  EXPECT_EQ(CacheArray("L1", CacheShape{64 * 1024, 4, 3}, 32).sets(), 512u);
  try {
    CacheArray("LLC bank 3", CacheShape{1000, 4, 10}, 32);
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("LLC bank 3: the size must be a whole number of sets"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(CacheArray("L1", CacheShape{1024, 0, 3}, 32), std::invalid_argument);
  EXPECT_THROW(CacheArray("L1", CacheShape{1024, 2, 3}, 48), std::invalid_argument);
  EXPECT_THROW(CacheArray("L1", CacheShape{1024, 2, 3}, 256), std::invalid_argument);
}

TEST(CoherenceCacheArrayTest, LookupFillAndLeastRecentlyUsedVictim) {
  CacheArray array("L1", CacheShape{2 * 2 * 32, 2, 3}, 32);  // 2 sets x 2 ways
  EXPECT_EQ(array.set_of(0x00), 0u);
  EXPECT_EQ(array.set_of(0x20), 1u);
  EXPECT_EQ(array.set_of(0x40), 0u);
  const int first = array.free_way(0x00);
  array.install(first, 0x00, 1);
  const int second = array.free_way(0x40);
  array.install(second, 0x40, 2);
  EXPECT_NE(first, second);
  EXPECT_EQ(array.free_way(0x80), CacheArray::kNone);
  EXPECT_EQ(array.find(0x40), second);
  EXPECT_EQ(array.find(0x20), CacheArray::kNone);
  EXPECT_EQ(array.victim(0x80, [](std::uint8_t) { return true; }), first);  // 0x00 is older
  EXPECT_EQ(array.lru_rank(second), 0u);
  EXPECT_EQ(array.lru_rank(first), 1u);
  array.touch(first);
  EXPECT_EQ(array.lru_rank(first), 0u);
  EXPECT_EQ(array.victim(0x80, [](std::uint8_t) { return true; }), second);
  EXPECT_EQ(array.victim(0x80, [](std::uint8_t state) { return state == 1; }), first);  // only state 1 evictable
  array.data(second)[5] = 9;
  array.release(second);
  EXPECT_EQ(array.find(0x40), CacheArray::kNone);
  EXPECT_EQ(array.free_way(0x80), second);
}

TEST(CoherenceCacheArrayTest, BankInterleaveSpreadsTheBanksLinesOverItsSets) {
  // Bank 1 of 4 holds lines 1, 5, 9, 13 ...: consecutive ones fall into consecutive sets.
  CacheArray bank("home 1", CacheShape{4 * 1 * 32, 1, 10}, 32, 4);
  EXPECT_EQ(bank.set_of(1 * 32), 0u);
  EXPECT_EQ(bank.set_of(5 * 32), 1u);
  EXPECT_EQ(bank.set_of(9 * 32), 2u);
  EXPECT_EQ(bank.set_of(13 * 32), 3u);
  EXPECT_EQ(bank.set_of(17 * 32), 0u);
}

// set_of() shifts and masks when the interleave and the set count are powers
// of two and divides otherwise (a 3 x 3 mesh has 9 banks); both must give
// (line / line_bytes / interleave) mod sets.
TEST(CoherenceCacheArrayTest, SetIndexIsTheSameWithShiftsAndWithDivision) {
  struct Shape {
    std::uint64_t size;
    unsigned ways, line_bytes, interleave;
  };
  for (const Shape& shape : {Shape{64 * 1024, 4, 32, 1}, Shape{1 << 20, 4, 32, 16}, Shape{64 * 128, 2, 64, 4},
                             Shape{9 * 4 * 32, 4, 32, 9}, Shape{3 * 2 * 32, 2, 32, 1}, Shape{6 * 2 * 32, 2, 32, 4}}) {
    CacheArray array("bank", CacheShape{shape.size, shape.ways, 10}, shape.line_bytes, shape.interleave);
    for (std::uint64_t line = 0; line < 4096; ++line) {
      const std::uint64_t address = 0x8000'0000 + line * shape.line_bytes;
      ASSERT_EQ(array.set_of(address), (address / shape.line_bytes / shape.interleave) % array.sets())
          << "size " << shape.size << ", interleave " << shape.interleave << ", line 0x" << std::hex << address;
    }
  }
}

// docs/coherence.md shows each protocol's tables between
// <!-- tables:NAME begin --> and <!-- tables:NAME end -->, exactly as printed.
TEST(CoherenceTableTest, DocumentationShowsTheTablesTheCodeExecutes) {
  std::ifstream file(std::string(NPUVP_SOURCE_DIR) + "/docs/coherence.md");
  ASSERT_TRUE(file) << "docs/coherence.md missing";
  std::stringstream contents;
  contents << file.rdbuf();
  const std::string doc = contents.str();
  for (const std::string& name : protocol_names()) {
    const std::string begin = "<!-- tables:" + name + " begin -->\n", end = "<!-- tables:" + name + " end -->";
    const auto from = doc.find(begin), to = doc.find(end);
    ASSERT_NE(from, std::string::npos) << "no tables for " << name;
    ASSERT_NE(to, std::string::npos) << "no end marker for " << name;
    const std::string shown = doc.substr(from + begin.size(), to - from - begin.size());
    EXPECT_EQ(shown, "\n" + find_protocol(name).tables_markdown() + "\n")
        << "regenerate the tables of " << name << " in docs/coherence.md";
  }
}

}  // namespace
}  // namespace npuvp::coherence

namespace npuvp::coherence {
namespace {

// NSI is registered, so the documentation test above compares its tables
// too; its flash self-invalidation is a row of its L1 table.
TEST(CoherenceTableTest, NsiIsRegisteredWithItsSelfInvalidationRow) {
  bool found = false;
  for (const std::string& name : protocol_names()) found |= name == "nsi";
  ASSERT_TRUE(found);
  const std::string tables = find_protocol("nsi").tables_markdown();
  EXPECT_NE(tables.find("| SHD | Synchronise | flash suspect | SUS |"), std::string::npos) << tables;
  EXPECT_EQ(tables.find("Invalidation |"), std::string::npos) << "NSI has no Invalidation message";
}

}  // namespace
}  // namespace npuvp::coherence
