#include "supported_ops.h"

#include "host_eval.h"
#include "lowering.h"

namespace npuvp::compiler {

bool compiler_knows_op(const std::string& op) {
  return op == "Constant" || op == "Dropout" || op == "ReduceMean" || has_lowering(op) ||
         can_evaluate_on_host(op);
}

}  // namespace npuvp::compiler
