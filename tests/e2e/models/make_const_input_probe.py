#!/usr/bin/python3
"""Writes const_input_probe.onnx, the .npy files that bind its shape inputs
(kiln_bundle's const_inputs, kilnc --const-input) and its reference
input/output (raw little-endian float32). Its Reshape's shape and its Pad's
pads are graph inputs, as in models that feed shapes as data; the reference
output is computed here with numpy, independently of kiln.

    y = pad(relu(reshape(x, shape)), pads, 0.5)

Run from this directory: /usr/bin/python3 make_const_input_probe.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper

rng = np.random.default_rng(11)
x = rng.uniform(-2, 2, size=(1, 24)).astype(np.float32)
shape = np.array([1, 4, 6], dtype=np.int64)
pads = np.array([0, 1, 0, 0, 0, 2], dtype=np.int64)

nodes = [
    helper.make_node("Reshape", ["x", "shape"], ["r"]),
    helper.make_node("Relu", ["r"], ["a"]),
    helper.make_node("Pad", ["a", "pads", "half"], ["y"], mode="constant"),
]
graph = helper.make_graph(
    nodes, "const_input_probe",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 24]),
     helper.make_tensor_value_info("shape", TensorProto.INT64, [3]),
     helper.make_tensor_value_info("pads", TensorProto.INT64, [6])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, 8])],
    initializer=[helper.make_tensor("half", TensorProto.FLOAT, [], [0.5])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, "const_input_probe.onnx")
np.save("const_input_probe.shape.npy", shape)
np.save("const_input_probe.pads.npy", pads)

a = np.maximum(x.reshape(shape), 0)
y = np.pad(a, [(0, 0), (1, 0), (0, 2)], constant_values=0.5).astype(np.float32)
assert y.shape == (1, 5, 8)
x.tofile("const_input_probe.input.bin")
y.tofile("const_input_probe.output.bin")
