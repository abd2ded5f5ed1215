// Everything guest software prints (UART, semihosting, HTIF) goes through one
// transcript, so scenario checks can match console text whatever the device.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

namespace npuvp {

// Where one device's output goes: "stdout", "stderr", "none" or a file path.
class ConsoleOutput {
 public:
  explicit ConsoleOutput(const std::string& destination = "stdout");
  ~ConsoleOutput();
  ConsoleOutput(const ConsoleOutput&) = delete;
  ConsoleOutput& operator=(const ConsoleOutput&) = delete;
  void write(const char* data, std::size_t size);
  void put(char c) { write(&c, 1); }
  void flush();

 private:
  std::FILE* file_ = nullptr;
  bool owned_ = false;
};

class GuestConsole {
 public:
  static GuestConsole& instance();
  void append(const char* data, std::size_t size) { transcript_.append(data, size); }
  const std::string& transcript() const { return transcript_; }
  void clear() { transcript_.clear(); }

 private:
  std::string transcript_;
};

}  // namespace npuvp
