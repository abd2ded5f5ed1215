// docs/isa-xdavinci.md carries the encoding tables generated from the one
// Xdavinci declaration (models/npu/xdavinci_isa.cpp); this keeps them equal.
#include "integration/run_npuvp.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

using namespace npuvp::test_support;

namespace {

const char kBegin[] = "<!-- BEGIN GENERATED: npuvp-xdavinci-gen --markdown -->\n";
const char kEnd[] = "<!-- END GENERATED -->\n";

// The generator sits next to npuvp in the build tree (build/platform/).
std::string generator_path() {
  std::string npuvp = NPUVP_EXECUTABLE;
  std::size_t slash = npuvp.rfind('/');
  return (slash == std::string::npos ? std::string(".") : npuvp.substr(0, slash)) + "/npuvp-xdavinci-gen";
}

// Offset of `marker` as a whole line of `text` at or after `from`, or npos.
std::size_t find_line(const std::string& text, const std::string& marker, std::size_t from = 0) {
  for (std::size_t at = text.find(marker, from); at != std::string::npos; at = text.find(marker, at + 1))
    if (at == 0 || text[at - 1] == '\n') return at;
  return std::string::npos;
}

// "line N: expected ... / found ..." for the first line that differs.
std::string first_difference(const std::string& expected, const std::string& found) {
  std::istringstream a(expected), b(found);
  std::string x, y;
  for (unsigned line = 1;; ++line) {
    bool more_a = static_cast<bool>(std::getline(a, x)), more_b = static_cast<bool>(std::getline(b, y));
    if (!more_a && !more_b) return "the sections differ only in their final newline";
    if (!more_a || !more_b || x != y)
      return "first difference at line " + std::to_string(line) + " of the section:\n  generator: " +
             (more_a ? x : std::string("(end)")) + "\n  document:  " + (more_b ? y : std::string("(end)"));
  }
}

const char kRegenerate[] =
    "docs/isa-xdavinci.md is stale: regenerate its encoding tables with\n"
    "  build/platform/npuvp-xdavinci-gen --markdown > /tmp/xd.md\n"
    "  sed -i -e '/^<!-- BEGIN GENERATED/,/^<!-- END GENERATED -->/{//!d}' "
    "-e '/^<!-- BEGIN GENERATED/r /tmp/xd.md' docs/isa-xdavinci.md\n";

}  // namespace

TEST(IsaDoc, EncodingTablesMatchTheGenerator) {
  auto generated = run_command(generator_path() + " --markdown");
  ASSERT_EQ(generated.status, 0) << generator_path() << " failed (build the npuvp-xdavinci-gen target): "
                                 << generated.err;
  ASSERT_FALSE(generated.out.empty());

  const std::string doc = read_file(std::string(NPUVP_SOURCE_DIR) + "/docs/isa-xdavinci.md");
  ASSERT_FALSE(doc.empty()) << "cannot read docs/isa-xdavinci.md";
  const std::size_t begin = find_line(doc, kBegin);
  ASSERT_NE(begin, std::string::npos) << "docs/isa-xdavinci.md lacks the line " << kBegin;
  EXPECT_EQ(find_line(doc, kBegin, begin + 1), std::string::npos) << "the BEGIN marker appears twice";
  const std::size_t start = begin + sizeof kBegin - 1;
  const std::size_t end = find_line(doc, kEnd, start);
  ASSERT_NE(end, std::string::npos) << "docs/isa-xdavinci.md lacks the line " << kEnd << "after " << kBegin;

  const std::string section = doc.substr(start, end - start);
  EXPECT_TRUE(section == generated.out) << kRegenerate << first_difference(generated.out, section);
}
