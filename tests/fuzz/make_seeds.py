#!/usr/bin/python3
"""Writes the fuzzers' seed corpus, corpus/onnx and corpus/tflite: small
inputs that reach far into kiln, so that mutations start from models that
compile. Every seed must compile through the front half
(//tests/fuzz:fuzz_replay_test checks it).

- onnx/gen_*.onnx: small models written here with onnx.helper (weights from a
  fixed seed), each a few layers of a kind the node tests lack: conv chains,
  residual blocks, QDQ int8, shape arithmetic, attention, recurrent, control
  flow that folds at import (an If on the input's rank, a Loop of 3).
- onnx/node_*.onnx: single-op models of ONNX's node tests (Debian's
  libonnx-testdata) whose inputs kiln takes at run time.
- tflite/*.tflite: single-op models already in the tree (tests/tflite/refs,
  cut from the MLPerf Tiny models) and hello_world.

Run from the repository root: /usr/bin/python3 tests/fuzz/make_seeds.py
(python3-onnx, python3-numpy, libonnx-testdata).
"""
import os
import shutil

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

HERE = os.path.dirname(os.path.abspath(__file__))
ONNX_DIR = os.path.join(HERE, "corpus", "onnx")
TFLITE_DIR = os.path.join(HERE, "corpus", "tflite")
NODE_TESTS = "/usr/share/libonnx-testdata/data/node"
TFLITE_LAYERS = os.path.join(HERE, "..", "tflite", "refs", "layers")
TFLITE_MODELS = os.path.join(HERE, "..", "tflite", "models")

rng = np.random.default_rng(15)


def weight(name, *shape):
    return numpy_helper.from_array(rng.uniform(-1, 1, size=shape).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def value(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def write(name, nodes, inputs, outputs, inits, opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    save(model, os.path.join(ONNX_DIR, "gen_" + name + ".onnx"))


def conv_chain():
    n = helper.make_node
    write("conv_chain", [
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        n("BatchNormalization", ["c1", "g", "beta", "mean", "var"], ["bn"]),
        n("Relu", ["bn"], ["r1"]),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        n("Conv", ["p1", "w2"], ["c2"], group=4, kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n("Clip", ["c2", "lo", "hi"], ["r2"]),
        n("GlobalAveragePool", ["r2"], ["gap"]),
        n("Flatten", ["gap"], ["f"]),
        n("Gemm", ["f", "wf", "bf"], ["logits"], transB=1),
        n("Softmax", ["logits"], ["y"]),
    ], [value("x", [1, 1, 8, 8])], [value("y", [1, 3])], [
        weight("w1", 4, 1, 3, 3), weight("b1", 4), weight("g", 4), weight("beta", 4),
        weight("mean", 4), numpy_helper.from_array(np.ones(4, np.float32), "var"),
        weight("w2", 4, 1, 3, 3), numpy_helper.from_array(np.float32(0), "lo"),
        numpy_helper.from_array(np.float32(6), "hi"), weight("wf", 3, 4), weight("bf", 3),
    ])


def residual():
    n = helper.make_node
    write("residual", [
        n("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], strides=[1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("Conv", ["r1", "w2"], ["c2"], pads=[0, 0, 0, 0]),
        n("Add", ["c2", "x"], ["s"]),
        n("Sigmoid", ["s"], ["sg"]),
        n("Mul", ["s", "sg"], ["swish"]),
        n("Resize", ["swish", "", "scales"], ["up"], mode="nearest"),
        n("AveragePool", ["up"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
          count_include_pad=0),
    ], [value("x", [1, 2, 4, 4])], [value("y", [1, 2, 8, 8])], [
        weight("w1", 2, 2, 3, 3), weight("w2", 2, 2, 1, 1),
        numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"),
    ])


def qdq_conv():
    n = helper.make_node
    scale = numpy_helper.from_array(np.float32(0.05), "s")
    zero = numpy_helper.from_array(np.int8(0), "z")
    wq = numpy_helper.from_array(rng.integers(-127, 127, size=(3, 2, 3, 3)).astype(np.int8), "wq")
    ws = numpy_helper.from_array(np.float32(0.01), "ws")
    write("qdq_conv", [
        n("QuantizeLinear", ["x", "s", "z"], ["xq"]),
        n("DequantizeLinear", ["xq", "s", "z"], ["xd"]),
        n("DequantizeLinear", ["wq", "ws", "z"], ["wd"]),
        n("Conv", ["xd", "wd"], ["c"], pads=[1, 1, 1, 1]),
        n("Relu", ["c"], ["r"]),
        n("QuantizeLinear", ["r", "s", "z"], ["rq"]),
        n("DequantizeLinear", ["rq", "s", "z"], ["y"]),
    ], [value("x", [1, 2, 5, 5])], [value("y", [1, 3, 5, 5])], [scale, zero, wq, ws])


def shape_arith():
    n = helper.make_node
    write("shape_arith", [
        n("Shape", ["x"], ["shp"]),
        n("Gather", ["shp", "zero"], ["batch"], axis=0),
        n("Unsqueeze", ["batch", "axes"], ["b1"]),
        n("Concat", ["b1", "minus1"], ["newshape"], axis=0),
        n("Reshape", ["x", "newshape"], ["flat"]),
        n("Slice", ["flat", "starts", "ends", "axes1"], ["sl"]),
        n("Pad", ["sl", "pads"], ["pd"], mode="reflect"),
        n("Transpose", ["pd"], ["t"], perm=[1, 0]),
        n("ReduceSum", ["t", "axes"], ["y"], keepdims=1),
    ], [value("x", [2, 3, 4])], [value("y", [1, 2])], [
        ints("zero", 0), ints("axes", [0]), ints("minus1", [-1]), ints("starts", [1]),
        ints("ends", [9]), ints("axes1", [1]), ints("pads", [0, 1, 0, 1]),
    ])


def attention():
    n = helper.make_node
    write("attention", [
        n("MatMul", ["x", "wq"], ["q"]),
        n("MatMul", ["x", "wk"], ["k"]),
        n("Transpose", ["k"], ["kt"], perm=[1, 0]),
        n("MatMul", ["q", "kt"], ["att"]),
        n("Div", ["att", "scale"], ["atts"]),
        n("Softmax", ["atts"], ["p"], axis=-1),
        n("MatMul", ["p", "x"], ["o"]),
        n("LayerNormalization", ["o", "gamma", "beta"], ["ln"], axis=-1),
        n("Erf", ["ln"], ["e"]),
        n("Where", ["cond", "ln", "e"], ["y"]),
    ], [value("x", [4, 8])], [value("y", [4, 8])], [
        weight("wq", 8, 8), weight("wk", 8, 8),
        numpy_helper.from_array(np.float32(2.83), "scale"), weight("gamma", 8), weight("beta", 8),
        numpy_helper.from_array(rng.integers(0, 2, size=(4, 8)).astype(bool), "cond"),
    ], opset=17)


def recurrent():
    n = helper.make_node
    write("recurrent", [
        n("LSTM", ["x", "w", "r", "b"], ["", "h"], hidden_size=3),
        n("Squeeze", ["h", "axes"], ["h2"]),
        n("Tanh", ["h2"], ["y"]),
    ], [value("x", [4, 1, 2])], [value("y", [1, 3])], [
        weight("w", 1, 12, 2), weight("r", 1, 12, 3), weight("b", 1, 24), ints("axes", [0]),
    ])


def control_flow():
    n = helper.make_node
    body = helper.make_graph([
        n("Add", ["acc_in", "w"], ["acc_out"]),
        n("Relu", ["acc_out"], ["scan_out"]),
    ], "body", [value("i", [], TensorProto.INT64), value("c", [], TensorProto.BOOL),
                value("acc_in", [1, 4])],
        [value("c", [], TensorProto.BOOL), value("acc_out", [1, 4]), value("scan_out", [1, 4])])
    then_branch = helper.make_graph([n("Sigmoid", ["sum"], ["t"])], "then", [],
                                    [value("t", [1, 4])])
    else_branch = helper.make_graph([n("Neg", ["sum"], ["e"])], "else", [],
                                    [value("e", [1, 4])])
    write("control_flow", [
        n("Loop", ["m", "", "x"], ["sum", "scans"], body=body),
        n("Shape", ["x"], ["shape"]),
        n("Size", ["shape"], ["rank"]),
        n("Equal", ["rank", "two"], ["is_2d"]),
        n("If", ["is_2d"], ["y"], then_branch=then_branch, else_branch=else_branch),
    ], [value("x", [1, 4])], [value("y", [1, 4]), value("scans", [3, 1, 4])], [
        weight("w", 1, 4), ints("m", 3), ints("two", 2),
    ])


# Node tests whose inputs are all data (no shapes or axes as graph inputs).
NODE_SEEDS = [
    "test_averagepool_2d_ceil", "test_basic_conv_with_padding", "test_batchnorm_example",
    "test_concat_3d_axis_1", "test_conv_with_strides_and_asymmetric_padding",
    "test_convtranspose_pads", "test_depthtospace_crd_mode", "test_einsum_batch_matmul",
    "test_gather_0", "test_gemm_all_attributes", "test_globalmaxpool", "test_gru_defaults",
    "test_instancenorm_example", "test_leakyrelu", "test_lrn", "test_matmul_3d",
    "test_maxpool_2d_pads", "test_pow_bcast_array", "test_reduce_log_sum_exp_default_axes_keepdims_example",
    "test_softmax_axis_1", "test_transpose_all_permutations_3", "test_where_example",
]


def copy_node_tests():
    for name in NODE_SEEDS:
        shutil.copy(os.path.join(NODE_TESTS, name, "model.onnx"),
                    os.path.join(ONNX_DIR, "node_" + name[len("test_"):] + ".onnx"))


# One small single-op model per TFLite op kind the tree has, and a whole model.
TFLITE_SEEDS = {
    "layers/ops/6": "relu", "layers/ops/10": "hard_swish", "layers/ops/12": "quantize",
    "layers/ops/14": "dequantize", "layers/ops/20": "average_pool", "layers/ops/21": "pad",
    "layers/ops/22": "transpose", "layers/ops/23": "strided_slice", "layers/ops/25": "reshape",
    "layers/ops/26": "mean", "layers/ops/27": "add", "layers/ops/29": "mul",
    "layers/ops/30": "softmax", "layers/ops/36": "concatenation", "layers/ops/37": "max_pool",
    "layers/hello_world_int8/2": "fully_connected",
    "layers/micro_speech_quantized/1": "depthwise_conv",
    "layers/vww_96_int8/0": "conv", "models/hello_world_int8": "hello_world_int8",
    "models/hello_world_float": "hello_world_float",
}


def copy_tflite():
    for src, name in TFLITE_SEEDS.items():
        kind, path = src.split("/", 1)
        root = TFLITE_LAYERS if kind == "layers" else TFLITE_MODELS
        shutil.copy(os.path.join(root, path + ".tflite"), os.path.join(TFLITE_DIR, name + ".tflite"))


def main():
    for d in (ONNX_DIR, TFLITE_DIR):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    for make in (conv_chain, residual, qdq_conv, shape_arith, attention, recurrent, control_flow):
        make()
    copy_node_tests()
    copy_tflite()


if __name__ == "__main__":
    main()
