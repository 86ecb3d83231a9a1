#!/usr/bin/python3
"""Writes opset_cases/: what ONNX opsets 18 to 22 changed (and model-local
functions, which exporters at those opsets write; RoiAlign beyond the two
node tests ONNX 1.12 has; RNN, GRU and LSTM with other activations than their
defaults, which no node test has; Loops that kiln unrolls), as cases in the
layout of ONNX's node tests (CASE/model.onnx, CASE/test_data_set_0/input_K.pb
and output_K.pb), for //tests/conformance:opset_cases_test.

Debian's ONNX (1.12) stops at opset 17 and has no test data past it, so each
model is written here by hand (onnx.helper, no checker: its schemas stop at
17 too) with seeded random inputs, and ONNX Runtime (onnxruntime-node, which
implements opsets up to 23) computes the outputs: the oracle is independent
of kiln. The values that decide shapes (axes, pads, sizes) are initializers.
Two whole networks, the suite's vit_tiny and transformer_encoder rewritten
as torch.export's exporter writes them at opset 20, keep their PyTorch
outputs (bundles/models) as the expected ones.
ORT computes in float32, and the runner holds every case to ONNX's
tolerance (1e-7 + 1e-3 |expected|), so inputs keep away from outputs that
cancel to near zero (GELU's far negative tail, the imaginary part of a real
signal's DFT at 0 and N/2), where float32 rounding alone is above 1e-7.

usage: ORT_DIR=/tmp/ort make_opset_cases.py [OUT_DIR]
  (needs python3-onnx, numpy, node and onnxruntime-node in $ORT_DIR, see
  ../shared/bench/README.md; OUT_DIR defaults to opset_cases/ beside this)
"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "opset_cases")
rng = np.random.default_rng(18)

F32, I64 = np.float32, np.int64
ORT_TYPES = {F32: "float32", I64: "int64", np.int8: "int8", np.uint8: "uint8"}


def randn(*shape):
    return rng.standard_normal(shape).astype(F32)


def ints(*v):
    return np.array(v, dtype=I64)


# name: (opset, nodes, run-time inputs {name: array}, initializers
# {name: array}, outputs [(name, elem type)]).
CASES = {}


def case(name, opset, nodes, inputs, inits=None, outputs=(("y", TensorProto.FLOAT),),
         functions=()):
    CASES[name] = (opset, nodes if isinstance(nodes, list) else [nodes], inputs, inits or {},
                   list(outputs), list(functions))


# Opset 18: the reductions take axes as an input, as ReduceSum did from 13.
for op, keep in [("ReduceMean", 1), ("ReduceMax", 0), ("ReduceMin", 1), ("ReduceProd", 0),
                 ("ReduceL1", 1), ("ReduceL2", 0), ("ReduceLogSum", 1), ("ReduceLogSumExp", 0),
                 ("ReduceSumSquare", 1)]:
    x = np.abs(randn(2, 3, 4)) + 0.5 if op == "ReduceLogSum" else randn(2, 3, 4)
    case("%s_axes_input" % op.lower(), 18,
         helper.make_node(op, ["x", "axes"], ["y"], keepdims=keep), {"x": x}, {"axes": ints(-1, 1)})
case("reducemean_no_axes", 18, helper.make_node("ReduceMean", ["x"], ["y"]), {"x": randn(2, 3, 4)})
case("reducemax_noop_empty_axes", 18,
     helper.make_node("ReduceMax", ["x"], ["y"], noop_with_empty_axes=1), {"x": randn(2, 3, 4)})
# Split's num_outputs: equal parts, the last one smaller.
case("split_num_outputs_uneven", 18,
     helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3), {"x": randn(2, 7, 3)},
     outputs=[(n, TensorProto.FLOAT) for n in "abc"])
case("split_num_outputs_even", 18,
     helper.make_node("Split", ["x"], ["a", "b"], axis=-1, num_outputs=2), {"x": randn(2, 3, 6)},
     outputs=[(n, TensorProto.FLOAT) for n in "ab"])
# Pad's axes: pads for those axes only.
case("pad_axes_constant", 18,
     helper.make_node("Pad", ["x", "pads", "value", "axes"], ["y"], mode="constant"),
     {"x": randn(1, 2, 3, 4)}, {"pads": ints(1, 2, 0, 1), "value": np.array(0.5, F32),
                                "axes": ints(2, -1)})
case("pad_axes_reflect", 18,
     helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="reflect"),
     {"x": randn(1, 2, 4, 5)}, {"pads": ints(2, 1), "axes": ints(3)})
# Resize's axes and keep_aspect_ratio_policy.
case("resize_axes_scales", 18,
     helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear", axes=[2, 3]),
     {"x": randn(1, 2, 4, 5)}, {"scales": np.array([2.0, 1.5], F32)})
case("resize_axes_sizes_nearest", 18,
     helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest", axes=[3, 2]),
     {"x": randn(1, 2, 4, 5)}, {"sizes": ints(8, 7)})
for policy in ["not_larger", "not_smaller"]:
    case("resize_keep_aspect_%s" % policy, 18,
         helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear",
                          keep_aspect_ratio_policy=policy, axes=[2, 3]),
         {"x": randn(1, 2, 4, 6)}, {"sizes": ints(7, 8)})
case("resize_antialias_upsample", 18,
     helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear", antialias=1),
     {"x": randn(1, 1, 3, 4)}, {"scales": np.array([1, 1, 2, 2], F32)})
case("mish", 18, helper.make_node("Mish", ["x"], ["y"]), {"x": randn(3, 17) * 4})
case("groupnorm_per_group", 18,
     helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=3,
                      epsilon=1e-4),
     {"x": randn(2, 6, 4, 5)}, {"scale": randn(3), "bias": randn(3)})
# ScatterElements and ScatterND reduce by max and min, repeated indices too.
case("scatterelements_max", 18,
     helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1, reduction="max"),
     {"x": randn(3, 5), "u": randn(3, 4)}, {"i": np.array([[0, 2, 2, 4], [1, 1, 3, 0],
                                                            [4, 4, 4, 2]], I64)})
case("scatternd_min", 18,
     helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction="min"),
     {"x": randn(4, 3), "u": randn(3, 3)}, {"i": np.array([[1], [3], [1]], I64)})

# Opset 19: Pad's wrap mode, Resize's half_pixel_symmetric.
case("pad_wrap", 19, helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap"),
     {"x": randn(1, 2, 3, 4)}, {"pads": ints(0, 0, 1, 2, 0, 0, 2, 1)})
case("resize_half_pixel_symmetric", 19,
     helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear",
                      coordinate_transformation_mode="half_pixel_symmetric"),
     {"x": randn(1, 2, 4, 5)}, {"sizes": ints(1, 2, 7, 3)})
case("averagepool_dilations_one", 19,
     helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], dilations=[1, 1],
                      pads=[1, 1, 1, 1]), {"x": randn(1, 2, 5, 6)})
case("quantize_dequantize_int8", 19,
     [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
      helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
     {"x": randn(2, 8)}, {"s": np.array(0.02, F32), "z": np.array(3, np.int8)})

# Opset 20: Gelu, GridSample's renamed modes, DFT's axis input.
def gelu_inputs(*shape):
    return rng.uniform(-2.5, 4, shape).astype(F32)


case("gelu", 20, helper.make_node("Gelu", ["x"], ["y"]), {"x": gelu_inputs(4, 9)})
case("gelu_tanh", 20, helper.make_node("Gelu", ["x"], ["y"], approximate="tanh"),
     {"x": gelu_inputs(4, 9)})
case("matmul_gelu", 20,
     [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Gelu", ["h"], ["y"])],
     {"x": rng.uniform(0, 1, (5, 16)).astype(F32)},
     {"w": rng.uniform(-0.15, 0.3, (16, 24)).astype(F32)})
case("conv_gelu", 20,
     [helper.make_node("Conv", ["x", "w"], ["h"]), helper.make_node("Gelu", ["h"], ["y"])],
     {"x": np.abs(randn(1, 4, 5, 5))}, {"w": np.abs(randn(6, 4, 1, 1)) * 0.3})
for mode in ["linear", "nearest", "cubic"]:
    case("gridsample_%s" % mode, 20,
         helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode),
         {"x": randn(1, 2, 4, 5), "grid": rng.uniform(-1.1, 1.1, (1, 3, 6, 2)).astype(F32)})
case("dft_axis_input", 20, helper.make_node("DFT", ["x", "", "axis"], ["y"]),
     {"x": randn(2, 8, 3, 2)}, {"axis": np.array(1, I64)})
case("dft_default_axis", 20, helper.make_node("DFT", ["x"], ["y"]), {"x": randn(2, 3, 6, 2)})

# Opset 21: GroupNormalization's scale and bias per channel.
case("groupnorm_per_channel", 21,
     helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=2),
     {"x": randn(1, 4, 3, 3)}, {"scale": randn(4), "bias": randn(4)})

# Opset 22: only types were added; a small network at 22.
case("conv_net", 22,
     [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
      helper.make_node("Relu", ["c"], ["r"]),
      helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
      helper.make_node("ReduceMean", ["p", "axes"], ["m"], keepdims=0),
      helper.make_node("Gemm", ["m", "fw"], ["y"])],
     {"x": randn(1, 3, 8, 8)},
     {"w": randn(4, 3, 3, 3) * 0.5, "b": randn(4), "axes": ints(2, 3), "fw": randn(4, 5)})

# GELU's tanh form after a MatMul: fused into its epilogue (GeluTanh).
case("matmul_gelu_tanh", 20,
     [helper.make_node("MatMul", ["x", "w"], ["h"]),
      helper.make_node("Gelu", ["h"], ["y"], approximate="tanh")],
     {"x": rng.uniform(0, 1, (5, 16)).astype(F32)},
     {"w": rng.uniform(-0.15, 0.3, (16, 24)).astype(F32)})

# Model-local functions (IR 8; attribute defaults IR 9), as PyTorch's dynamo
# exporter (2.1 to 2.5) and onnxscript write them. ONNX 1.12's protobufs lack
# FunctionProto.attribute_proto (field 11), so a default is appended to the
# serialized function as that field, which the Python parser keeps as unknown.
FN = "kiln.test"


def ref_attr(name, ref, kind):
    a = onnx.AttributeProto()
    a.name, a.ref_attr_name, a.type = name, ref, kind
    return a


def with_defaults(fn, **defaults):
    extra = b""
    for k, v in defaults.items():
        body = helper.make_attribute(k, v).SerializeToString()
        n, varint = len(body), b""
        while True:
            varint += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
            n >>= 7
            if not n:
                break
        extra += bytes([11 << 3 | 2]) + varint + body
    out = onnx.FunctionProto()
    out.ParseFromString(fn.SerializeToString() + extra)
    return out


def function(name, inputs, outputs, nodes, attributes=(), **defaults):
    fn = helper.make_function(FN, name, inputs, outputs, nodes,
                              [helper.make_opsetid("", 18), helper.make_opsetid(FN, 1)],
                              list(attributes))
    return with_defaults(fn, **defaults)


leaky = helper.make_node("LeakyRelu", ["t"], ["y"])
leaky.attribute.append(ref_attr("alpha", "slope", onnx.AttributeProto.FLOAT))
linear_act = function(
    "LinearAct", ["x", "w", "b"], ["y", "pre"],
    [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["t"]),
     leaky, helper.make_node("Identity", ["t"], ["pre"])], slope=0.25)
inner = helper.make_node("LinearAct", ["x", "w", "b"], ["h", "p"], domain=FN)
inner.attribute.append(ref_attr("slope", "slope", onnx.AttributeProto.FLOAT))
residual = function(
    "Residual", ["x", "w", "b"], ["y"],
    [inner, helper.make_node("Add", ["x", "h"], ["y"])], attributes=["slope"])
case("local_functions", 18,
     [helper.make_node("LinearAct", ["x", "w1", "b1"], ["h1", "pre1"], domain=FN, slope=0.05),
      helper.make_node("LinearAct", ["h1", "w2", "b2"], ["h2", "pre2"], domain=FN),
      helper.make_node("Residual", ["h2", "w3", "b3"], ["r"], domain=FN, slope=0.5),
      helper.make_node("Residual", ["r", "w3", "b3"], ["y"], domain=FN),
      helper.make_node("Relu", ["pre2"], ["z"])],
     {"x": randn(3, 8)},
     {"w1": randn(8, 6), "b1": randn(6), "w2": randn(6, 6), "b2": randn(6),
      "w3": randn(6, 6) * 0.5, "b3": randn(6)},
     outputs=[("y", TensorProto.FLOAT), ("z", TensorProto.FLOAT)],
     functions=[linear_act, residual])

# RoiAlign past ONNX 1.12's two node tests (avg, a grid of 2): max, the
# adaptive grid over regions across the edges, larger than the image and
# reversed, and RoiAlign-10, whose regions are output_half_pixel ones.
roi_inputs = {"x": randn(2, 3, 10, 12),
              "rois": np.array([[1, 2, 7.5, 8], [-3, 6, 5, 14], [-20, -15, 30, 25], [9, 7, 2, 1]],
                               F32),
              "batch": np.array([0, 1, 1, 0], I64)}
case("roialign_max_adaptive", 16,
     helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], mode="max", output_height=3,
                      output_width=2, spatial_scale=0.75), roi_inputs)
case("roialign_opset10", 10,
     helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], output_height=3, output_width=4,
                      sampling_ratio=2, spatial_scale=0.5), roi_inputs)

# Recurrent activations other than the defaults (ONNX 1.12's node tests use
# only those): PyTorch writes Relu for nn.RNN(nonlinearity='relu'); the
# parameters are consumed in order by the activations that take them.
def recurrent_case(name, op, gates, activations, direction="forward", **attrs):
    dirs = 2 if direction == "bidirectional" else 1
    case(name, 14,
         helper.make_node(op, ["x", "w", "r", "b"], ["y", "y_h"], hidden_size=4,
                          direction=direction, activations=activations, **attrs),
         {"x": randn(5, 2, 3)},
         {"w": randn(dirs, gates * 4, 3) * 0.5, "r": randn(dirs, gates * 4, 4) * 0.5,
          "b": randn(dirs, 2 * gates * 4) * 0.5},
         outputs=[("y", TensorProto.FLOAT), ("y_h", TensorProto.FLOAT)])


recurrent_case("rnn_relu", "RNN", 1, ["Relu"])
recurrent_case("rnn_softplus_bidirectional", "RNN", 1, ["Softplus", "Softplus"], "bidirectional")
recurrent_case("rnn_thresholded_relu_reverse", "RNN", 1, ["ThresholdedRelu"], "reverse",
               activation_alpha=[0.2])
recurrent_case("gru_hardsigmoid_leakyrelu_bidirectional", "GRU", 3,
               ["HardSigmoid", "LeakyRelu", "HardSigmoid", "LeakyRelu"], "bidirectional",
               activation_alpha=[0.3, 0.05, 0.3, 0.05], activation_beta=[0.4, 0.4])
recurrent_case("lstm_sigmoid_softsign_elu", "LSTM", 4, ["Sigmoid", "Softsign", "Elu"],
               activation_alpha=[0.7])


# Loops whose trip count and condition fold at import (kiln unrolls them; PyTorch
# exports nn.EmbeddingBag as one): a loop-carried sum, a scan output, the body
# reading x from the outer scope; the condition, when there is one, computed
# from the iteration number.
def loop_body(condition):
    nodes = [helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
             helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["acc_out", "i_f"], ["scan_out"]),
             helper.make_node("Less", ["i", "limit"], ["c_out"]) if condition
             else helper.make_node("Identity", ["c_in"], ["c_out"])]
    value = helper.make_tensor_value_info
    return helper.make_graph(
        nodes, "body",
        [value("i", TensorProto.INT64, []), value("c_in", TensorProto.BOOL, []),
         value("acc_in", TensorProto.FLOAT, [2, 3])],
        [value("c_out", TensorProto.BOOL, []), value("acc_out", TensorProto.FLOAT, [2, 3]),
         value("scan_out", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.array(2, I64), "limit")] if condition else [])


loop_outputs = [("y", TensorProto.FLOAT), ("scan", TensorProto.FLOAT)]
case("loop_trip_count", 16,
     helper.make_node("Loop", ["m", "", "acc0"], ["y", "scan"], body=loop_body(False)),
     {"x": randn(2, 3), "acc0": randn(2, 3)}, {"m": np.array(4, I64)}, outputs=loop_outputs)
case("loop_condition", 16,
     helper.make_node("Loop", ["m", "cond", "acc0"], ["y", "scan"], body=loop_body(True)),
     {"x": randn(2, 3), "acc0": randn(2, 3)}, {"m": np.array(10, I64), "cond": np.array(True)},
     outputs=loop_outputs)


def elem_type(a):
    return helper.np_dtype_to_tensor_dtype(a.dtype) if hasattr(helper, "np_dtype_to_tensor_dtype") \
        else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype]


def write_case(name, opset, nodes, inputs, inits, outputs, functions):
    d = os.path.join(OUT, "test_" + name)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(k, elem_type(v), v.shape) for k, v in inputs.items()],
        [helper.make_tensor_value_info(k, t, None) for k, t in outputs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(FN, 1)] if functions else [])
    model = helper.make_model(graph, opset_imports=imports, producer_name="make_opset_cases.py")
    model.functions.extend(functions)
    model.ir_version = 10 if opset >= 21 else 9 if opset >= 19 or functions else 8
    onnx.save(model, os.path.join(d, "model.onnx"))
    feeds = []
    for k, (n, v) in enumerate(inputs.items()):
        onnx.save_tensor(numpy_helper.from_array(v, n),
                         os.path.join(d, "test_data_set_0", "input_%d.pb" % k))
        raw = os.path.join(d, "test_data_set_0", "input_%d.raw" % k)
        v.astype(v.dtype.newbyteorder("<")).tofile(raw)
        feeds.append({"name": n, "type": ORT_TYPES[v.dtype.type], "dims": list(v.shape), "file": raw})
    return {"model": os.path.join(d, "model.onnx"), "inputs": feeds,
            "outputs": [n for n, _ in outputs]}


NP_OF_ORT = {"float32": F32, "int64": I64, "int8": np.int8, "uint8": np.uint8}

shutil.rmtree(OUT, ignore_errors=True)
manifest = [write_case(name, *spec) for name, spec in sorted(CASES.items())]
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f)
subprocess.run(["node", os.path.join(HERE, "ort_outputs.js"), os.path.join(OUT, "manifest.json")],
               check=True)
for c in manifest:
    d = os.path.dirname(c["model"])
    for i in range(len(c["inputs"])):
        os.remove(os.path.join(d, "test_data_set_0", "input_%d.raw" % i))
    for k, name in enumerate(c["outputs"]):
        base = os.path.join(d, "output_%d" % k)
        meta = json.load(open(base + ".json"))
        v = np.fromfile(base + ".bin", dtype=NP_OF_ORT[meta["type"]]).reshape(meta["dims"])
        onnx.save_tensor(numpy_helper.from_array(v, name),
                         os.path.join(d, "test_data_set_0", "output_%d.pb" % k))
        os.remove(base + ".bin")
        os.remove(base + ".json")
os.remove(os.path.join(OUT, "manifest.json"))


# Whole networks as torch.export's exporter writes them at opset 20 (the
# reductions' axes as inputs, equal Splits as num_outputs, GELU as one Gelu
# op), upgraded from the suite's models in bundles/models; the expected
# outputs are those models' PyTorch outputs.
MODELS = os.path.join(HERE, "..", "..", "bundles", "models")


def upgrade_to_opset20(model):
    g = model.graph
    consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    for n in g.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
    users = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, []).append(n)
    dropped = set()
    for n in g.node:
        axes = [a for a in n.attribute if a.name == "axes"]
        if n.op_type.startswith("Reduce") and n.op_type != "ReduceSum" and axes:
            name = n.output[0] + "_axes"
            g.initializer.append(numpy_helper.from_array(np.array(axes[0].ints, I64), name))
            n.attribute.remove(axes[0])
            n.input.append(name)
        if n.op_type == "Split" and len(n.input) > 1 and n.input[1] in consts:
            split = consts[n.input[1]].tolist()
            if len(set(split)) == 1:
                del n.input[1:]
                n.attribute.append(helper.make_attribute("num_outputs", len(split)))
        if n.op_type == "Erf":
            # Div(x, sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5 becomes Gelu(x).
            div = next(p for p in g.node if n.input[0] in p.output)
            add = users[n.output[0]][0]
            times_x = users[add.output[0]][0]
            half = users[times_x.output[0]][0]
            assert [div.op_type, add.op_type, times_x.op_type, half.op_type] == \
                ["Div", "Add", "Mul", "Mul"] and div.input[0] in times_x.input
            dropped |= {id(div), id(n), id(add), id(times_x)}
            half.op_type = "Gelu"
            del half.input[:]
            half.input.append(div.input[0])
    kept = [n for n in g.node if id(n) not in dropped]
    del g.node[:]
    g.node.extend(kept)
    model.opset_import[0].version = 20
    model.ir_version = 9
    return model


def write_upgraded(name):
    meta = json.load(open(os.path.join(MODELS, "manifest.json")))[name]
    d = os.path.join(OUT, "test_%s_opset20" % name)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    model = upgrade_to_opset20(onnx.load(os.path.join(MODELS, name + ".onnx")))
    assert "Gelu" in {n.op_type for n in model.graph.node}
    onnx.save(model, os.path.join(d, "model.onnx"))
    for kind, shape, t in [("input", meta["input_shape"], meta["input_name"]),
                           ("output", meta["output_shape"], meta["output_name"])]:
        v = np.fromfile(os.path.join(MODELS, "%s.%s.bin" % (name, kind)), F32).reshape(shape)
        onnx.save_tensor(numpy_helper.from_array(v, t),
                         os.path.join(d, "test_data_set_0", "%s_0.pb" % kind))


for name in ["vit_tiny", "transformer_encoder"]:
    write_upgraded(name)
print("wrote %d cases and 2 networks to %s" % (len(manifest), OUT))
