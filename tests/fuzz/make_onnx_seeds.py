#!/usr/bin/env python3
"""Writes the seed corpus of onnx_importer_fuzz (corpus/onnx_importer): tiny ONNX models,
one per kind of layer the compiler lowers (convolution, GEMM, element-wise, pooling,
softmax, layer normalisation, reshape), a few hundred bytes each so libFuzzer mutates
them quickly. Run with Debian's /usr/bin/python3 (python3-onnx, python3-numpy); the
output is committed, so the fuzz build does not need Python."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "onnx_importer")


def weights(name, shape, seed):
    values = np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)
    return numpy_helper.from_array(values, name)


def model(name, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    built.ir_version = 8
    onnx.checker.check_model(built)
    with open(os.path.join(OUT, name + ".onnx"), "wb") as out:
        out.write(built.SerializeToString())


def tensor(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def main():
    os.makedirs(OUT, exist_ok=True)
    model("conv_relu", [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                        helper.make_node("Relu", ["c"], ["y"])],
          [tensor("x", [1, 4, 6, 6])], [tensor("y", [1, 4, 6, 6])],
          [weights("w", [4, 4, 3, 3], 1), weights("b", [4], 2)])
    model("gemm", [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)],
          [tensor("x", [2, 16])], [tensor("y", [2, 8])], [weights("w", [8, 16], 3), weights("b", [8], 4)])
    model("matmul_add", [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"])],
          [tensor("x", [4, 16])], [tensor("y", [4, 16])], [weights("w", [16, 16], 5), weights("b", [16], 6)])
    model("pool_flatten", [helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                           helper.make_node("GlobalAveragePool", ["p"], ["g"]),
                           helper.make_node("Flatten", ["g"], ["y"])],
          [tensor("x", [1, 8, 4, 4])], [tensor("y", [1, 8])])
    model("softmax", [helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [tensor("x", [2, 16])], [tensor("y", [2, 16])])
    model("layernorm", [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
          [tensor("x", [4, 16])], [tensor("y", [4, 16])], [weights("g", [16], 7), weights("b", [16], 8)])
    model("transpose_reshape", [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
                                helper.make_node("Reshape", ["t", "shape"], ["y"])],
          [tensor("x", [4, 8])], [tensor("y", [2, 16])],
          [numpy_helper.from_array(np.array([2, 16], dtype=np.int64), "shape")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
