// Runs a command as a user would and captures its exit status, stdout and stderr
// (run_npuvp.h adds the npuvp executable; the compiler's tests run npuvp-compile).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace npuvp::test_support {

struct CommandResult {
  int status = -1;
  std::string out, err;
};

inline std::string temp_path(const std::string& name) {
  return "/tmp/npuvp_test_" + std::to_string(getpid()) + "_" + name;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  std::string err_path = temp_path("stderr");
  std::FILE* pipe = popen((command + " 2>" + err_path).c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  std::size_t count;
  while ((count = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.out.append(buffer.data(), count);
  int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = read_file(err_path);
  std::remove(err_path.c_str());
  return result;
}

}  // namespace npuvp::test_support
