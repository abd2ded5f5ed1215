// docs/errors.md stays true: every catalogue row names a test that exists, in
// the file it names, and its message excerpt appears in that file (so a
// changed message changes the test, and the catalogue must follow).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kSource = NPUVP_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// | 12 | bad input | `message excerpt` | status | `tests/x_test.cpp` `Suite.Name` |
struct Entry {
  int number = 0;
  std::string excerpt, status, file, suite, name, line;
};

std::vector<Entry> catalogue(std::vector<std::string>& unparsed) {
  static const std::regex row(
      R"(^\| (\d+) \| .+ \| `([^`]+)` \| ([^|]+) \| `([^`]+)` `([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)` \|$)");
  static const std::regex numbered(R"(^\| \d+ \|.*\|.*\|.*\|.*\|$)");  // five columns
  std::vector<Entry> entries;
  std::istringstream in(read_text(kSource + "/docs/errors.md"));
  std::string line;
  while (std::getline(in, line)) {
    std::smatch match;
    if (std::regex_match(line, match, row)) {
      entries.push_back({std::stoi(match[1]), match[2], match[3], match[4], match[5], match[6], line});
    } else if (std::regex_match(line, numbered) && std::count(line.begin(), line.end(), '|') >= 6) {
      unparsed.push_back(line);
    }
  }
  return entries;
}

TEST(ErrorsCatalogue, HasAtLeast45EntriesNumberedInOrder) {
  std::vector<std::string> unparsed;
  const auto entries = catalogue(unparsed);
  EXPECT_TRUE(unparsed.empty()) << "rows not in the catalogue's form:\n" << unparsed.front();
  EXPECT_GE(entries.size(), 45u);
  for (std::size_t i = 0; i < entries.size(); ++i) EXPECT_EQ(entries[i].number, static_cast<int>(i + 1)) << entries[i].line;
}

TEST(ErrorsCatalogue, EveryEntryNamesATestThatExistsAndChecksItsMessage) {
  std::vector<std::string> unparsed;
  for (const auto& entry : catalogue(unparsed)) {
    SCOPED_TRACE(entry.line);
    const std::string source = read_text(kSource + "/" + entry.file);
    ASSERT_FALSE(source.empty()) << entry.file << " does not exist";
    const std::regex test("TEST(_F|_P)?\\(" + entry.suite + ", " + entry.name + "\\)");
    EXPECT_TRUE(std::regex_search(source, test)) << entry.file << " has no test " << entry.suite << "." << entry.name;
    EXPECT_NE(source.find(entry.excerpt), std::string::npos)
        << entry.file << " does not contain the message excerpt '" << entry.excerpt << "'";
    EXPECT_FALSE(entry.status.empty());
  }
}

// The categories the issue asks for (issue 23, "The class" item 1).
TEST(ErrorsCatalogue, CoversEveryKindOfBadInput) {
  const std::string text = read_text(kSource + "/docs/errors.md");
  for (const char* heading : {"## ELF images", "## Scenario YAML", "## Parameters", "## Command line",
                              "## Firmware faults", "## AI Core faults", "## Offload protocol", "## Coherence"})
    EXPECT_NE(text.find(heading), std::string::npos) << heading;
}

}  // namespace
