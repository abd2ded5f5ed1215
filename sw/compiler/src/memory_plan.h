// Device-memory planning: activation buffers placed in one arena by their
// lifetimes, reusing space whose buffer is dead; buffers of launches that may
// run at the same time on different streams never share; the model input and
// output in the io area.
#pragma once

#include "program.h"

namespace npuvp::compiler {

// Sets every arena buffer's offset, program.arena_bytes and
// program.activation_bytes_total (the sum without reuse).
void plan_memory(Program& program);

}  // namespace npuvp::compiler
