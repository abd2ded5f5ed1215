"""What a model builder hands to generate.py: the ONNX model, its input, PyTorch's fp32
reference output, and a few facts for the manifest. Two ways in: a torch.nn module exported
by torch.onnx (from_torch), or a graph written node by node with onnx.helper when the
exporter cannot produce the node we want to test (from_onnx), with PyTorch as the reference."""
import io
from dataclasses import dataclass
from typing import Optional

import numpy as np
import onnx
import onnx.numpy_helper
import torch
import torch.nn as nn

DEFAULT_OPSET = 17
INPUT_NAME = "input"
OUTPUT_NAME = "output"


@dataclass
class Built:
    model: onnx.ModelProto
    input: np.ndarray          # float32
    reference: np.ndarray      # float32, PyTorch's output for `input`
    top1: bool                 # a classifier: the arg-max of the output is meaningful
    parameters: int            # trainable parameters (torch) or initializer elements (hand-built)
    max_abs_activation: Optional[float]  # over every module's output on `input` (torch only)

    @staticmethod
    def from_torch(module: nn.Module, example: torch.Tensor, top1: bool, opset: int = DEFAULT_OPSET,
                   keep_autograd: bool = False, dynamic_batch: bool = False) -> "Built":
        """Export `module` (in eval mode) at batch 1. keep_autograd: trace and reference with
        autograd on (see bert_encoder). dynamic_batch: export with a symbolic batch so shape
        arithmetic on it (x.view(x.size(0), -1)) stays in the graph, then pin the batch to 1."""
        module.eval()
        grad_mode = torch.enable_grad() if keep_autograd else torch.no_grad()
        with grad_mode, RecordedOutputs(module) as recorded:
            buffer = io.BytesIO()
            reference = export_returning_output(
                module, example, buffer, opset_version=opset, do_constant_folding=True,
                input_names=[INPUT_NAME], output_names=[OUTPUT_NAME],
                dynamic_axes={INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}} if dynamic_batch else None)
        model = onnx.load_from_string(buffer.getvalue())
        if dynamic_batch:
            pin_batch_to_one(model)
        parameters = sum(p.numel() for p in module.parameters())
        return Built(model, example.numpy().astype(np.float32), reference.detach().numpy().astype(np.float32),
                     top1, parameters, recorded.max_abs())

    @staticmethod
    def from_onnx(nodes, initializers: dict, example: np.ndarray, reference: torch.Tensor,
                  name: str, opset: int = DEFAULT_OPSET) -> "Built":
        """A graph from onnx.helper nodes reading INPUT_NAME and writing OUTPUT_NAME;
        initializers: name -> numpy array."""
        reference = reference.detach().numpy().astype(np.float32)
        graph = onnx.helper.make_graph(
            nodes, name,
            [onnx.helper.make_tensor_value_info(INPUT_NAME, onnx.TensorProto.FLOAT, list(example.shape))],
            [onnx.helper.make_tensor_value_info(OUTPUT_NAME, onnx.TensorProto.FLOAT, list(reference.shape))],
            [onnx.numpy_helper.from_array(np.asarray(value), key) for key, value in initializers.items()])
        model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)],
                                       producer_name="npuvp sw/networks/generate.py")
        model.ir_version = 8  # what onnx 1.12 writes for opset 17
        parameters = sum(int(np.asarray(v).size) for v in initializers.values()
                         if np.asarray(v).dtype == np.float32)
        return Built(model, example.astype(np.float32), reference, False, parameters, None)


def export_returning_output(module: nn.Module, example: torch.Tensor, f, **options) -> torch.Tensor:
    """torch.onnx.export, and the module's output on `example` from the same trace: the
    exporter runs the forward pass anyway, and with Debian's reference BLAS a BERT-base forward
    pass takes seconds. torch.onnx.utils._export (PyTorch 1.13) returns that output; where it
    does not exist, a second forward pass gives it."""
    private_export = getattr(torch.onnx.utils, "_export", None)
    if private_export is not None:
        output = private_export(module, (example,), f, **options)
        if isinstance(output, torch.Tensor):
            return output
    else:
        torch.onnx.export(module, (example,), f, **options)
    return module(example)


class RecordedOutputs:
    """Keeps every submodule's output tensors while active (a forward hook that only stores
    references, so nothing is added to a trace); max_abs() afterwards."""

    def __init__(self, module: nn.Module):
        self.module, self.outputs, self.hooks = module, [], []

    def __enter__(self):
        def record(_module, _inputs, output):
            self.outputs.extend(output if isinstance(output, (tuple, list)) else (output,))

        self.hooks = [m.register_forward_hook(record) for m in self.module.modules()]
        return self

    def __exit__(self, *exc):
        for hook in self.hooks:
            hook.remove()
        return False

    def max_abs(self) -> float:
        values = [float(t.detach().abs().max()) for t in self.outputs
                  if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel()]
        return max(values, default=0.0)


def pin_batch_to_one(model: onnx.ModelProto) -> None:
    for value in list(model.graph.input) + list(model.graph.output):
        first = value.type.tensor_type.shape.dim[0]
        first.ClearField("dim_param")
        first.dim_value = 1
    del model.graph.value_info[:]  # inferred with the symbolic batch; a consumer re-infers
