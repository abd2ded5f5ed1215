// Fuzz target: the RV64 decoder and disassembler (models/cpu/decoder.*, disassembler.*)
// as --itrace, gdb and error messages use them, on a stream of instruction words: the
// input is cut like a fetch would (16 bits for a compressed instruction, else 32), each
// decoded, then shown in both styles. Properties: an instruction the decoder accepts has
// a spec, its length matches its encoding, and its text is not empty; an encoding it
// rejects is shown as .word/.short. Seeds: corpus/rv64_decoder (firmware code).
#include "cpu/decoder.h"
#include "cpu/disassembler.h"
#include "fuzz_support.h"

#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const npuvp::Decoder decoder;
  static const npuvp::Disassembler objdump(decoder, npuvp::DisassemblyStyle::kObjdump);
  static const npuvp::Disassembler message(decoder, npuvp::DisassemblyStyle::kMessage);
  std::uint64_t pc = 0x8000'0000;
  std::size_t offset = 0;
  while (offset + 2 <= size) {
    std::uint32_t raw = 0;
    std::memcpy(&raw, data + offset, 2);
    const bool compressed = npuvp::Decoder::is_compressed(raw);
    if (!compressed) {
      if (offset + 4 > size) break;
      std::memcpy(&raw, data + offset, 4);
    }
    npuvp::DecodedInstruction instruction{};
    const bool legal = decoder.decode(raw, instruction);
    if (legal && !instruction.spec) npuvp::fuzz::property_failed("a legal instruction without a spec");
    if (legal && instruction.length != (compressed ? 2 : 4))
      npuvp::fuzz::property_failed("decoded length differs from the encoding's");
    const std::string text = objdump.text(raw, pc);
    if (text.empty()) npuvp::fuzz::property_failed("empty objdump-style text");
    if (!legal && text.rfind(compressed ? ".short" : ".word", 0) != 0)
      npuvp::fuzz::property_failed("an illegal encoding not shown as .short/.word");
    message.text(raw, pc);
    decoder.mnemonic(raw);
    decoder.disassemble(raw, pc);
    if (compressed) decoder.compressed_form(static_cast<std::uint16_t>(raw));
    offset += compressed ? 2 : 4;
    pc += compressed ? 2 : 4;
  }
  return 0;
}
