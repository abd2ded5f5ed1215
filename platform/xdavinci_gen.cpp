// npuvp-xdavinci-gen: writes artefacts generated from the Xdavinci ISA
// declaration (models/npu/xdavinci_isa.cpp).
//   npuvp-xdavinci-gen --header FILE     intrinsics header for AI Core kernels
//   npuvp-xdavinci-gen --markdown [FILE] encoding tables of docs/isa-xdavinci.md
#include "npu/xdavinci_isa.h"

#include <cstring>
#include <fstream>
#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "--header") != 0 && std::strcmp(argv[1], "--markdown") != 0)) {
    std::cerr << "usage: npuvp-xdavinci-gen --header FILE | --markdown [FILE]\n";
    return 2;
  }
  std::string text = std::strcmp(argv[1], "--header") == 0 ? npuvp::xdavinci::intrinsics_header()
                                                           : npuvp::xdavinci::markdown_tables();
  if (argc < 3) {
    std::cout << text;
    return 0;
  }
  // Write only when changed, so dependent firmware does not rebuild needlessly.
  std::ifstream existing(argv[2], std::ios::binary);
  std::string old((std::istreambuf_iterator<char>(existing)), std::istreambuf_iterator<char>());
  if (old == text) return 0;
  std::ofstream out(argv[2], std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "npuvp-xdavinci-gen: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
