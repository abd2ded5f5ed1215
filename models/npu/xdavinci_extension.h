// XdavinciExtension: plugs the Xdavinci instructions (xdavinci_isa.h) and the
// AI Core's special registers into a scalar unit's hart. It decodes operands
// and hands each instruction to its backend (the AiCore's issue logic); it
// holds no pipeline state itself.
#pragma once

#include "cpu/extension.h"
#include "npu/xdavinci_isa.h"

namespace npuvp {

class XdavinciBackend {
 public:
  virtual ~XdavinciBackend() = default;
  // `registers` are the values of [Xd], [Xn], Xm, Xt (kData), of rs1/rs2
  // (kSpecial, in [1] and [2]) or the immediate (kSync, in [3]).
  virtual void issue(Hart& hart, xdavinci::Op op, const std::uint64_t registers[4]) = 0;
  virtual bool read_special(std::uint16_t csr, std::uint64_t& value) = 0;
};

class XdavinciExtension : public IsaExtension {
 public:
  explicit XdavinciExtension(XdavinciBackend& backend) : backend_(backend) {}
  std::string name() const override { return "Xdavinci"; }
  std::vector<InstructionSpec> instructions() override;
  bool read_csr(Hart& hart, std::uint16_t csr, std::uint64_t& value) override;
  bool write_csr(Hart& hart, std::uint16_t csr, std::uint64_t value) override;
  std::string disassemble_operands(const DecodedInstruction& instruction) const override;

 private:
  static void execute(Hart& hart, const DecodedInstruction& instruction);
  XdavinciBackend& backend_;
};

}  // namespace npuvp
