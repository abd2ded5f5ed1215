"""One tiny model per operator of the supported set (kind "op"), at odd shapes (no dimension a
multiple of 16) so padding to the Cube's 16 and tile edges get exercised. Most are torch.nn
modules exported by torch.onnx, as a user's model would be; a few are written node by node
(Built.from_onnx) because the exporter never emits that form of the node: Conv with
asymmetric pads, AveragePool with count_include_pad=1 (exported as Pad + AveragePool), Pad with
a constant pads tensor (exported through a ConstantOfShape/Slice/Transpose chain) and Identity.
Every model's reference is PyTorch's output.

OPS maps a name to (builder, the op types its graph must contain); generate.py checks them,
so a change in the exporter that loses the node under test fails the generation."""
import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

from built import INPUT_NAME, OUTPUT_NAME, Built


def exported(module: nn.Module, shape, scale: float = 1.0, opset: int = 17, dynamic_batch: bool = False) -> Built:
    return Built.from_torch(module.eval(), torch.randn(shape) * scale, top1=False, opset=opset,
                            dynamic_batch=dynamic_batch)


class Lambda(nn.Module):
    """A module around a function of the input (and of constant tensors it owns)."""

    def __init__(self, function, **constants):
        super().__init__()
        self.function = function
        for key, value in constants.items():
            self.register_buffer(key, value)

    def forward(self, x):
        return self.function(self, x)


def node(op_type, inputs, outputs, name, **attributes):
    return onnx.helper.make_node(op_type, inputs, outputs, name=name, **attributes)


# --- Conv -----------------------------------------------------------------------------------

def build_conv_stride2_asym_pads() -> Built:
    """Conv 3->5, 3x3, stride 2, pads top 0 / left 1 / bottom 2 / right 1."""
    x = torch.randn(1, 3, 17, 19)
    weight, bias = torch.randn(5, 3, 3, 3) * 0.3, torch.randn(5) * 0.1
    pads = [0, 1, 2, 1]  # ONNX order: H begin, W begin, H end, W end
    reference = F.conv2d(F.pad(x, (pads[1], pads[3], pads[0], pads[2])), weight, bias, stride=2)
    nodes = [node("Conv", [INPUT_NAME, "weight", "bias"], [OUTPUT_NAME], "conv_asym",
                  kernel_shape=[3, 3], strides=[2, 2], pads=pads)]
    return Built.from_onnx(nodes, {"weight": weight.numpy(), "bias": bias.numpy()}, x.numpy(), reference,
                           "conv_stride2_asym_pads")


def build_conv_dilation2() -> Built:
    return exported(nn.Conv2d(5, 7, 3, padding=2, dilation=2), (1, 5, 15, 13))


def build_conv_grouped() -> Built:
    return exported(nn.Conv2d(6, 10, 3, padding=1, groups=2), (1, 6, 11, 9))


def build_conv_depthwise_relu6() -> Built:
    """Depthwise 3x3 stride 2 and ReLU6 (exported as Clip(0, 6)); the input is scaled so that
    both clip bounds are hit."""
    return exported(nn.Sequential(nn.Conv2d(7, 7, 3, stride=2, padding=1, groups=7), nn.ReLU6()),
                    (1, 7, 13, 15), scale=8.0)


def build_conv_1x1() -> Built:
    return exported(nn.Conv2d(9, 11, 1), (1, 9, 7, 5))


# --- Gemm, MatMul ---------------------------------------------------------------------------

def build_gemm() -> Built:
    """nn.Linear on a [1, K] input: Gemm with transB=1 and a bias."""
    return exported(nn.Linear(37, 23), (1, 37))


def build_matmul_batched() -> Built:
    """x^T @ W with the same batch: [3,13,7] -> transposed [3,7,13] @ [3,13,11] -> [3,7,11]."""
    return exported(Lambda(lambda m, x: torch.matmul(x.transpose(-1, -2), m.weight),
                           weight=torch.randn(3, 13, 11) * 0.3), (3, 13, 7))


def build_matmul_broadcast() -> Built:
    """The same with batch broadcasting: [2,3,13,7] -> [2,3,7,13] @ [3,13,11] -> [2,3,7,11]."""
    return exported(Lambda(lambda m, x: torch.matmul(x.transpose(-1, -2), m.weight),
                           weight=torch.randn(3, 13, 11) * 0.3), (2, 3, 13, 7))


def build_matmul_activations() -> Built:
    """Both operands from the input, one transposed, as attention's Q K^T: [1,3,9,13] -> [1,3,9,9]."""
    return exported(Lambda(lambda m, x: torch.matmul(x, x.transpose(-1, -2))), (1, 3, 9, 13))


# --- Elementwise with broadcasting -----------------------------------------------------------

def build_add_broadcast() -> Built:
    return exported(Lambda(lambda m, x: x + m.c, c=torch.randn(5, 1, 9)), (1, 5, 7, 9))


def build_sub_broadcast() -> Built:
    """The constant is the first operand: c - x."""
    return exported(Lambda(lambda m, x: m.c - x, c=torch.randn(1, 1, 7, 1)), (1, 5, 7, 9))


def build_mul_broadcast() -> Built:
    return exported(Lambda(lambda m, x: x * m.c, c=torch.randn(9)), (1, 5, 7, 9))


def build_div_broadcast() -> Built:
    """Divisors in +-[0.5, 2], away from zero."""
    divisor = torch.empty(5, 7, 1).uniform_(0.5, 2.0) * (torch.randint(0, 2, (5, 7, 1)) * 2 - 1)
    return exported(Lambda(lambda m, x: x / m.c, c=divisor), (1, 5, 7, 9))


# --- Activations ----------------------------------------------------------------------------

def build_relu() -> Built:
    return exported(nn.ReLU(), (1, 5, 7, 9))


def build_clip() -> Built:
    return exported(Lambda(lambda m, x: torch.clamp(x, -0.5, 1.25)), (1, 5, 7, 9))


def build_sigmoid() -> Built:
    return exported(nn.Sigmoid(), (1, 5, 7, 9), scale=3.0)


def build_tanh() -> Built:
    return exported(nn.Tanh(), (1, 5, 7, 9), scale=2.0)


def build_erf() -> Built:
    return exported(Lambda(lambda m, x: torch.erf(x)), (1, 5, 7, 9), scale=2.0)


def build_gelu() -> Built:
    """nn.GELU exports as x * 0.5 * (1 + erf(x / sqrt 2)): Div, Erf, Add, Mul, Mul."""
    return exported(nn.GELU(), (1, 7, 45), scale=2.0)


def build_softmax() -> Built:
    return exported(nn.Softmax(dim=-1), (1, 3, 7, 37), scale=3.0)


# --- Normalisation --------------------------------------------------------------------------

def layernorm(features: int) -> nn.LayerNorm:
    module = nn.LayerNorm(features)
    with torch.no_grad():
        module.weight.normal_(1.0, 0.2)
        module.bias.normal_(0.0, 0.2)
    return module


def build_layernorm() -> Built:
    """Opset 17: one LayerNormalization node (axis -1) with scale and bias."""
    return exported(layernorm(45), (1, 7, 45), scale=2.0)


def build_layernorm_decomposed() -> Built:
    """The same at opset 13: ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add."""
    return exported(layernorm(45), (1, 7, 45), scale=2.0, opset=13)


def build_batchnorm() -> Built:
    """BatchNormalization on the input (no Conv to fold it into), random statistics."""
    module = nn.BatchNorm2d(7)
    with torch.no_grad():
        module.running_mean.normal_(0.0, 0.5)
        module.running_var.uniform_(0.5, 2.0)
        module.weight.uniform_(0.5, 1.5)
        module.bias.normal_(0.0, 0.2)
    return exported(module, (1, 7, 9, 11))


# --- Pooling --------------------------------------------------------------------------------

def build_maxpool() -> Built:
    return exported(nn.MaxPool2d(3, stride=2, padding=1), (1, 5, 15, 17))


def build_maxpool_ceil_mode() -> Built:
    """ceil_mode=1 as SqueezeNet and GoogLeNet use it: the last window of each row and column
    hangs over the map's end (14 x 18 -> 7 x 9, floor mode would give 6 x 8)."""
    return exported(nn.MaxPool2d(3, stride=2, ceil_mode=True), (1, 5, 14, 18))


def build_avgpool_exclude_pad() -> Built:
    """AveragePool with pads and count_include_pad=0: border windows divide by fewer."""
    return exported(nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (1, 5, 15, 17))


def build_avgpool_include_pad() -> Built:
    """AveragePool with pads and count_include_pad=1 (border windows divide by 9)."""
    x = torch.randn(1, 5, 15, 17)
    reference = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=True)
    nodes = [node("AveragePool", [INPUT_NAME], [OUTPUT_NAME], "avgpool_include_pad",
                  kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1)]
    return Built.from_onnx(nodes, {}, x.numpy(), reference, "avgpool_include_pad")


def build_global_avgpool() -> Built:
    return exported(nn.AdaptiveAvgPool2d(1), (1, 9, 7, 5))


# --- Data movement --------------------------------------------------------------------------

def constant_pad(name: str, value: float) -> Built:
    """Pad H by 1 before and 3 after, W by 2 before and 1 after; pads and the value are
    initializers, as most exporters other than torch's write them."""
    x = torch.randn(1, 5, 7, 9)
    reference = F.pad(x, (2, 1, 1, 3), value=value)
    pads = np.array([0, 0, 1, 2, 0, 0, 3, 1], dtype=np.int64)
    nodes = [node("Pad", [INPUT_NAME, "pads", "value"], [OUTPUT_NAME], name, mode="constant")]
    return Built.from_onnx(nodes, {"pads": pads, "value": np.array(value, dtype=np.float32)},
                           x.numpy(), reference, name)


def build_pad() -> Built:
    return constant_pad("pad_zero", 0.0)


def build_pad_value() -> Built:
    return constant_pad("pad_value", 0.5)


# Flatten and Reshape only relabel memory, so each is followed by an op that reads the new
# shape (a model whose output is its input has nothing to run).

def build_flatten() -> Built:
    """Flatten (axis 1) into a Linear, as a CNN's classifier head: [1,5,3,7] -> [1,105] -> [1,13]."""
    return exported(nn.Sequential(nn.Flatten(1), nn.Linear(105, 13)), (1, 5, 3, 7))


def build_reshape() -> Built:
    """Reshape to a constant shape that merges the last two axes, then Softmax over the merged
    axis: [1,5,3,7] -> [1,5,21]."""
    return exported(Lambda(lambda m, x: torch.softmax(x.reshape(1, 5, 21), dim=-1)), (1, 5, 3, 7), scale=2.0)


def build_reshape_shape_chain() -> Built:
    """x.view(x.size(0), -1) into a Linear, as torch exports it for a symbolic batch: Shape ->
    Gather -> Unsqueeze -> Concat(-1) -> Reshape, here with the batch pinned to 1 so the chain
    is static: [1,5,3,7] -> [1,105] -> [1,13]."""
    return exported(ViewIntoLinear(), (1, 5, 3, 7), dynamic_batch=True)


class ViewIntoLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(105, 13)

    def forward(self, x):
        return self.linear(x.view(x.size(0), -1))


def build_transpose() -> Built:
    return exported(Lambda(lambda m, x: x.permute(0, 2, 3, 1)), (1, 5, 7, 9))


def build_concat() -> Built:
    """Channel concat of odd counts: [x (3), constant (5), x (3)] -> 11 channels."""
    return exported(Lambda(lambda m, x: torch.cat([x, m.c, x], dim=1), c=torch.randn(1, 5, 7, 9)), (1, 3, 7, 9))


def build_identity() -> Built:
    """Identity then Relu (the exporter drops nn.Identity, so written by hand)."""
    x = torch.randn(1, 5, 7, 9)
    nodes = [node("Identity", [INPUT_NAME], ["identity_out"], "identity"),
             node("Relu", ["identity_out"], [OUTPUT_NAME], "relu")]
    return Built.from_onnx(nodes, {}, x.numpy(), torch.relu(x), "identity")


OPS = {
    "op_conv_stride2_asym_pads": (build_conv_stride2_asym_pads, ["Conv"]),
    "op_conv_dilation2": (build_conv_dilation2, ["Conv"]),
    "op_conv_grouped": (build_conv_grouped, ["Conv"]),
    "op_conv_depthwise_relu6": (build_conv_depthwise_relu6, ["Conv", "Clip"]),
    "op_conv_1x1": (build_conv_1x1, ["Conv"]),
    "op_gemm": (build_gemm, ["Gemm"]),
    "op_matmul_batched": (build_matmul_batched, ["Transpose", "MatMul"]),
    "op_matmul_broadcast": (build_matmul_broadcast, ["Transpose", "MatMul"]),
    "op_matmul_activations": (build_matmul_activations, ["Transpose", "MatMul"]),
    "op_add_broadcast": (build_add_broadcast, ["Add"]),
    "op_sub_broadcast": (build_sub_broadcast, ["Sub"]),
    "op_mul_broadcast": (build_mul_broadcast, ["Mul"]),
    "op_div_broadcast": (build_div_broadcast, ["Div"]),
    "op_relu": (build_relu, ["Relu"]),
    "op_clip": (build_clip, ["Clip"]),
    "op_sigmoid": (build_sigmoid, ["Sigmoid"]),
    "op_tanh": (build_tanh, ["Tanh"]),
    "op_erf": (build_erf, ["Erf"]),
    "op_gelu": (build_gelu, ["Div", "Erf", "Add", "Mul"]),
    "op_softmax": (build_softmax, ["Softmax"]),
    "op_layernorm": (build_layernorm, ["LayerNormalization"]),
    "op_layernorm_decomposed": (build_layernorm_decomposed, ["ReduceMean", "Sub", "Pow", "Sqrt", "Div"]),
    "op_batchnorm": (build_batchnorm, ["BatchNormalization"]),
    "op_maxpool": (build_maxpool, ["MaxPool"]),
    "op_maxpool_ceil_mode": (build_maxpool_ceil_mode, ["MaxPool"]),
    "op_avgpool_exclude_pad": (build_avgpool_exclude_pad, ["AveragePool"]),
    "op_avgpool_include_pad": (build_avgpool_include_pad, ["AveragePool"]),
    "op_global_avgpool": (build_global_avgpool, ["GlobalAveragePool"]),
    "op_pad": (build_pad, ["Pad"]),
    "op_pad_value": (build_pad_value, ["Pad"]),
    "op_flatten": (build_flatten, ["Flatten", "Gemm"]),
    "op_reshape": (build_reshape, ["Reshape", "Softmax"]),
    "op_reshape_shape_chain": (build_reshape_shape_chain, ["Shape", "Gather", "Unsqueeze", "Concat", "Reshape", "Gemm"]),
    "op_transpose": (build_transpose, ["Transpose"]),
    "op_concat": (build_concat, ["Concat"]),
    "op_identity": (build_identity, ["Identity", "Relu"]),
}
