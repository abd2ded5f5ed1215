#include "npu/xdavinci_extension.h"

#include "cpu/hart.h"

#include <sstream>

namespace npuvp {

using namespace xdavinci;

std::vector<InstructionSpec> XdavinciExtension::instructions() {
  std::vector<InstructionSpec> specs;
  for (const OpSpec& op : op_specs()) {
    InstructionSpec spec{};
    spec.mnemonic = op.mnemonic;
    spec.mask = encoding_mask(op);
    spec.match = encoding_match(op);
    spec.format = OperandFormat::kCustom;
    spec.cls = InstructionClass::kCustom;
    spec.execute = &XdavinciExtension::execute;
    spec.flags = static_cast<std::uint32_t>(op.op);
    specs.push_back(spec);
  }
  return specs;
}

void XdavinciExtension::execute(Hart& hart, const DecodedInstruction& instruction) {
  auto& self = *static_cast<XdavinciExtension*>(instruction.spec->owner);
  const Op op = static_cast<Op>(instruction.spec->flags);
  const std::uint32_t raw = instruction.raw;
  std::uint64_t registers[4] = {0, 0, 0, 0};
  switch (spec_of(op).form) {
    case Form::kData:
      registers[0] = hart.x[(raw >> 7) & 31];
      registers[1] = hart.x[(raw >> 15) & 31];
      registers[2] = hart.x[(raw >> 20) & 31];
      registers[3] = hart.x[(raw >> 27) & 31];
      break;
    case Form::kSpecial:
      registers[1] = hart.x[(raw >> 15) & 31];
      registers[2] = hart.x[(raw >> 20) & 31];
      break;
    case Form::kSync:
      registers[3] = raw >> 20;  // imm[11:0], unsigned
      break;
  }
  // pc moves on first: a backend that stops the core at this instruction
  // resumes after it.
  hart.pc += instruction.length;
  self.backend_.issue(hart, op, registers);
}

bool XdavinciExtension::read_csr(Hart&, std::uint16_t csr, std::uint64_t& value) {
  return backend_.read_special(csr, value);
}

bool XdavinciExtension::write_csr(Hart&, std::uint16_t, std::uint64_t) {
  // Special registers are read-only (their numbers are in the read-only
  // custom CSR range): a write is an illegal instruction.
  return false;
}

std::string XdavinciExtension::disassemble_operands(const DecodedInstruction& instruction) const {
  const Op op = static_cast<Op>(instruction.spec->flags);
  const std::uint32_t raw = instruction.raw;
  std::ostringstream text;
  switch (spec_of(op).form) {
    case Form::kData:
      text << register_name((raw >> 7) & 31) << ", " << register_name((raw >> 15) & 31) << ", "
           << register_name((raw >> 20) & 31) << ", " << register_name((raw >> 27) & 31);
      break;
    case Form::kSpecial:
      text << register_name((raw >> 15) & 31) << ", " << register_name((raw >> 20) & 31);
      break;
    case Form::kSync: {
      std::uint64_t imm = raw >> 20;
      auto pipe = [](std::uint64_t p) { return std::string(pipe_name(static_cast<Pipe>(p))); };
      if (op == Op::kSetFlag || op == Op::kWaitFlag)
        text << pipe(sync::src_pipe.get(imm)) << ", " << pipe(sync::dst_pipe.get(imm)) << ", EVENT_ID"
             << sync::event.get(imm);
      else if (op == Op::kPipeBarrier)
        text << pipe(sync::src_pipe.get(imm));
      break;
    }
  }
  return text.str();
}

}  // namespace npuvp
