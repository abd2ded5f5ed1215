// Writes the model package (sw/include/npuvp/model_package.h) of a planned Program.
#pragma once

#include <cstdint>
#include <vector>

#include "program.h"

namespace npuvp::compiler {

std::vector<std::uint8_t> write_package(const Program& program);

}  // namespace npuvp::compiler
