#!/usr/bin/python3
"""Writes the quantized ONNX models of tests/qdq and their inputs.

Each model is what a quantizer writes (ONNX Runtime's QDQ format, or the
QLinear/Integer operator format): float weights drawn at random are
quantized symmetric per output channel (int8), activations asymmetric per
tensor (uint8 or int8) with ranges from a float run of the model on its
input, biases int32 at input scale x weight scale. The models are small, so
they and their data are checked in; ort_reference.js then computes the
reference outputs with ONNX Runtime (the independent oracle). generate.sh
runs both.

usage: make_models.py OUT_DIR   (needs python3-onnx and numpy)
"""
import copy
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(13)
OPSET = 13
# Models whose reference ONNX Runtime computes with its graph optimizations
# off (ort_reference.js): its fused uint8 kernels saturate on CPUs without
# VNNI, up to 8 steps on this one.
ORT_UNFUSED = {"qdq_cnn_u8_io"}


class Builder:
    """Nodes, initializers and the float value of every tensor (a numpy
    evaluation alongside the graph, which gives the activation ranges)."""

    def __init__(self, x, dtype):
        self.nodes, self.inits = [], []
        self.values = {"x": x}
        self.act_type = dtype  # np.uint8 or np.int8: the activations' type

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def act_params(self, name):
        """uint8/int8 scale and zero point covering the value's range (and 0)."""
        v = self.values[name]
        lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
        qmin, qmax = (0, 255) if self.act_type == np.uint8 else (-128, 127)
        scale = np.float32((hi - lo) / (qmax - qmin) or 1.0)
        zp = int(np.clip(round(qmin - lo / scale), qmin, qmax))
        return scale, zp

    def qdq(self, name):
        """QuantizeLinear -> DequantizeLinear of activation `name`."""
        scale, zp = self.act_params(name)
        s = self.const(name + "_scale", np.float32(scale))
        z = self.const(name + "_zp", self.act_type(zp))
        q = self.node("QuantizeLinear", [name, s, z], name + "_q")
        out = self.node("DequantizeLinear", [q, s, z], name + "_dq")
        self.values[out] = fake_quant(self.values[name], scale, zp, self.act_type)
        return out

    def weights(self, name, w, axis):
        """Per-channel symmetric int8 weights (along `axis`), dequantized."""
        other = tuple(d for d in range(w.ndim) if d != axis)
        scale = (np.abs(w).max(axis=other) / 127).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        self.const(name + "_q", q)
        self.const(name + "_scale", scale)
        self.const(name + "_zp", np.zeros(scale.shape, np.int8))
        out = self.node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"],
                        name, axis=axis)
        self.values[out] = q.astype(np.float32) * scale.reshape(shape)
        return out, scale

    def bias(self, name, b, scale):
        q = np.round(b / scale).astype(np.int32)
        self.const(name + "_q", q)
        self.const(name + "_scale", scale.astype(np.float32))
        self.const(name + "_zp", np.zeros(scale.shape, np.int32))
        out = self.node("DequantizeLinear", [name + "_q", name + "_scale", name + "_zp"],
                        name, axis=0)
        self.values[out] = q.astype(np.float32) * scale
        return out

    def model(self, output, out_dtype, shape):
        x = self.values["x"]
        graph = helper.make_graph(
            self.nodes, "qdq",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info(output, out_dtype, shape)],
            self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        m.ir_version = 7
        onnx.checker.check_model(m)
        return m


    def integer_model(self, out):
        """The model whose output is the integers of the last QDQ's Q."""
        self.nodes.pop()
        dtype = TensorProto.UINT8 if self.act_type == np.uint8 else TensorProto.INT8
        return self.model(out.removesuffix("_dq") + "_q", dtype,
                          list(self.values[out].shape))

    def quantized_const(self, name, v):
        """DequantizeLinear of a constant quantized like an activation."""
        self.values[name + "_f"] = v
        scale, zp = self.act_params(name + "_f")
        info = np.iinfo(self.act_type)
        q = np.clip(np.round(v / scale) + zp, info.min, info.max).astype(self.act_type)
        out = self.node("DequantizeLinear", [self.const(name + "_q", q),
                                             self.const(name + "_scale", np.float32(scale)),
                                             self.const(name + "_zp", self.act_type(zp))],
                        name)
        self.values[out] = fake_quant(v, scale, zp, self.act_type)
        return out


def fake_quant(v, scale, zp, dtype):
    info = np.iinfo(dtype)
    q = np.clip(np.round(v / scale) + zp, info.min, info.max)
    return ((q - zp) * scale).astype(np.float32)


def conv2d(x, w, b, pad, group=1):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, o, oh, ow), np.float32)
    per = o // group
    for oc in range(o):
        g = oc // per
        for i in range(oh):
            for j in range(ow):
                y[:, oc, i, j] = np.sum(xp[:, g * cg:(g + 1) * cg, i:i + kh, j:j + kw]
                                        * w[oc], axis=(1, 2, 3))
    return y + b.reshape(1, -1, 1, 1)


def conv_block(bld, x, name, cout, k, group=1, relu=True, pad=None, stride=1):
    """DQ'd x -> Conv (per-channel int8 weights, int32 bias) [-> Relu] -> QDQ;
    padded k // 2 on every side unless `pad` says."""
    pad = k // 2 if pad is None else pad
    cin = bld.values[x].shape[1]
    w = RNG.normal(0, 1 / np.sqrt(cin // group * k * k), (cout, cin // group, k, k))
    b = RNG.normal(0, 0.1, cout)
    wq, wscale = bld.weights(name + "_w", w.astype(np.float32), 0)
    in_scale, _ = bld.act_params(x.removesuffix("_dq"))
    bq = bld.bias(name + "_b", b, in_scale * wscale)
    strides = {"strides": [stride] * 2} if stride != 1 else {}
    y = bld.node("Conv", [x, wq, bq], name, pads=[pad] * 4, group=group, **strides)
    full = conv2d(bld.values[x], bld.values[wq], bld.values[bq], pad, group)
    bld.values[y] = full[:, :, ::stride, ::stride]
    if relu:
        y = bld.node("Relu", [y], name + "_relu")
        bld.values[y] = np.maximum(bld.values[name], 0)
    return bld.qdq(y)


def dense(bld, x, name, n_out):
    """DQ'd x -> Gemm(transB=1, per-channel int8 weights, int32 bias) -> QDQ."""
    n_in = bld.values[x].shape[1]
    w = RNG.normal(0, 1 / np.sqrt(n_in), (n_out, n_in)).astype(np.float32)
    wq, wscale = bld.weights(name + "_w", w, 0)
    in_scale, _ = bld.act_params(x.removesuffix("_dq"))
    bq = bld.bias(name + "_b", RNG.normal(0, 0.1, n_out), in_scale * wscale)
    y = bld.node("Gemm", [x, wq, bq], name, transB=1)
    bld.values[y] = bld.values[x] @ bld.values[wq].T + bld.values[bq]
    return bld.qdq(y)


def qdq_cnn(dtype):
    """A small CNN in ONNX Runtime's QDQ format: Conv+Relu, depthwise Conv,
    AveragePool, a residual Add, Concat, GlobalAveragePool, Gemm."""
    x = RNG.uniform(-1, 1, (4, 3, 12, 12)).astype(np.float32)
    bld = Builder(x, dtype)
    h = bld.qdq("x")
    h = conv_block(bld, h, "conv1", 8, 3)
    d = conv_block(bld, h, "dw", 8, 3, group=8)
    s = bld.node("Add", [h, d], "add")
    bld.values[s] = bld.values[h] + bld.values[d]
    s = bld.qdq(s)
    p = bld.node("AveragePool", [s], "pool", kernel_shape=[2, 2], strides=[2, 2])
    v = bld.values[s]
    bld.values[p] = v.reshape(-1, 8, 6, 2, 6, 2).mean(axis=(3, 5))
    p = bld.qdq(p)
    c2 = conv_block(bld, p, "conv2", 8, 1, relu=False)
    c = bld.node("Concat", [p, c2], "concat", axis=1)
    bld.values[c] = np.concatenate([bld.values[p], bld.values[c2]], axis=1)
    c = bld.qdq(c)
    g = bld.node("GlobalAveragePool", [c], "gap")
    bld.values[g] = bld.values[c].mean(axis=(2, 3), keepdims=True)
    g = bld.qdq(g)
    f = bld.node("Flatten", [g], "flatten")
    bld.values[f] = bld.values[g].reshape(len(x), -1)
    return bld.integer_model(dense(bld, f, "fc", 10)), x


def uint8_io(model, x):
    """`model` with a uint8 input: the integers of its input's QuantizeLinear,
    as a caller quantizes them (ONNX's rounding, half to even), and the
    input data quantized so."""
    g = model.graph
    q = next(n for n in g.node if n.op_type == "QuantizeLinear" and n.input[0] == "x")
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    scale, zp = inits[q.input[1]], inits[q.input[2]]
    xq = np.clip(np.round(x / scale) + zp, 0, 255).astype(np.uint8)
    g.node.remove(q)
    del g.input[:]
    g.input.append(helper.make_tensor_value_info(q.output[0], TensorProto.UINT8, x.shape))
    onnx.checker.check_model(model)
    return model, xq


def layer(kind, dtype):
    """One QDQ group on the quantized input: the ops one by one, so that each
    result is within one step of ONNX Runtime's (a chain carries a step on)."""
    x = RNG.uniform(-1, 1, (4, 3, 12, 12)).astype(np.float32)
    bld = Builder(x, dtype)
    h = bld.qdq("x")
    v = bld.values[h]
    if kind == "conv":
        return bld.integer_model(conv_block(bld, h, "conv", 8, 3)), x
    if kind == "depthwise":
        return bld.integer_model(conv_block(bld, h, "dw", 6, 3, group=3, relu=False)), x
    if kind == "add":
        c = bld.quantized_const("c", RNG.uniform(-1, 1, v.shape[1:]).astype(np.float32))
        y = bld.node("Add", [h, c], "add")
        bld.values[y] = v + bld.values[c]
    elif kind == "mul":
        c = bld.quantized_const("c", RNG.uniform(-1, 1, v.shape[1:]).astype(np.float32))
        y = bld.node("Mul", [h, c], "mul")
        bld.values[y] = v * bld.values[c]
    elif kind == "avgpool":
        y = bld.node("AveragePool", [h], "pool", kernel_shape=[2, 2], strides=[2, 2])
        bld.values[y] = v.reshape(-1, 3, 6, 2, 6, 2).mean(axis=(3, 5))
    elif kind == "gap":
        y = bld.node("GlobalAveragePool", [h], "gap")
        bld.values[y] = v.mean(axis=(2, 3), keepdims=True)
    elif kind == "concat":
        c = bld.quantized_const("c", RNG.uniform(-3, 3, v.shape).astype(np.float32))
        y = bld.node("Concat", [h, c], "concat", axis=1)
        bld.values[y] = np.concatenate([v, bld.values[c]], axis=1)
    elif kind == "gemm":
        f = bld.node("Flatten", [h], "flatten")
        bld.values[f] = v.reshape(len(x), -1)
        return bld.integer_model(dense(bld, f, "fc", 16)), x
    return bld.integer_model(bld.qdq(y)), x


def depthwise_windows():
    """A chain of int8 depthwise 3x3 Convs over odd channel counts: padded
    and unpadded, stride 1 and 2, output rows of even and odd width (12, 5,
    3, 3), one with two outputs per channel."""
    x = RNG.uniform(-1, 1, (1, 5, 13, 12)).astype(np.float32)
    bld = Builder(x, np.int8)
    h = bld.qdq("x")
    h = conv_block(bld, h, "dw1", 5, 3, group=5)
    h = conv_block(bld, h, "dw2", 5, 3, group=5, pad=0, stride=2)
    h = conv_block(bld, h, "dw3", 10, 3, group=5, stride=2)
    return bld.integer_model(conv_block(bld, h, "dw4", 10, 3, group=10, relu=False)), x


def gemm_windows():
    """A chain of int8 Convs (not depthwise) over odd channel counts, the
    shapes of the GEMM kernel's blocks: 3x3 padded and unpadded, stride 1
    and 2, 1x1, 7 to 144 taps a row (unrolled and looped on the Arm DSP),
    odd output channels and odd pixel counts (partial blocks)."""
    x = RNG.uniform(-1, 1, (1, 5, 13, 11)).astype(np.float32)
    bld = Builder(x, np.int8)
    h = bld.qdq("x")
    h = conv_block(bld, h, "c1", 7, 3)
    h = conv_block(bld, h, "c2", 8, 1)
    h = conv_block(bld, h, "c3", 9, 3, pad=0, stride=2)
    h = conv_block(bld, h, "c4", 16, 1)
    h = conv_block(bld, h, "c5", 5, 3)
    return bld.integer_model(conv_block(bld, h, "c6", 3, 1, relu=False)), x


def gemm_small_blocks():
    """int8 Convs whose rows, pixels and taps fill no whole block of the
    GEMM kernels (SMMLA's 8 x 8 of octets, SDOT's, AVX2's): 3, 5, 11, 10,
    12, 6, 7 and 3 output channels, 21 and 8 pixels (the last block of 21
    overlaps the one before), 45, 3, 45, 11, 45, 6, 6 and 63 taps a row; a
    1x1 Conv of 3 channels reads a partial group of runs; two grouped
    Convs, of 6 rows a group (SMMLA's pairs of rows) and of 3 (SDOT's). It
    ends on a 3x3 Conv: pixels permuted alike by two 1x1 Convs in a row
    would cancel."""
    x = RNG.uniform(-1, 1, (1, 5, 3, 7)).astype(np.float32)
    bld = Builder(x, np.int8)
    h = bld.qdq("x")
    h = conv_block(bld, h, "c1", 3, 3)
    h = conv_block(bld, h, "c2", 5, 1)
    h = conv_block(bld, h, "c3", 11, 3)
    h = conv_block(bld, h, "c4", 10, 1)
    h = conv_block(bld, h, "g1", 12, 3, group=2)
    h = conv_block(bld, h, "g2", 6, 1, group=2)
    h = conv_block(bld, h, "c5", 7, 1, stride=2)
    return bld.integer_model(conv_block(bld, h, "c6", 3, 3, relu=False)), x


def gemm_plane_runs():
    """int8 Convs whose blocks read runs of their planes where a kernel can
    (SMMLA and VNNI: channels in whole octets or quads, output rows of whole
    blocks): 3x3 of 8 and 16 channels, a grouped one of 8 channels and 6
    rows a group, stride 2 to 11 rows, 3 rows at the end; between them 1x1
    Convs of 12 and 11 channels (partial groups of runs)."""
    x = RNG.uniform(-1, 1, (1, 8, 4, 16)).astype(np.float32)
    bld = Builder(x, np.int8)
    h = bld.qdq("x")
    h = conv_block(bld, h, "p1", 16, 3)
    h = conv_block(bld, h, "g1", 12, 3, group=2)
    h = conv_block(bld, h, "p2", 16, 1)
    h = conv_block(bld, h, "p3", 11, 3, stride=2)
    h = conv_block(bld, h, "p4", 8, 1)
    return bld.integer_model(conv_block(bld, h, "p5", 3, 3, relu=False)), x


def qdq_mlp():
    """int8 activations: MatMul, Mul, and a Sigmoid whose output scale is not
    TFLite's 1/256 (it stays float); the output dequantized to f32."""
    x = RNG.uniform(-2, 2, (4, 16)).astype(np.float32)
    bld = Builder(x, np.int8)
    h = bld.qdq("x")
    w = RNG.normal(0, 0.25, (16, 12)).astype(np.float32)
    wq, _ = bld.weights("w1", w, 1)
    m = bld.node("MatMul", [h, wq], "mm")
    bld.values[m] = bld.values[h] @ bld.values[wq]
    m = bld.qdq(m)
    sg = bld.node("Sigmoid", [m], "sigmoid")
    bld.values[sg] = 1 / (1 + np.exp(-bld.values[m]))
    sg = bld.qdq(sg)
    y = bld.node("Mul", [m, sg], "mul")
    bld.values[y] = bld.values[m] * bld.values[sg]
    y = bld.qdq(y)
    return bld.model(y, TensorProto.FLOAT, [4, 12]), x


def qlinear_ops():
    """The operator format: QLinearConv (uint8, per-channel int8 weights,
    bias) and QLinearMatMul (uint8 weights with zero point 128), and
    DynamicQuantizeLinear -> MatMulInteger -> float scaling."""
    x = RNG.uniform(-1, 1, (1, 4, 6, 6)).astype(np.float32)
    nodes, inits = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(np.asarray(a), name))
        return name

    xs, xz = np.float32(2 / 255), np.uint8(128)
    const("xs", xs)
    const("xz", xz)
    nodes.append(helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]))
    w = RNG.normal(0, 0.3, (6, 4, 3, 3)).astype(np.float32)
    ws = (np.abs(w).max(axis=(1, 2, 3)) / 127).astype(np.float32)
    const("w", np.round(w / ws.reshape(-1, 1, 1, 1)).astype(np.int8))
    const("ws", ws)
    const("wz", np.zeros(6, np.int8))
    const("b", np.round(RNG.normal(0, 0.1, 6) / (xs * ws)).astype(np.int32))
    const("ys", np.float32(0.03))
    const("yz", np.uint8(100))
    nodes.append(helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz",
                                                  "ys", "yz", "b"], ["yq"], pads=[1] * 4))
    nodes.append(helper.make_node("Reshape", ["yq", const("shape", np.array([6, 36]))],
                                  ["yr"]))
    const("m", RNG.integers(0, 256, (36, 5)).astype(np.uint8))
    const("ms", np.float32(0.004))
    const("mz", np.uint8(128))
    const("zs", np.float32(0.05))
    const("zz", np.uint8(120))
    nodes.append(helper.make_node("QLinearMatMul", ["yr", "ys", "yz", "m", "ms", "mz",
                                                    "zs", "zz"], ["z"]))
    # Dynamic quantization of a float side branch.
    nodes.append(helper.make_node("DequantizeLinear", ["z", "zs", "zz"], ["zf"]))
    nodes.append(helper.make_node("DynamicQuantizeLinear", ["zf"], ["dq", "dqs", "dqz"]))
    const("k", RNG.integers(0, 256, (5, 3)).astype(np.uint8))
    const("kz", np.uint8(131))
    nodes.append(helper.make_node("MatMulInteger", ["dq", "k", "dqz", "kz"], ["acc"]))
    nodes.append(helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT))
    const("ks", np.float32(0.01))
    nodes.append(helper.make_node("Mul", ["dqs", "ks"], ["rescale"]))
    nodes.append(helper.make_node("Mul", ["accf", "rescale"], ["y"]))
    graph = helper.make_graph(
        nodes, "qlinear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 3])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m, x


def conv_integer():
    """DynamicQuantizeLinear -> ConvInteger (3x3 over 16 channels, the shape
    a Winograd convolution takes) -> float scaling, as ONNX Runtime's dynamic
    quantization writes a Conv."""
    x = RNG.uniform(-1, 1, (1, 16, 10, 10)).astype(np.float32)
    w = RNG.integers(78, 178, (8, 16, 3, 3)).astype(np.uint8)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("ConvInteger", ["xq", "w", "xz", "wz"], ["acc"], pads=[1] * 4),
        helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["xs", "ws"], ["rescale"]),
        helper.make_node("Mul", ["accf", "rescale"], ["y"]),
    ]
    inits = [numpy_helper.from_array(w, "w"),
             numpy_helper.from_array(np.uint8(128), "wz"),
             numpy_helper.from_array(np.float32(0.02), "ws")]
    graph = helper.make_graph(
        nodes, "conv_integer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 10, 10])], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m, x


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    models = {
        "qdq_cnn_u8": qdq_cnn(np.uint8),
        "qdq_cnn_s8": qdq_cnn(np.int8),
        "qdq_mlp_s8": qdq_mlp(),
        "qlinear_ops": qlinear_ops(),
        "conv_integer": conv_integer(),
    }
    for kind in ["conv", "depthwise", "add", "mul", "avgpool", "gap", "concat", "gemm"]:
        for dtype, suffix in [(np.uint8, "u8"), (np.int8, "s8")]:
            models["layer_%s_%s" % (kind, suffix)] = layer(kind, dtype)
    # The same model with a uint8 input (after every draw from RNG, which
    # the other models' weights come from).
    cnn, x = models["qdq_cnn_u8"]
    models["qdq_cnn_u8_io"] = uint8_io(copy.deepcopy(cnn), x)
    models["depthwise_windows_s8"] = depthwise_windows()
    models["gemm_windows_s8"] = gemm_windows()
    models["gemm_small_blocks_s8"] = gemm_small_blocks()
    models["gemm_plane_runs_s8"] = gemm_plane_runs()
    manifest = {}
    for name, (model, x) in models.items():
        onnx.save(model, os.path.join(out, name + ".onnx"))
        x.tofile(os.path.join(out, name + ".input.bin"))
        manifest[name] = {"input": model.graph.input[0].name, "shape": list(x.shape)}
        if x.dtype != np.float32:
            manifest[name]["dtype"] = str(x.dtype)
        if name in ORT_UNFUSED:
            manifest[name]["ort_optimizations"] = False
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
