// Output files named on the command line (`--stats`, `infer --output`,
// `--profile`) are checked before the run starts: a path that cannot be
// written is bad input (exit 125) at once, not a message after an hour of
// simulation that leaves the exit status 0.
#pragma once

#include <string>

namespace npuvp {

// Throws ConfigError "<option> '<path>': <why>" when `path` is a directory,
// its folder does not exist, or it cannot be opened for writing. An existing
// file is left as it is (overwritten only at the end of the run); a new one is
// created and removed again.
void check_output_file(const std::string& option, const std::string& path);

}  // namespace npuvp
