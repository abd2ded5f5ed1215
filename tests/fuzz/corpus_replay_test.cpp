// Replays a fuzz target's committed seeds (tests/fuzz/corpus/<target>/), the inputs that
// once crashed it among them (regression-*), through the same LLVMFuzzerTestOneInput in the
// ordinary build, without libFuzzer: so `make test` and `make test-sanitize` keep every
// fixed crash fixed. A crash, a sanitizer finding or a failed property ends the process
// (the test fails with the message); an unexpected exception fails the input's check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

TEST(FuzzCorpusReplay, EverySeedRunsCleanly) {
  const std::filesystem::path folder = NPUVP_FUZZ_CORPUS;
  ASSERT_TRUE(std::filesystem::is_directory(folder)) << folder;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no seeds in " << folder;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NO_THROW(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()))
        << file;
  }
}

}  // namespace
