#!/usr/bin/python3
"""Synthetic single-op references: one small TFLite model per case of every builtin op kiln
imports, built from scratch, with deterministic inputs and Arm NN CpuRef's output.

Writes, into tests/tflite/refs/layers/ops/ (the layout of layers.py's cuts, so that the layer
test runs them like any other layer model):

  <k>.tflite          one operator; subgraph inputs = its non-constant inputs, in its input
                      order; one output. Constant inputs (paddings, perm, axes, ...) are int32
                      buffers. Model.description names the case.
  <k>.input<i>.bin    its i-th non-constant input: int8 inputs cover -128..127 (every code once
                      where the tensor has 256 elements or more); float32 inputs are uniform over
                      the case's range. numpy PCG64, seed (BASE_SEED, crc32(case name), i).
  <k>.output.bin      Arm NN CpuRef's output of <k>.tflite on those inputs

and appends their rows to tests/tflite/refs/layers/manifest.txt with model "ops", after a
comment line per case naming it (everything from OPS_MARKER to the next section's marker,
LATER_MARKERS, is rewritten on each run).
k counts the cases Arm NN runs, in CASES order. The cases it rejects are in REJECTED with its
message, those it computes wrongly in ARMNN_WRONG with its wrong result; the script checks that
each still happens, skips them and lists them in the manifest.

Checks: every model is re-read and compared field by field with what was built (and its inputs
and outputs through generate.py's independent reader); Arm NN's view of each tensor must be the
model's; Arm NN's output must agree with a float numpy model of the op (inputs dequantized,
output requantized) within one step for int8, 1e-5 relative for float32.

Run alone (after generate.py has written layers/) or through generate.py:
    /usr/bin/python3 tools/tflite_refs/ops.py
"""

import collections
import os
import shutil
import sys
import tempfile
import zlib

import flatbuffers
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402  (tools/tflite_refs/layers.py)

MODEL = "ops"
OPS_MARKER = "# ops:"
LATER_MARKERS = ("# int8_lstm:",)   # manifest sections after this one (int8_lstm.py's MARKER)

# A non-constant tensor: int8 with quant = (scale, zero point), or float32 with values drawn
# from [lo, hi] when it is an input.
Act = collections.namedtuple("Act", "shape dtype quant lo hi")
# One case: inputs are Act or (name, int32 array) for a constant; out is the output's Act
# (its shape is the numpy model's); options = (options table, {field: value}) or None.
Case = collections.namedtuple("Case", "name op inputs out options")


def i8(shape, scale, zp):
    return Act(tuple(shape), "int8", (scale, zp), None, None)


def f32(shape, lo=-1.0, hi=1.0):
    return Act(tuple(shape), "float32", None, lo, hi)


def const(name, values):
    return (name, np.array(values, dtype=np.int32))


def _acts(case):
    return [a for a in case.inputs if isinstance(a, Act)]


def _consts(case):
    return {a[0]: a[1] for a in case.inputs if not isinstance(a, Act)}


def _options(case):
    return dict(case.options[1]) if case.options else {}


U = (1, 8, 8, 4)   # unary activations: 256 elements, every int8 code once
X = (1, 5, 6, 3)   # everything else
SOFTMAX_OUT = i8((), 1 / 256, -128)   # TFLite's fixed output quantization (LOGISTIC too)
TANH_OUT = i8((), 1 / 128, 0)
PADDINGS = [[0, 0], [1, 2], [2, 1], [0, 0]]
RELU, NONE = 1, 0      # ActivationFunctionType
SAME, VALID = 0, 1     # Padding


def pool(padding, k, s, act=NONE):
    return ("Pool2DOptions", {"padding": padding, "strideW": s, "strideH": s, "filterWidth": k,
                              "filterHeight": k, "fusedActivationFunction": act})


CASES = [
    Case("logistic_s0.02_zp0", "LOGISTIC", [i8(U, 0.02, 0)], SOFTMAX_OUT, None),
    Case("logistic_s0.1_zp-128", "LOGISTIC", [i8(U, 0.1, -128)], SOFTMAX_OUT, None),
    Case("logistic_s0.5_zp-20", "LOGISTIC", [i8(U, 0.5, -20)], SOFTMAX_OUT, None),
    Case("tanh_s0.02_zp-5", "TANH", [i8(U, 0.02, -5)], TANH_OUT, None),
    Case("tanh_s0.1_zp127", "TANH", [i8(U, 0.1, 127)], TANH_OUT, None),
    Case("tanh_s0.5_zp30", "TANH", [i8(U, 0.5, 30)], TANH_OUT, None),
    Case("relu_requant", "RELU", [i8(U, 0.05, 20)], i8((), 0.025, -128), None),
    Case("relu_same_q", "RELU", [i8(U, 0.05, 20)], i8((), 0.05, 20), None),
    Case("relu6_requant", "RELU6", [i8(U, 0.07, 0)], i8((), 6 / 255, -128), None),
    Case("relu6_same_q", "RELU6", [i8(U, 0.06, -10)], i8((), 0.06, -10), None),
    Case("relu_n1_to_1_requant", "RELU_N1_TO_1", [i8(U, 0.02, 10)], i8((), 0.008, -3), None),
    Case("relu_n1_to_1_same_q", "RELU_N1_TO_1", [i8(U, 0.015, 0)], i8((), 0.015, 0), None),
    Case("hard_swish", "HARD_SWISH", [i8(U, 0.05, -10)], i8((), 0.03, -100), None),
    Case("leaky_relu_0.2", "LEAKY_RELU", [i8(U, 0.05, 0)], i8((), 0.04, -30),
         ("LeakyReluOptions", {"alpha": 0.2})),
    Case("quantize_f32_i8", "QUANTIZE", [f32(X, -7.0, 7.0)], i8((), 0.05, -20), None),
    Case("quantize_i8_i8", "QUANTIZE", [i8(U, 0.05, -128)], i8((), 0.06, -100), None),
    Case("dequantize_i8_f32", "DEQUANTIZE", [i8(U, 0.1, 127)], f32(()), None),
    Case("concat_axis3_requant", "CONCATENATION",
         [i8((1, 4, 5, 2), 0.05, -128), i8((1, 4, 5, 3), 0.03, 127), i8((1, 4, 5, 1), 0.1, 0)],
         i8((), 0.06, -20), ("ConcatenationOptions", {"axis": 3})),
    Case("concat_axis1_requant", "CONCATENATION",
         [i8((1, 2, 5, 3), 0.04, 10), i8((1, 3, 5, 3), 0.05, -7)],
         i8((), 0.045, 3), ("ConcatenationOptions", {"axis": 1})),
    Case("concat_axis3_same_q", "CONCATENATION",
         [i8((1, 4, 5, 2), 0.05, -7), i8((1, 4, 5, 3), 0.05, -7)],
         i8((), 0.05, -7), ("ConcatenationOptions", {"axis": 3})),
    Case("max_pool_same_3x3_s2", "MAX_POOL_2D", [i8(X, 0.05, 127)], i8((), 0.05, 127),
         pool(SAME, 3, 2)),
    Case("max_pool_valid_2x2_s2", "MAX_POOL_2D", [i8(X, 0.04, -128)], i8((), 0.04, -128),
         pool(VALID, 2, 2)),
    Case("average_pool_same_3x3_s2", "AVERAGE_POOL_2D", [i8(X, 0.05, 5)], i8((), 0.05, 5),
         pool(SAME, 3, 2)),
    Case("pad_zp0", "PAD", [i8(X, 0.05, 0), const("paddings", PADDINGS)], i8((), 0.05, 0), None),
    Case("pad_zp40", "PAD", [i8(X, 0.05, 40), const("paddings", PADDINGS)], i8((), 0.05, 40), None),
    Case("transpose_0312", "TRANSPOSE", [i8(X, 0.05, 0), const("perm", [0, 3, 1, 2])],
         i8((), 0.05, 0), None),
    # begin_mask dims 0 and 2, end_mask dims 0 and 3; strides 2 on dims 1 and 2.
    Case("strided_slice_masks", "STRIDED_SLICE",
         [i8(X, 0.05, 0), const("begin", [0, 1, 3, 1]), const("end", [0, 5, 6, 0]),
          const("strides", [1, 2, 2, 1])],
         i8((), 0.05, 0), ("StridedSliceOptions", {"beginMask": 0b0101, "endMask": 0b1001})),
    Case("squeeze_0_2", "SQUEEZE", [i8((1, 5, 1, 3), 0.05, -1)], i8((), 0.05, -1),
         ("SqueezeOptions", {"squeezeDims": np.array([0, 2], dtype=np.int32)})),
    Case("reshape_1x90", "RESHAPE", [i8(X, 0.05, -1), const("shape", [1, 90])],
         i8((), 0.05, -1), ("ReshapeOptions", {"newShape": np.array([1, 90], dtype=np.int32)})),
    Case("mean_axes12_keep_dims", "MEAN", [i8(X, 0.05, -3), const("axes", [1, 2])],
         i8((), 0.02, 10), ("ReducerOptions", {"keepDims": True})),
    Case("add_broadcast_relu", "ADD", [i8(X, 0.05, 10), i8((1, 1, 1, 3), 0.04, 127)],
         i8((), 0.07, -30), ("AddOptions", {"fusedActivationFunction": RELU})),
    Case("sub_broadcast_relu", "SUB", [i8(X, 0.06, -128), i8((1, 5, 1, 3), 0.05, 20)],
         i8((), 0.08, 0), ("SubOptions", {"fusedActivationFunction": RELU})),
    Case("mul_broadcast_relu", "MUL", [i8(X, 0.05, -5), i8((1, 1, 6, 1), 0.02, -128)],
         i8((), 0.25, -10), ("MulOptions", {"fusedActivationFunction": RELU})),
    Case("softmax_beta1", "SOFTMAX", [i8((1, 4, 5, 10), 0.1, 5)], SOFTMAX_OUT,
         ("SoftmaxOptions", {"beta": 1.0})),
    Case("softmax_beta0.5", "SOFTMAX", [i8((1, 4, 5, 10), 0.2, -20)], SOFTMAX_OUT,
         ("SoftmaxOptions", {"beta": 0.5})),
    Case("logistic_f32", "LOGISTIC", [f32(U, -8.0, 8.0)], f32(()), None),
    Case("tanh_f32", "TANH", [f32(U, -4.0, 4.0)], f32(()), None),
    Case("hard_swish_f32", "HARD_SWISH", [f32(U, -5.0, 5.0)], f32(()), None),
    Case("relu6_f32", "RELU6", [f32(U, -3.0, 9.0)], f32(()), None),
    Case("concat_axis3_f32", "CONCATENATION", [f32((1, 4, 5, 2)), f32((1, 4, 5, 3))], f32(()),
         ("ConcatenationOptions", {"axis": 3})),
    Case("max_pool_same_3x3_s2_f32", "MAX_POOL_2D", [f32(X)], f32(()), pool(SAME, 3, 2)),
]

# case -> (what Arm NN 22 says, why)
_NO_RELU_N1 = ("RELU_N1_TO_1  at function ParseUnsupportedOperator",
               "Arm NN 22's TFLite parser has no RELU_N1_TO_1 (ParseUnsupportedOperator)")
REJECTED = {
    "relu_n1_to_1_requant": _NO_RELU_N1,
    "relu_n1_to_1_same_q": _NO_RELU_N1,
}

# case -> (how Arm NN 22 gets it wrong, its wrong output from the input codes and constants):
# the script checks that Arm NN still computes exactly that, and skips the case.
ARMNN_WRONG = {
    "pad_zp40": ("pads int8 with code 0, not with the zero point (TFLite pads with the real 0)",
                 lambda xs, consts: np.pad(xs[0], consts["paddings"])),
}


# -- the op in float numpy: the oracle's sanity check -----------------------------------------
def _window(n, k, s, padding):
    """(output size, padding before) of one spatial dimension, TFLite's SAME/VALID."""
    if padding == VALID:
        return (n - k) // s + 1, 0
    out = -(-n // s)
    return out, max((out - 1) * s + k - n, 0) // 2


def _pool(x, o, reduce):
    n, h, w, c = x.shape
    oh, ph = _window(h, o["filterHeight"], o["strideH"], o["padding"])
    ow, pw = _window(w, o["filterWidth"], o["strideW"], o["padding"])
    y = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * o["strideH"] - ph, j * o["strideW"] - pw
            win = x[:, max(r0, 0):r0 + o["filterHeight"], max(c0, 0):c0 + o["filterWidth"], :]
            y[:, i, j, :] = reduce(win, axis=(1, 2))
    return y


def _strided_slice(x, begin, end, strides, o):
    idx = []
    for d in range(x.ndim):
        b = None if o["beginMask"] >> d & 1 else int(begin[d])
        e = None if o["endMask"] >> d & 1 else int(end[d])
        idx.append(slice(b, e, int(strides[d])))
    return x[tuple(idx)]


def _softmax(x, beta):
    e = np.exp(beta * (x - x.max(axis=-1, keepdims=True)))
    return e / e.sum(axis=-1, keepdims=True)


def _fused(y, o):
    return np.maximum(y, 0) if o.get("fusedActivationFunction") == RELU else y


def reference(op, xs, consts, o):
    """The op on real values xs (non-constant inputs) and consts (name -> array)."""
    x = xs[0]
    if op == "LOGISTIC":
        return 1 / (1 + np.exp(-x))
    if op == "TANH":
        return np.tanh(x)
    if op == "RELU":
        return np.maximum(x, 0)
    if op == "RELU6":
        return np.clip(x, 0, 6)
    if op == "RELU_N1_TO_1":
        return np.clip(x, -1, 1)
    if op == "HARD_SWISH":
        return x * np.clip(x + 3, 0, 6) / 6
    if op == "LEAKY_RELU":
        return np.where(x > 0, x, o["alpha"] * x)
    if op in ("QUANTIZE", "DEQUANTIZE"):
        return x
    if op == "CONCATENATION":
        return np.concatenate(xs, axis=o["axis"])
    if op == "MAX_POOL_2D":
        return _pool(x, o, np.max)
    if op == "AVERAGE_POOL_2D":
        return _pool(x, o, np.mean)
    if op == "PAD":
        return np.pad(x, consts["paddings"])
    if op == "TRANSPOSE":
        return np.transpose(x, consts["perm"])
    if op == "STRIDED_SLICE":
        return _strided_slice(x, consts["begin"], consts["end"], consts["strides"], o)
    if op == "SQUEEZE":
        return np.squeeze(x, axis=tuple(o["squeezeDims"]))
    if op == "RESHAPE":
        return x.reshape(consts["shape"])
    if op == "MEAN":
        return x.mean(axis=tuple(consts["axes"]), keepdims=o["keepDims"])
    if op == "ADD":
        return _fused(xs[0] + xs[1], o)
    if op == "SUB":
        return _fused(xs[0] - xs[1], o)
    if op == "MUL":
        return _fused(xs[0] * xs[1], o)
    if op == "SOFTMAX":
        return _softmax(x, o["beta"])
    raise ValueError(op)


def quantize(x, scale, zp):
    return np.clip(np.round(x / np.float32(scale)) + zp, -128, 127).astype(np.int8)


def dequantize(q, scale, zp):
    return (q.astype(np.float64) - zp) * np.float32(scale)


# -- building the models ----------------------------------------------------------------------
def _type_code(dtype):
    return {v: k for k, v in layers.TFL_TYPES.items()}[dtype]


def build(S, case, out_shape):
    """The case's single-op model as a ModelT, with numpy arrays of the dtypes unpacking gives
    (so that it compares equal to the re-read model)."""
    T = S.T
    m = T.Model.ModelT()
    m.version = 3
    m.description = ("kiln tools/tflite_refs/ops.py: " + case.name).encode()
    m.buffers = [T.Buffer.BufferT()]  # buffer 0: the empty sentinel
    code = getattr(T.BuiltinOperator.BuiltinOperator, case.op)
    oc = T.OperatorCode.OperatorCodeT()
    oc.deprecatedBuiltinCode, oc.builtinCode = min(code, 127), code
    m.operatorCodes = [oc]

    g = T.SubGraph.SubGraphT()
    g.name = b"main"
    g.tensors = []

    def tensor(name, shape, dtype, quant=None, data=None):
        t = T.Tensor.TensorT()
        t.name, t.type = name.encode(), _type_code(dtype)
        t.shape = np.array(shape, dtype=np.int32)
        if quant is not None:
            q = T.QuantizationParameters.QuantizationParametersT()
            q.scale = np.array([quant[0]], dtype=np.float32)
            q.zeroPoint = np.array([quant[1]], dtype=np.int64)
            t.quantization = q
        if data is not None:
            b = T.Buffer.BufferT()
            b.data = np.frombuffer(data.astype("<i4").tobytes(), dtype=np.uint8)
            t.buffer = len(m.buffers)
            m.buffers.append(b)
        g.tensors.append(t)
        return len(g.tensors) - 1

    op = T.Operator.OperatorT()
    op.inputs, g.inputs = [], []
    for a in case.inputs:
        if isinstance(a, Act):
            op.inputs.append(tensor("in%d" % len(g.inputs), a.shape, a.dtype, a.quant))
            g.inputs.append(op.inputs[-1])
        else:
            op.inputs.append(tensor(a[0], a[1].shape, "int32", data=a[1]))
    out = tensor("out", out_shape, case.out.dtype, case.out.quant)
    op.outputs = np.array([out], dtype=np.int32)
    op.inputs = np.array(op.inputs, dtype=np.int32)
    g.inputs = np.array(g.inputs, dtype=np.int32)
    g.outputs = np.array([out], dtype=np.int32)
    if case.options:
        cls, fields = case.options
        o = getattr(getattr(T, cls), cls + "T")()
        for f, v in fields.items():
            assert hasattr(o, f), (cls, f)
            setattr(o, f, float(np.float32(v)) if isinstance(v, float) else v)  # as re-read
        op.builtinOptionsType = getattr(T.BuiltinOptions.BuiltinOptions, cls)
        op.builtinOptions = o
    g.operators = [op]
    m.subgraphs = [g]
    return m


def pack(m):
    b = flatbuffers.Builder(1 << 12)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def make_input(case, i, a, base_seed):
    rng = np.random.default_rng([base_seed, zlib.crc32(case.name.encode()), i])
    n = int(np.prod(a.shape))
    if a.dtype == "float32":
        return rng.uniform(a.lo, a.hi, size=a.shape).astype(np.float32)
    if n >= 256:
        q = np.resize(np.arange(-128, 128), n)
    else:
        q = rng.integers(-128, 128, size=n)
        q[:2] = (-128, 127)
    return rng.permutation(q).astype(np.int8).reshape(a.shape)


def describe(case, out_shape):
    """One line for the manifest: op, options, input tensors or constants -> output tensor."""
    def tensor(a, shape):
        q = "" if a.quant is None else " (%.9g, %d)" % (np.float32(a.quant[0]), a.quant[1])
        return "%s %s%s" % (a.dtype, "x".join(map(str, shape)), q)

    def compact(v):
        return str(v.tolist() if isinstance(v, np.ndarray) else v).replace(" ", "")

    ins = [tensor(a, a.shape) if isinstance(a, Act) else "%s=%s" % (a[0], compact(a[1]))
           for a in case.inputs]
    opts = "".join(" %s=%s" % (f, compact(v)) for f, v in _options(case).items())
    return "%s%s: %s -> %s" % (case.op, opts, ", ".join(ins), tensor(case.out, out_shape))


def oracle_check(case, xs, y):
    """Arm NN's output y against the numpy model; returns the largest difference (steps for int8)."""
    real = [dequantize(x, *a.quant) if a.quant else x.astype(np.float64) for x, a in zip(xs, _acts(case))]
    ref = reference(case.op, real, _consts(case), _options(case))
    assert ref.shape == y.shape
    if case.out.quant:
        diff = np.abs(y.astype(np.int32) - quantize(ref, *case.out.quant).astype(np.int32)).max()
        assert diff <= 1, "%s: Arm NN differs from numpy by %d steps" % (case.name, diff)
    else:
        diff = np.abs(y - ref).max()
        assert diff <= 1e-5 * max(1.0, np.abs(ref).max()), "%s: Arm NN differs by %g" % (case.name, diff)
    return diff


def generate(arm, schema_fbs, layers_dir, write_checked, tflite_io, base_seed, version):
    """Writes layers_dir/ops/ and its manifest rows. Returns summary lines."""
    out_dir = os.path.join(layers_dir, MODEL)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    manifest = os.path.join(layers_dir, "manifest.txt")
    text = open(manifest).read()
    before = text.split("\n" + OPS_MARKER)[0].rstrip("\n") + "\n"
    # Sections written after this one (int8_lstm.py's) stay as they are.
    later = [text.index("\n" + m) for m in LATER_MARKERS if "\n" + m in text]
    after = text[min(later) + 1:] if later else ""
    lines = [OPS_MARKER + " synthetic single-op models, one per case (ops/<k>.tflite), built by",
             "# tools/tflite_refs/ops.py; inputs deterministic (seed %d), outputs Arm NN %s CpuRef." % (
                 base_seed, version)]
    S = layers.Schema(schema_fbs)
    tmp = tempfile.mkdtemp(prefix="kiln_tflite_ops_")
    written, summary, k = {}, [], 0
    try:
        for case in CASES:
            consts, opts = _consts(case), _options(case)
            out_shape = reference(case.op, [np.zeros(a.shape) for a in _acts(case)], consts, opts).shape
            m = build(S, case, out_shape)
            data = pack(m)
            layers.check_packed(S, m, data, tflite_io)
            back = S.unpack(data)
            tin = [layers.tensor_desc(back, int(i)) for i in back.subgraphs[0].inputs]
            tout = [layers.tensor_desc(back, int(i)) for i in back.subgraphs[0].outputs]
            xs = [make_input(case, i, a, base_seed) for i, a in enumerate(_acts(case))]
            skipped = case.name in REJECTED or case.name in ARMNN_WRONG
            path = os.path.join(tmp, case.name + ".tflite") if skipped else \
                os.path.join(out_dir, "%d.tflite" % k)
            with open(path, "wb") as f:
                f.write(data)
            try:
                y = arm.run_all(path, {t["name"]: (x, t) for x, t in zip(xs, tin)}, tout)[0]
            except RuntimeError as e:
                if case.name not in REJECTED:
                    raise SystemExit("%s: Arm NN rejects it (add it to REJECTED): %s" % (case.name, e))
                assert REJECTED[case.name][0] in str(e), "%s: unexpected error %s" % (case.name, e)
                summary.append("   %-26s rejected by Arm NN: %s" % (case.name, REJECTED[case.name][0]))
                lines.append("# (not written) %s: Arm NN rejects it: %s" % (case.name, REJECTED[case.name][1]))
                continue
            if case.name in REJECTED:
                raise SystemExit("%s: Arm NN now runs it: remove it from REJECTED" % case.name)
            y = y.reshape(out_shape)
            if case.name in ARMNN_WRONG:
                how, wrong = ARMNN_WRONG[case.name]
                if not np.array_equal(y, wrong(xs, consts)):
                    raise SystemExit("%s: Arm NN no longer %s: remove it from ARMNN_WRONG" % (case.name, how))
                summary.append("   %-26s skipped, Arm NN %s" % (case.name, how))
                lines.append("# (not written) %s: Arm NN %s" % (case.name, how))
                continue
            diff = oracle_check(case, xs, y)
            lines.append("# ops/%d.tflite %s: %s" % (k, case.name, describe(case, out_shape)))
            for j, (t, x) in enumerate(zip(tin, xs)):
                name = "%s/%d.input%d.bin" % (MODEL, k, j)
                write_checked(os.path.join(layers_dir, name), x, t["dtype"], t["shape"])
                written[name] = x
                lines.append(layers._manifest_line(name, MODEL, k, case.op, "input%d" % j, t, x))
            name = "%s/%d.output.bin" % (MODEL, k)
            write_checked(os.path.join(layers_dir, name), y, tout[0]["dtype"], tout[0]["shape"])
            written[name] = y
            lines.append(layers._manifest_line(name, MODEL, k, case.op, "output", tout[0], y))
            summary.append("%2d %-26s out [%.4g, %.4g], Arm NN - numpy: %.3g%s" % (
                k, case.name, y.min(), y.max(), diff, " steps" if case.out.quant else ""))
            k += 1
    finally:
        S.close()
        shutil.rmtree(tmp, ignore_errors=True)
    with open(manifest, "w") as f:
        f.write(before + "\n".join(lines) + "\n" + after)
    back = [(f, a) for f, a in layers.read_manifest(layers_dir) if f["model"] == MODEL]
    assert sorted(f["file"] for f, _ in back) == sorted(written)
    for f, a in back:
        assert a.dtype == written[f["file"]].dtype and np.array_equal(a, written[f["file"]]), f["file"]
    return summary


def main():
    import generate  # noqa: E402  (tools/tflite_refs/generate.py)
    arm = generate.ArmNN()
    print("\n".join(generate_from(arm, generate)))


def generate_from(arm, gen):
    """generate() with generate.py's (module gen) paths, file writer, reader and seed."""
    return generate(arm, gen.SCHEMA, gen.LAYERS_DIR, gen.write_checked, gen.tflite_io,
                    gen.BASE_SEED, arm.version)


if __name__ == "__main__":
    sys.exit(main())
