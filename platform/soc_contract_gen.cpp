// npuvp-soc-gen: keeps the SoC contract's generated sections (platform/soc_contract.h)
// equal to the one declaration in platform/memory_map.h and the device models.
//   npuvp-soc-gen --check SOURCE_DIR    exit 1, naming every stale section
//   npuvp-soc-gen --update SOURCE_DIR   rewrite the stale sections in place
// The build target `soc_contract` runs --update on the source tree.
#include "platform/soc_contract.h"

#include <systemc>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

// Before main(): the memory map's sc_time constant starts SystemC, which prints its banner.
const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

}  // namespace

int sc_main(int argc, char** argv) {
  using namespace npuvp::soc_contract;
  const bool update = argc == 3 && std::strcmp(argv[1], "--update") == 0;
  if (argc != 3 || (!update && std::strcmp(argv[1], "--check") != 0)) {
    std::cerr << "usage: npuvp-soc-gen --check SOURCE_DIR | --update SOURCE_DIR\n";
    return 2;
  }
  const std::string source_dir = argv[2];
  // Several sections may live in one file: edit each file's text, write it once.
  std::map<std::string, std::string> files, originals;
  int stale = 0;
  for (const GeneratedSection& section : generated_sections()) {
    const std::string path = source_dir + "/" + section.path;
    if (!files.count(path)) {
      if (!read_file(path, files[path])) {
        std::cerr << "npuvp-soc-gen: cannot read " << path << "\n";
        return 1;
      }
      originals[path] = files[path];
    }
    std::string body, error;
    if (!extract_section(files[path], section, body, error)) {
      std::cerr << "npuvp-soc-gen: " << error << "\n";
      return 1;
    }
    const std::string generated = section.generate();
    if (body == generated) continue;
    ++stale;
    if (update) files[path] = replace_section(files[path], section, generated);
    else std::cerr << "npuvp-soc-gen: " << section.path << ": the section after " << section.begin_marker
                   << " is stale\n";
  }
  if (!update) {
    if (stale) std::cerr << "npuvp-soc-gen: regenerate with `cmake --build build --target soc_contract`\n";
    return stale ? 1 : 0;
  }
  for (const auto& [path, text] : files) {
    if (text == originals[path]) continue;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
      std::cerr << "npuvp-soc-gen: cannot write " << path << "\n";
      return 1;
    }
    std::cout << "npuvp-soc-gen: rewrote " << path << "\n";
  }
  return 0;
}
