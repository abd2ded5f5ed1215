#!/usr/bin/python3
"""Fits the erfc polynomial of sw/kernels/vector_math.h and measures the
errors docs/kernels.md quotes.

erfc(z) = Q(t) * exp(-z^2), t = 1 / (1 + z / 2), z >= 0, with Q of degree 7
fitted to erfcx(z) = exp(z^2) erfc(z) on [0, 12] for minimax relative error
(weighted least squares, Lawson reweighting). Prints the coefficient tables
(f32 bits) for erf (-erfc(|x|)) and GELU (-erfc(|x| / sqrt 2) / 2), then the
maximum errors of the kernels' exact f32 operation sequences (numpy float32,
exp rounded from double like the Vector unit's vexp).

Run with Debian's Python (numpy, scipy): /usr/bin/python3 sw/kernels/tools/fit_erfc.py
"""
import math
import struct

import numpy as np
from scipy.special import erf, erfc, erfcx

F = np.float32
DEGREE, P = 7, 0.5


def fit(p=P, degree=DEGREE, zmax=12.0, iterations=60):
    z = np.concatenate([np.linspace(0, 4, 20000), np.linspace(4, zmax, 20000)])
    t = 1 / (1 + p * z)
    y = erfcx(z)
    v = np.vander(t, degree + 1, increasing=True)
    weights = np.ones_like(z)
    for _ in range(iterations):
        scale = np.sqrt(weights) / y
        c, *_ = np.linalg.lstsq(v * scale[:, None], y * scale, rcond=None)
        r = np.abs(v @ c - y) / y
        weights = weights * r
        weights /= weights.sum()
    return c, np.max(np.abs(v @ c - y) / y)


def bits(value):
    return "0x%08xu" % struct.unpack("<I", struct.pack("<f", F(value)))[0]


def table(c, s, k):
    """Coefficients of k * erfc(s |x|) in t' = 1 / (2 / s + |x|)."""
    a = 2 / s
    return a, np.array([k * c[i] * a**i for i in range(len(c))], dtype=F)


def exp32(x):
    return np.exp(x.astype(np.float64)).astype(F)


def scaled_erfc32(x, c, s, k):
    a, d = table(c, s, k)
    ax = np.abs(x).astype(F)
    t = (F(1) / (ax + F(a))).astype(F)
    q = (t * d[-1] + d[-2]).astype(F)
    for i in range(len(d) - 3, -1, -1):
        q = (q * t + d[i]).astype(F)
    return (q * exp32((x * x).astype(F) * F(-s * s))).astype(F), ax


def main():
    c, exact = fit()
    print("erfcx fit: max relative error %.3g in exact arithmetic" % exact)
    for name, s, k in (("ERFC_FOR_ERF", 1.0, -1.0), ("ERFC_FOR_GELU", 1 / math.sqrt(2), -0.5)):
        a, d = table(c, s, k)
        print("%s: offset %s, -s^2 %s, q {%s}" % (name, bits(a), bits(-s * s), ", ".join(bits(v) for v in d)))
    taylor = np.array([2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(7)],
                      dtype=F)
    print("ERF_TAYLOR {%s}" % ", ".join(bits(v) for v in taylor))

    x = np.linspace(-10, 10, 2000001).astype(F)
    x = np.concatenate([x, F(10) ** np.linspace(-8, 1, 200000).astype(F)])
    x = np.concatenate([x, -x])
    z = np.abs(x)[np.abs(x) < 9]
    got, _ = scaled_erfc32(z, c, 1.0, 1.0)
    ref = erfc(z.astype(np.float64))
    print("erfc: max relative error %.3g (f32, z < 9)" % np.max(np.abs(got - ref) / ref))

    minus_erfc, _ = scaled_erfc32(x, c, 1.0, -1.0)
    big = np.copysign((minus_erfc + F(1)).astype(F), x)
    sq = (x * x).astype(F)
    q = (sq * taylor[6] + taylor[5]).astype(F)
    for i in range(4, -1, -1):
        q = (q * sq + taylor[i]).astype(F)
    small = (q * x).astype(F)
    got = np.where(np.abs(x) < 0.5, small, big).astype(np.float64)
    ref = erf(x.astype(np.float64))
    print("erf: max absolute error %.3g, relative %.3g (f32)" %
          (np.max(np.abs(got - ref)), np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-38))))

    half_erfc, ax = scaled_erfc32(x, c, 1 / math.sqrt(2), -0.5)
    got = (np.maximum(x, F(0)) + (ax * half_erfc).astype(F)).astype(np.float64)
    ref = x.astype(np.float64) * 0.5 * (1 + erf(x.astype(np.float64) / math.sqrt(2)))
    seen = np.abs(ref) > 2.0**-24
    print("gelu: max relative error %.3g where |gelu| > 2^-24 (f32)" %
          np.max(np.abs(got - ref)[seen] / np.abs(ref[seen])))


if __name__ == "__main__":
    main()
