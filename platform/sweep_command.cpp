#include "platform/sweep_command.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace npuvp {
namespace {

// This npuvp's own path: every run of the study uses the same build.
std::string own_executable() {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return "";
  return std::string(path, static_cast<std::size_t>(length));
}

std::string from_environment(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

}  // namespace

int sweep_command(int argc, char** argv) {
  // The engine runs on Debian's Python, which sees python3-yaml and python3-matplotlib.
  std::string python = from_environment("NPUVP_SWEEP_PYTHON", NPUVP_SWEEP_PYTHON);
  std::string package_dir = from_environment("NPUVP_SWEEP_PACKAGE_DIR", NPUVP_SWEEP_PACKAGE_DIR);
  std::string python_path = package_dir;
  if (const char* existing = std::getenv("PYTHONPATH"); existing && *existing) python_path += ":" + std::string(existing);
  setenv("PYTHONPATH", python_path.c_str(), 1);

  std::vector<std::string> arguments = {python, "-m", "npuvp_sweep", "--npuvp", own_executable(), "--firmware-dir",
                                        from_environment("NPUVP_FIRMWARE_DIR", NPUVP_FIRMWARE_DIR)};
  for (int i = 2; i < argc; ++i) arguments.emplace_back(argv[i]);
  std::vector<char*> pointers;
  for (auto& argument : arguments) pointers.push_back(argument.data());
  pointers.push_back(nullptr);
  execv(python.c_str(), pointers.data());
  std::cerr << "npuvp: error: cannot start the sweep engine '" << python << " -m npuvp_sweep' (" << std::strerror(errno)
            << "); it needs Debian's python3 with python3-yaml (make deps)\n";
  return 127;
}

}  // namespace npuvp
