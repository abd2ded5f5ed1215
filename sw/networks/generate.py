#!/usr/bin/python3
"""Writes the ONNX models npuvp ships, without downloads, into one folder:

    NAME.onnx, NAME.input.npy (seeded random float32 input), NAME.reference.npy (PyTorch fp32
    output) for every network (networks.py) and per-operator model (op_models.py),
    the bad fixtures (bad_unsupported_op.onnx, bad_truncated.onnx, lenet5.bad_shape.npy,
    lenet5.bad_dtype.npy), and manifest.json describing all of them (docs/networks.md).

Run with Debian's interpreter, which sees python3-torch/-torchvision/-onnx:
    /usr/bin/python3 sw/networks/generate.py --out build/networks [--force]

Every model is seeded from its name, so the output is the same on every run. A model whose
builder (and everything it refers to in its module), this script, built.py and the library
versions are unchanged since the last run is not exported again (--force exports all).
Exit status: 0 on success, 1 when a model fails a check (the message names it)."""
import argparse
import hashlib
import inspect
import json
import os
import sys
import time
import warnings
import zlib

import numpy as np
import onnx
import torch
import torchvision

sys.dont_write_bytecode = True  # no __pycache__ beside the sources, however the script is run
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from built import INPUT_NAME, OUTPUT_NAME, Built  # noqa: E402
from networks import NETWORKS  # noqa: E402
from op_models import OPS  # noqa: E402

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
# Largest |activation| a network may reach on its input: fp16 overflows at 65504, and the
# compiler's folded weights and sums need headroom, so stay 64x below it.
FP16_SAFE_ACTIVATION = 1024.0


class GenerationError(Exception):
    pass


def seed_of(name: str) -> int:
    return zlib.crc32(name.encode())


def source_closure(function) -> str:
    """The source of `function` and, transitively, of every function, class and simple
    constant of its own module that it names: a change to any of them changes the model."""
    module = sys.modules[function.__module__]
    parts, seen, pending = [], set(), [function]
    while pending:
        obj = pending.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        parts.append(inspect.getsource(obj))
        functions = [obj] if inspect.isfunction(obj) else [f for f in vars(obj).values() if inspect.isfunction(f)]
        names = set()
        for each in functions:
            names |= code_names(each.__code__)
        for name in sorted(names):
            value = vars(module).get(name)
            if (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == module.__name__:
                pending.append(value)
            elif isinstance(value, (int, float, str, tuple)):
                parts.append(f"{name} = {value!r}")
    return "\n".join(parts)


def code_names(code) -> set:
    names = set(code.co_names)
    for constant in code.co_consts:
        if inspect.iscode(constant):
            names |= code_names(constant)
    return names


def fingerprint(builder) -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for shared in ("generate.py", "built.py"):
        with open(os.path.join(here, shared), "rb") as f:
            digest.update(f.read())
    digest.update(f"torch {torch.__version__} torchvision {torchvision.__version__} onnx {onnx.__version__} "
                  f"numpy {np.__version__}".encode())
    digest.update(source_closure(builder).encode())
    return digest.hexdigest()


def tensor_shape(value_info) -> list:
    return [d.dim_value if d.HasField("dim_value") else None for d in value_info.type.tensor_type.shape.dim]


def graph_shapes(name: str, model: onnx.ModelProto) -> dict:
    """Every value's shape after ONNX shape inference (initializers included). Strict: a graph
    whose declared output shape contradicts its nodes (a hand-written one) fails here."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    except onnx.shape_inference.InferenceError as error:
        raise GenerationError(f"{name}: ONNX shape inference: {error}") from error
    graph = inferred.graph
    shapes = {i.name: list(i.dims) for i in graph.initializer}
    for value in list(graph.input) + list(graph.value_info) + list(graph.output):
        shapes[value.name] = tensor_shape(value)
    return shapes


def multiply_accumulates(name: str, model: onnx.ModelProto, shapes: dict) -> int:
    """MACs of Conv, Gemm and MatMul (the Cube's work); elementwise ops are not counted."""
    total = 0
    for n in model.graph.node:
        if n.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        output = shapes.get(n.output[0])
        if not output or None in output:
            raise GenerationError(f"{name}: node {n.name} ({n.op_type}): output shape not inferred")
        if n.op_type == "Conv":
            per_output = int(np.prod(shapes[n.input[1]][1:]))
        elif n.op_type == "Gemm":
            trans_a = next((a.i for a in n.attribute if a.name == "transA"), 0)
            per_output = shapes[n.input[0]][0 if trans_a else 1]
        else:
            per_output = shapes[n.input[0]][-1]
        total += int(np.prod(output)) * int(per_output)
    return total


def check_built(name: str, built: Built, expected_ops) -> None:
    graph = built.model.graph
    initializers = {i.name for i in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    if [i.name for i in inputs] != [INPUT_NAME] or [o.name for o in graph.output] != [OUTPUT_NAME]:
        raise GenerationError(f"{name}: graph inputs/outputs are not exactly '{INPUT_NAME}' -> '{OUTPUT_NAME}'")
    if tensor_shape(inputs[0]) != list(built.input.shape):
        raise GenerationError(f"{name}: graph input shape {tensor_shape(inputs[0])} != {list(built.input.shape)}")
    output_shape = tensor_shape(graph.output[0])
    if output_shape != list(built.reference.shape):
        raise GenerationError(f"{name}: graph output shape {output_shape} != reference {list(built.reference.shape)}")
    op_types = {n.op_type for n in graph.node}
    missing = [op for op in expected_ops if op not in op_types]
    if missing:
        raise GenerationError(f"{name}: the exported graph lacks {missing} (has {sorted(op_types)})")
    if not np.all(np.isfinite(built.reference)) or not np.any(built.reference):
        raise GenerationError(f"{name}: the reference output is not finite or is all zero")
    if built.max_abs_activation is not None and built.max_abs_activation > FP16_SAFE_ACTIVATION:
        raise GenerationError(f"{name}: max |activation| {built.max_abs_activation:.1f} exceeds "
                              f"{FP16_SAFE_ACTIVATION} (fp16 max 65504)")
    try:
        onnx.checker.check_model(built.model)
    except onnx.checker.ValidationError as error:
        raise GenerationError(f"{name}: onnx.checker: {str(error).splitlines()[0]}") from error


def save_npy(path: str, array: np.ndarray) -> None:
    temporary = path + ".tmp.npy"
    np.save(temporary, np.ascontiguousarray(array))
    os.replace(temporary, path)


def save_bytes(path: str, data: bytes) -> None:
    temporary = path + ".tmp"
    with open(temporary, "wb") as f:
        f.write(data)
    os.replace(temporary, path)


def export_model(out: str, name: str, kind: str, builder, expected_ops, digest: str) -> dict:
    started, cpu_started = time.monotonic(), time.process_time()
    seed = seed_of(name)
    torch.manual_seed(seed)
    np.random.seed(seed)
    built = builder()
    check_built(name, built, expected_ops)
    shapes = graph_shapes(name, built.model)
    macs = multiply_accumulates(name, built.model, shapes)
    files = {"onnx": f"{name}.onnx", "input_npy": f"{name}.input.npy", "reference_npy": f"{name}.reference.npy"}
    serialized = built.model.SerializeToString()
    save_bytes(os.path.join(out, files["onnx"]), serialized)
    save_npy(os.path.join(out, files["input_npy"]), built.input.astype(np.float32))
    save_npy(os.path.join(out, files["reference_npy"]), built.reference.astype(np.float32))
    entry = {
        "name": name, "kind": kind, **files,
        "input_name": INPUT_NAME, "input_shape": list(built.input.shape),
        "output_name": OUTPUT_NAME, "output_shape": list(built.reference.shape),
        "top1": built.top1,
        "opset": next(o.version for o in built.model.opset_import if o.domain in ("", "ai.onnx")),
        "seed": seed,
        "parameters": int(built.parameters),
        "macs": macs,
        "nodes": len(built.model.graph.node),
        "op_types": sorted({n.op_type for n in built.model.graph.node}),
        "max_abs_activation": built.max_abs_activation,
        "reference_max_abs": float(np.abs(built.reference).max()),
        "onnx_bytes": len(serialized),
        "fingerprint": digest,
    }
    if built.top1:  # per image of the batch (a row of the last axis); the least decisive one
        rows = built.reference.reshape(-1, built.reference.shape[-1])
        logits = np.sort(rows, axis=1)
        margins = logits[:, -1] - logits[:, -2]
        least = int(np.argmin(margins / rows.std(axis=1)))
        entry["top1_margin"] = float(margins[least])
        entry["top1_margin_in_std"] = float(margins[least] / rows[least].std())
    entry["seconds"] = round(time.monotonic() - started, 2)
    entry["cpu_seconds"] = round(time.process_time() - cpu_started, 2)
    return entry


def reusable(out: str, old: dict, digest: str) -> bool:
    if not old or old.get("fingerprint") != digest:
        return False
    return all(os.path.isfile(os.path.join(out, old[key])) for key in ("onnx", "input_npy", "reference_npy"))


def write_bad_fixtures(out: str) -> list:
    """Inputs every front end must reject with a one-line error and a non-zero exit."""
    rng = np.random.default_rng(seed_of("bad_fixtures"))
    unsupported_input = rng.standard_normal((1, 3, 5, 7)).astype(np.float32)
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", [INPUT_NAME], ["relu_out"], name="relu"),
         onnx.helper.make_node("Cos", ["relu_out"], [OUTPUT_NAME], name="cos_unsupported")],
        "bad_unsupported_op",
        [onnx.helper.make_tensor_value_info(INPUT_NAME, onnx.TensorProto.FLOAT, [1, 3, 5, 7])],
        [onnx.helper.make_tensor_value_info(OUTPUT_NAME, onnx.TensorProto.FLOAT, [1, 3, 5, 7])])
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    save_bytes(os.path.join(out, "bad_unsupported_op.onnx"), model.SerializeToString())
    save_npy(os.path.join(out, "bad_unsupported_op.input.npy"), unsupported_input)

    with open(os.path.join(out, "lenet5.onnx"), "rb") as f:
        lenet5 = f.read()
    save_bytes(os.path.join(out, "bad_truncated.onnx"), lenet5[: len(lenet5) // 2])
    save_npy(os.path.join(out, "lenet5.bad_shape.npy"), rng.standard_normal((1, 1, 28, 28)).astype(np.float32))
    save_npy(os.path.join(out, "lenet5.bad_dtype.npy"), rng.integers(-3, 4, (1, 1, 32, 32), dtype=np.int64))
    return [
        {"name": "bad_unsupported_op", "onnx": "bad_unsupported_op.onnx", "input_npy": "bad_unsupported_op.input.npy",
         "problem": "unsupported_op", "node": "cos_unsupported", "op_type": "Cos",
         "description": "a valid opset-17 model whose node 'cos_unsupported' is a Cos, outside the op set"},
        {"name": "bad_truncated", "onnx": "bad_truncated.onnx", "input_npy": "lenet5.input.npy",
         "problem": "malformed_onnx", "description": "lenet5.onnx cut to its first half"},
        {"name": "lenet5.bad_shape", "onnx": "lenet5.onnx", "input_npy": "lenet5.bad_shape.npy",
         "problem": "input_shape", "description": "float32 [1, 1, 28, 28] where lenet5 takes [1, 1, 32, 32]"},
        {"name": "lenet5.bad_dtype", "onnx": "lenet5.onnx", "input_npy": "lenet5.bad_dtype.npy",
         "problem": "input_dtype", "description": "int64 [1, 1, 32, 32] where lenet5 takes float32"},
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="output folder (created)")
    parser.add_argument("--force", action="store_true", help="export every model, even unchanged ones")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=UserWarning)  # the exporter's notes on constant folding
    os.makedirs(args.out, exist_ok=True)

    manifest_path = os.path.join(args.out, MANIFEST)
    previous = {}
    if os.path.isfile(manifest_path) and not args.force:
        with open(manifest_path) as f:
            try:
                previous = {m["name"]: m for m in json.load(f).get("models", [])}
            except (json.JSONDecodeError, KeyError, TypeError):
                previous = {}

    started, cpu_started = time.monotonic(), time.process_time()
    todo = [(name, "network", builder, []) for name, builder in NETWORKS.items()]
    todo += [(name, "op", builder, expected) for name, (builder, expected) in OPS.items()]
    entries = []
    for name, kind, builder, expected in todo:
        digest = fingerprint(builder)
        if reusable(args.out, previous.get(name), digest):
            entries.append(previous[name])
            print(f"  {name:28s} unchanged", flush=True)
            continue
        try:
            entry = export_model(args.out, name, kind, builder, expected, digest)
        except GenerationError as error:
            print(f"generate.py: {error}", file=sys.stderr)
            return 1
        except Exception as error:  # a builder or the exporter failed: name the model, keep the trace
            print(f"generate.py: {name}: {type(error).__name__}: {error}", file=sys.stderr)
            raise
        entries.append(entry)
        activation = (f", max |activation| {entry['max_abs_activation']:.2f}"
                      if entry["max_abs_activation"] is not None and kind == "network" else "")
        print(f"  {name:28s} {entry['seconds']:6.2f} s ({entry['cpu_seconds']:6.2f} s CPU) "
              f"{entry['onnx_bytes'] / 1e6:8.2f} MB{activation}", flush=True)

    manifest = {
        "version": MANIFEST_VERSION,
        "generator": "sw/networks/generate.py",
        "versions": {"torch": torch.__version__, "torchvision": torchvision.__version__, "onnx": onnx.__version__},
        "models": entries,
        "bad_fixtures": write_bad_fixtures(args.out),
    }
    temporary = manifest_path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    os.replace(temporary, manifest_path)
    print(f"generate.py: {len(entries)} models in {args.out} ({time.monotonic() - started:.1f} s, "
          f"{time.process_time() - cpu_started:.1f} s CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
