// Shared by the libFuzzer targets of tests/fuzz (docs/testing.md "Fuzzing").
//
// The readers under test take file paths (as npuvp does); a target writes its input to a
// file of its own first. The file lives in a private folder under $TMPDIR (default /tmp),
// removed when the process exits, so parallel fuzzers do not share files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace npuvp::fuzz {

// A folder for this process's files, removed at exit.
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/npuvp-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("npuvp fuzz: cannot create a scratch folder");
      std::abort();
    }
    static struct Remover {
      std::filesystem::path path;
      ~Remover() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
      }
    } remover{pattern};
    return std::filesystem::path(pattern);
  }();
  return folder;
}

// Writes `data` to `name` in the scratch folder and returns the file's path.
inline std::string write_file(const std::string& name, const std::uint8_t* data, std::size_t size) {
  std::string path = (scratch_folder() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "npuvp fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

// A property of the code under test does not hold: report it as a crash, with the reason.
[[noreturn]] inline void property_failed(const char* what) {
  std::fprintf(stderr, "npuvp fuzz: property failed: %s\n", what);
  std::abort();
}

}  // namespace npuvp::fuzz
