#!/usr/bin/python3
"""Writes fusion_probe.onnx and its reference input/output (raw little-endian
float32): a small graph made of what the LIR fusions and the layout pass
rewrite and the six models lack, so that the end-to-end suites (host,
AArch64, Cortex-M, under QEMU) run that code. The reference output is
computed here with numpy, independently of kiln.

    c = sigmoid(x) * 2 + x          elementwise chain, scalar and full operands
    t = tanh(x * w)                 chain with a per-channel broadcast operand
    d = relu(-x)
    cat = concat(c, t, d, axis=1)   contiguous, aligned slices: no copy
    s = transpose(sigmoid(transpose(cat, NHWC)), NCHW)   sinks and cancels
    y = s * s                       sigmoid(cat) in place over cat

Run from this directory: /usr/bin/python3 make_fusion_probe.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)
x = rng.uniform(-2, 2, size=(1, 8, 4, 4)).astype(np.float32)
w = rng.uniform(-1, 1, size=(8, 1, 1)).astype(np.float32)

nodes = [
    helper.make_node("Sigmoid", ["x"], ["s1"]),
    helper.make_node("Mul", ["s1", "two"], ["m1"]),
    helper.make_node("Add", ["m1", "x"], ["c"]),
    helper.make_node("Mul", ["x", "w"], ["m2"]),
    helper.make_node("Tanh", ["m2"], ["t"]),
    helper.make_node("Neg", ["x"], ["n"]),
    helper.make_node("Relu", ["n"], ["d"]),
    helper.make_node("Concat", ["c", "t", "d"], ["cat"], axis=1),
    helper.make_node("Transpose", ["cat"], ["nhwc"], perm=[0, 2, 3, 1]),
    helper.make_node("Sigmoid", ["nhwc"], ["s2"]),
    helper.make_node("Transpose", ["s2"], ["s"], perm=[0, 3, 1, 2]),
    helper.make_node("Mul", ["s", "s"], ["y"]),
]
graph = helper.make_graph(
    nodes, "fusion_probe",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 4, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 24, 4, 4])],
    initializer=[numpy_helper.from_array(np.array(2.0, np.float32), "two"),
                 numpy_helper.from_array(w, "w")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, "fusion_probe.onnx")


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


c = sigmoid(x) * 2 + x
t = np.tanh(x * w)
d = np.maximum(-x, 0)
cat = np.concatenate([c, t, d], axis=1)
s = sigmoid(cat)
y = (s * s).astype(np.float32)
x.tofile("fusion_probe.input.bin")
y.tofile("fusion_probe.output.bin")
