#!/usr/bin/python3
"""Times native PyTorch CPU inference of a network we ship: the baseline of `make bench`'s
wall-time ratio (tests/bench/network_bench.cpp, docs/networks.md#performance).

    /usr/bin/python3 sw/networks/time_native.py NAME --input NAME.input.npy
        [--reference NAME.reference.npy] [--repeat N] [--warmup W]

The torch module is rebuilt exactly as generate.py builds it: the same builder of networks.py,
under the same seed. Only the last step differs: Built.from_torch, which would export ONNX,
is replaced for the call by one that hands back the module and its example input. The
forward pass runs on the model's own .input.npy under torch.no_grad() in eval mode (W
warm-up passes, then the median of N), and its output is compared with the .reference.npy
generate.py wrote, so a baseline of a different model cannot slip through.

Prints one line:  time_native: NAME median_seconds=... min_seconds=... repeat=N threads=T cosine=...
Exit status: 0 done, 1 unknown network or the rebuilt model disagrees with the reference
(cosine < 0.9999), 2 usage error."""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import built  # noqa: E402
from generate import seed_of  # noqa: E402
from networks import NETWORKS  # noqa: E402

# The rebuilt model must reproduce generate.py's fp32 reference (same weights, same input);
# only the order of floating-point sums may differ (e.g. the encoder's fused fast path).
REBUILD_COSINE_MIN = 0.9999


class Captured(Exception):
    """Raised by the stand-in for Built.from_torch to carry the module out of the builder."""

    def __init__(self, module, example):
        super().__init__("captured")
        self.module, self.example = module, example


def rebuilt_module(name: str) -> torch.nn.Module:
    """The builder of `name` run under generate.py's seeds, stopped where it would export."""
    builder = NETWORKS[name]
    original = built.Built.from_torch

    def capture(module, example, *args, **kwargs):
        raise Captured(module, example)

    built.Built.from_torch = staticmethod(capture)
    try:
        seed = seed_of(name)
        torch.manual_seed(seed)
        np.random.seed(seed)
        builder()
    except Captured as captured:
        return captured.module.eval()
    finally:
        built.Built.from_torch = original
    raise RuntimeError(f"{name}: the builder did not call Built.from_torch")


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a network of sw/networks/networks.py: " + ", ".join(NETWORKS))
    parser.add_argument("--input", required=True, help="the model's input .npy (generate.py's NAME.input.npy)")
    parser.add_argument("--reference", help="generate.py's NAME.reference.npy: the output must match it")
    parser.add_argument("--repeat", type=int, default=5, help="timed forward passes (the median is reported)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed forward passes first")
    args = parser.parse_args()
    if args.name not in NETWORKS:
        print(f"time_native.py: unknown network '{args.name}' (known: {', '.join(NETWORKS)})", file=sys.stderr)
        return 1
    if args.repeat < 1 or args.warmup < 0:
        print("time_native.py: --repeat must be >= 1 and --warmup >= 0", file=sys.stderr)
        return 2

    module = rebuilt_module(args.name)
    example = torch.from_numpy(np.load(args.input).astype(np.float32))
    times = []
    with torch.no_grad():
        for _ in range(args.warmup):
            output = module(example)
        for _ in range(args.repeat):
            started = time.perf_counter()
            output = module(example)
            times.append(time.perf_counter() - started)

    agreement = ""
    if args.reference:
        similarity = cosine(output.numpy(), np.load(args.reference))
        if not similarity >= REBUILD_COSINE_MIN:
            print(f"time_native.py: {args.name}: the rebuilt model's output differs from {args.reference} "
                  f"(cosine {similarity:.6f} < {REBUILD_COSINE_MIN})", file=sys.stderr)
            return 1
        agreement = f" cosine={similarity:.6f}"
    print(f"time_native: {args.name} median_seconds={statistics.median(times):.6f} min_seconds={min(times):.6f} "
          f"repeat={args.repeat} threads={torch.get_num_threads()}{agreement}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
