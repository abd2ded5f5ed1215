#include "platform/output_file.h"

#include "core/simulation.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace npuvp {

void check_output_file(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const std::string prefix = option + " '" + path + "': ";
  std::error_code error;
  if (fs::is_directory(path, error)) throw ConfigError(prefix + "is a directory; give a file name");
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, error))
    throw ConfigError(prefix + "the folder '" + folder.string() + "' does not exist");
  const bool existed = fs::exists(path, error);
  // O_APPEND without O_TRUNC: an existing file keeps its contents until the end.
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | (existed ? 0 : O_CREAT | O_EXCL), 0666);
  if (fd < 0) throw ConfigError(prefix + "cannot be written (" + std::strerror(errno) + ")");
  close(fd);
  if (!existed) unlink(path.c_str());
}

}  // namespace npuvp
