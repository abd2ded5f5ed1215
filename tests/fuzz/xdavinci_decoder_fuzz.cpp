// Fuzz target: the Xdavinci decoder (models/npu/xdavinci_extension.*, xdavinci_isa.*): a
// scalar unit's decoder with the extension, on 32-bit words whose opcode is forced to one
// of Xdavinci's three custom opcodes (so nearly every input reaches the extension's
// patterns and operand formatting). Properties: a decoded instruction matches its spec's
// (mask, match) and its text names an Xdavinci mnemonic; decoding never issues anything.
// Seeds: corpus/xdavinci_decoder (kernel code).
#include "cpu/decoder.h"
#include "cpu/disassembler.h"
#include "fuzz_support.h"
#include "npu/xdavinci_extension.h"

#include <cstring>

namespace {

// Decoding and disassembly must never reach the backend: that would execute.
class NoIssueBackend : public npuvp::XdavinciBackend {
 public:
  void issue(npuvp::Hart&, npuvp::xdavinci::Op, const std::uint64_t[4]) override {
    npuvp::fuzz::property_failed("decoding issued an Xdavinci instruction");
  }
  bool read_special(std::uint16_t, std::uint64_t&) override {
    npuvp::fuzz::property_failed("decoding read a special register");
  }
};

struct XdavinciDecoder {
  NoIssueBackend backend;
  npuvp::XdavinciExtension extension{backend};
  npuvp::Decoder decoder;
  XdavinciDecoder() { decoder.add(extension, extension.instructions()); }
};

constexpr std::uint8_t kOpcodes[] = {npuvp::xdavinci::kOpcodeData, npuvp::xdavinci::kOpcodeVector,
                                     npuvp::xdavinci::kOpcodeSync};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static XdavinciDecoder xdavinci;
  static const npuvp::Disassembler objdump(xdavinci.decoder, npuvp::DisassemblyStyle::kObjdump);
  static const npuvp::Disassembler message(xdavinci.decoder, npuvp::DisassemblyStyle::kMessage);
  for (std::size_t offset = 0; offset + 4 <= size; offset += 4) {
    std::uint32_t raw;
    std::memcpy(&raw, data + offset, 4);
    // The input's opcode field only chooses which of the three custom opcodes the word gets.
    raw = (raw & ~0x7fu) | kOpcodes[(raw & 0x7f) % 3];
    npuvp::DecodedInstruction instruction{};
    if (xdavinci.decoder.decode(raw, instruction)) {
      if (!instruction.spec) npuvp::fuzz::property_failed("a legal instruction without a spec");
      if ((raw & instruction.spec->mask) != instruction.spec->match)
        npuvp::fuzz::property_failed("decoded instruction does not match its spec's encoding");
      if (objdump.text(raw, 0x1000).rfind("xd.", 0) != 0)
        npuvp::fuzz::property_failed("an Xdavinci instruction not shown with its xd. mnemonic");
    } else {
      objdump.text(raw, 0x1000);
    }
    message.text(raw, 0x1000);
  }
  return 0;
}
