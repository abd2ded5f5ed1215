// Runs the npuvp executable as a user would (run_command.h: any command) and
// captures its exit status, stdout and stderr.
#pragma once

#include <gmock/gmock.h>

#include <sstream>
#include <string>

#include "run_command.h"

namespace npuvp::test_support {

inline CommandResult run_npuvp(const std::string& arguments) {
  return run_command(std::string("timeout 120 ") + NPUVP_EXECUTABLE + " " + arguments);
}

inline std::string firmware(const std::string& relative) { return std::string(NPUVP_FIRMWARE_DIR) + "/" + relative; }
inline std::string scenario(const std::string& name) {
  return std::string(NPUVP_SOURCE_DIR) + "/scenarios/" + name + ".yaml";
}

// The last non-empty line of a text (npuvp's one-line verdict is last on stderr).
inline std::string last_line(const std::string& text) {
  std::string line, last;
  std::istringstream in(text);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

}  // namespace npuvp::test_support
