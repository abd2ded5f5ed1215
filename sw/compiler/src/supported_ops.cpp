#include "supported_ops.h"

#include "host_eval.h"
#include "lowering.h"

namespace npuvp::compiler {

bool compiler_knows_op(const std::string& op) {
  // HardSigmoid, HardSwish, LeakyRelu, PRelu: decompose_activations rewrites them; CastLike:
  // casts_like_as_casts.
  return op == "Constant" || op == "Dropout" || op == "ReduceMean" || op == "HardSigmoid" || op == "HardSwish" ||
         op == "CastLike" ||
         op == "LeakyRelu" || op == "PRelu" || has_lowering(op) || can_evaluate_on_host(op);
}

}  // namespace npuvp::compiler
