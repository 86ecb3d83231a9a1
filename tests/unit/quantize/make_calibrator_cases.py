#!/usr/bin/python3
"""Writes calibrator_cases.json: value sets and what the percentile and
entropy calibrators must make of them, computed here with numpy from the
definitions in compiler/quantize/Calibrators.h (an oracle independent of
kiln's code). The sets are small, seeded and stored in the file.

usage: make_calibrator_cases.py   (needs numpy; Debian's python3-numpy)
"""
import json
import os

import numpy as np

BINS, QUANTIZED_BINS, EPS = 2048, 128, 1e-4
PERCENTILES = [99.99, 99.0, 90.0]


def histogram(x, lo, hi):
    """Bin floor((x - lo) * bins / (hi - lo)), clamped to the bins."""
    per_unit = BINS / (hi - lo) if hi > lo else 0.0
    idx = np.clip(np.floor((x - lo) * per_unit), 0, BINS - 1).astype(np.int64)
    return np.bincount(idx, minlength=BINS).astype(np.float64)


def edge(lo, hi, i):
    return hi if i == BINS else lo + (hi - lo) * i / BINS


def percentile_range(x, p):
    lo, hi = float(x.min()), float(x.max())
    cum = np.cumsum(histogram(x, lo, hi))
    n = cum[-1]
    low_bin = int(np.argmax(cum > (1 - p / 100) * n))
    high_bin = int(np.argmax(cum >= p / 100 * n))
    return edge(lo, hi, low_bin), edge(lo, hi, high_bin + 1)


def smooth(counts):
    zeros = counts == 0
    if zeros.all():
        return None
    taken = EPS * zeros.sum() / (~zeros).sum()
    s = counts + np.where(zeros, EPS, -taken)
    return s / s.sum()


def entropy_threshold(x):
    x = np.abs(x)
    hi = float(x.max())
    h = histogram(x, 0.0, hi)
    h[0] = h[1]
    best, best_kl = BINS, np.inf
    for i in range(QUANTIZED_BINS, BINS + 1):
        p = h[:i].copy()
        p[i - 1] += h[i:].sum()
        q = np.zeros(i)
        merged = i // QUANTIZED_BINS
        for g in range(QUANTIZED_BINS):
            start = g * merged
            end = i if g == QUANTIZED_BINS - 1 else start + merged
            nonzero = p[start:end] != 0
            if nonzero.any():
                q[start:end][nonzero] = h[start:end].sum() / nonzero.sum()
        ps, qs = smooth(p), smooth(q)
        if ps is None or qs is None:
            continue
        kl = float(np.sum(ps * np.log(ps / qs)))
        if kl < best_kl:
            best, best_kl = i, kl
    return edge(0.0, hi, best)


class RawValues:
    """A float32 array written as a JSON list of shortest round-trip decimals."""
    all = []

    def __init__(self, x):
        self.key = "values%d" % len(RawValues.all)
        self.text = "[" + ",".join(np.format_float_positional(v, unique=True, trim="0")
                                   for v in x) + "]"
        RawValues.all.append(self)


def cases():
    rng = np.random.default_rng(2026)
    yield "integers_0_to_2999", np.arange(3000, dtype=np.float32)
    yield "gaussian_with_outliers", np.concatenate(
        [rng.standard_normal(3000), np.full(2, 40.0), np.full(1, -25.0)]).astype(np.float32)
    yield "relu_of_gaussian", np.maximum(rng.standard_normal(3000), 0).astype(np.float32)
    yield "laplace", rng.laplace(0.5, 2.0, 3000).astype(np.float32)


def main():
    out = []
    for name, x in cases():
        out.append({
            "name": name,
            # float32 values in their shortest decimal form
            "values": RawValues(x),
            "percentile": [{"p": p, "range": list(percentile_range(x.astype(np.float64), p))}
                           for p in PERCENTILES],
            "entropy_threshold": entropy_threshold(x.astype(np.float64)),
        })
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calibrator_cases.json")
    text = json.dumps(out, default=lambda r: r.key)
    for r in RawValues.all:
        text = text.replace(json.dumps(r.key), r.text)
    with open(path, "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
