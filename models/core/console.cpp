#include "core/console.h"

#include "core/simulation.h"

#include <cerrno>
#include <cstring>

namespace npuvp {

ConsoleOutput::ConsoleOutput(const std::string& destination) {
  if (destination == "stdout" || destination.empty()) {
    file_ = stdout;
  } else if (destination == "stderr") {
    file_ = stderr;
  } else if (destination != "none") {
    file_ = std::fopen(destination.c_str(), "w");
    if (!file_)
      throw ConfigError("cannot open console output file '" + destination + "': " + std::strerror(errno));
    owned_ = true;
  }
}

ConsoleOutput::~ConsoleOutput() {
  if (owned_) std::fclose(file_);
  else if (file_) std::fflush(file_);
}

void ConsoleOutput::write(const char* data, std::size_t size) {
  GuestConsole::instance().append(data, size);
  if (!file_) return;
  std::fwrite(data, 1, size, file_);
  // Line-buffer so interleaving with simulator messages stays readable.
  if (std::memchr(data, '\n', size)) std::fflush(file_);
}

void ConsoleOutput::flush() {
  if (file_) std::fflush(file_);
}

GuestConsole& GuestConsole::instance() {
  static GuestConsole console;
  return console;
}

}  // namespace npuvp
