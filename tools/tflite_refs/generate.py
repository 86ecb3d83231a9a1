#!/usr/bin/python3
"""Reference inputs and outputs for the TFLite test models, from an independent oracle.

Runs every model of tests/tflite/models/ that Arm NN's reference backend (CpuRef, through
pyarmnn) accepts on 2 deterministic inputs each and writes, into tests/tflite/refs/:

  <model>.<k>.input.bin    the input tensor, raw little-endian bytes in the tensor's own dtype
  <model>.<k>.output.bin   Arm NN CpuRef's output for it, same encoding (k = 0, 1)
  manifest.txt             one line per file: file, model, sample, kind, tensor name, dtype,
                           shape, scale, zero point, min, max, notes

Layout is the model's own (NHWC for images), each file exactly the tensor's size.

Then, layer by layer (layers.py): for sample 0 of each int8 model, every operator alone as a
single-op model tests/tflite/refs/layers/<model>/<k>.tflite, with its inputs (Arm NN's outputs
of the previous single-op models, chained) and Arm NN's output, listed in
tests/tflite/refs/layers/manifest.txt. Arm NN's quantized kernels compute through float; one
op at a time their results stay within a step of TFLite's integer ones, while over a whole
network the steps accumulate, so tests compare each op on its own.

Then (ops.py) one synthetic single-op model per case of each builtin op kiln imports (int8 with
varied quantization, and float32), built from scratch, in tests/tflite/refs/layers/ops/ with the
same layout, rows appended to the same manifest. Last (int8_lstm.py), single-op integer LSTMs
derived from trained_lstm_int8's, edited to take the paths its refs miss (saturation, the cell
clip, zero points, batch > 1, time-major, other cell scales and shapes), in
tests/tflite/refs/layers/int8_lstm/, outputs from integer_lstm_oracle.py.

Inputs (fixed seeds, numpy's PCG64):
  * Each model family (int8 + float variants of one network) draws real values over one
    range: by default the full real range of the family's int8 input quantization; for
    hello_world [0, 2*pi] (the sin model's domain), for kws [-5, 5] (its full range saturates
    the softmax). The int8 model gets them quantized with its own scale/zero point; the float
    model gets the dequantized values of those same int8 codes, so the two variants of a
    family see exactly the same real input.
  * Uniform i.i.d. values, except for the image models vww and resnet: smooth random images
    (bilinear upsampling of a random 7x7 grid per channel, values over the range), whose
    scores are less saturated and spread over more classes than those of i.i.d. pixels.
  * person_detect (which Arm NN rejects) gets its two real test images, person.bmp and
    no_person.bmp, as TFLM feeds them: the pixel bytes top-down (BMP stores rows bottom-up),
    reinterpreted as int8. Inputs only; the manifest notes the expected ordering of scores.

Models Arm NN 22 (Debian's 20.08 build) rejects are listed in REJECTED with the reason; the
script checks that they are still rejected. The hybrid kws_ref_model_float32 (int8 weights,
float32 activations; in TWIN) then runs as a twin whose int8 weights are float32 holding their
dequantized values, the weights kiln computes it with. The float trained_lstm runs on
float_oracle.py (TFLite's float kernels in numpy); the int8 trained_lstm_int8 (INTEGER_ORACLE) op
by op: its LSTM on integer_lstm_oracle.py (TFLM's integer kernel in numpy, bit-exact), the ops
after it on Arm NN, each cut out as a single-op model (layers.chain).

Run:   tools/install_deps.sh oracle    # Arm NN, numpy, flatbuffers, flatc
       /usr/bin/python3 tools/tflite_refs/generate.py
(from anywhere; paths are relative to this file). Re-running gives identical bytes; the script
re-reads every file it wrote and compares it with what it meant to write.
"""

import collections
import os
import struct
import sys
import tempfile
import time
import zlib

import numpy as np
import flatbuffers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import float_oracle  # noqa: E402  (tools/tflite_refs/float_oracle.py)
import integer_lstm_oracle  # noqa: E402  (tools/tflite_refs/integer_lstm_oracle.py)
import layers  # noqa: E402  (tools/tflite_refs/layers.py)
import ops  # noqa: E402  (tools/tflite_refs/ops.py)
import int8_lstm  # noqa: E402  (tools/tflite_refs/int8_lstm.py)
from flatbuffers import number_types as N
from flatbuffers.table import Table

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MODELS_DIR = os.path.join(ROOT, "tests", "tflite", "models")
REFS_DIR = os.path.join(ROOT, "tests", "tflite", "refs")
LAYERS_DIR = os.path.join(REFS_DIR, "layers")
SCHEMA = os.path.join(ROOT, "compiler", "frontend", "tflite", "TFLiteSchema.fbs")
SAMPLES = 2
BASE_SEED = 20240611

# model -> (family, input distribution). Families share real input values.
RUN = {
    "hello_world_int8": ("hello_world", "uniform"),
    "hello_world_float": ("hello_world", "uniform"),
    "micro_speech_quantized": ("micro_speech", "uniform"),
    "kws_ref_model": ("kws", "uniform"),
    "vww_96_int8": ("vww", "smooth_image"),
    "vww_96_float": ("vww", "smooth_image"),
    "pretrainedResnet_quant": ("resnet", "smooth_image"),
    "pretrainedResnet": ("resnet", "smooth_image"),
    "ad01_int8": ("ad01", "uniform"),
    "ad01_fp32": ("ad01", "uniform"),
    "kws_ref_model_float32": ("kws", "uniform"),   # on its dequantized-weight twin (TWIN)
    "trained_lstm": ("mnist_rows", "uniform"),      # by float_oracle.py (NUMPY_ORACLE)
    "trained_lstm_int8": ("mnist_rows", "uniform"),  # LSTM by integer_lstm_oracle.py (INTEGER_ORACLE)
}
# The int8 model whose input quantization gives each family's real range. mnist_rows has its
# own range (FAMILY_RANGE) and none: trained_lstm gets the real values themselves (as before
# trained_lstm_int8 was added), trained_lstm_int8 their codes (scale 1/255, zero point -128).
FAMILY_QUANT = {
    "hello_world": "hello_world_int8",
    "micro_speech": "micro_speech_quantized",
    "kws": "kws_ref_model",
    "vww": "vww_96_int8",
    "resnet": "pretrainedResnet_quant",
    "ad01": "ad01_int8",
}
# Ranges chosen instead of the int8 input's full range: hello_world's is the sin model's domain;
# kws's full range [-123.4, 25.7] drives the softmax into saturation (one class 127, the rest
# -128), [-5, 5] (about +-9 int8 steps around the zero point) spreads the 12 scores.
# mnist_rows: an image's 28 rows of 28 pixels as a sequence of 28 steps; pixels over [0, 1]
# saturate the softmax (0.9999 for one class, where even the LSTM's gates taken in the wrong
# order move no score by 1e-4), over [0, 0.1] the top score is about 0.85.
FAMILY_RANGE = {"hello_world": (0.0, 2.0 * np.pi), "kws": (-5.0, 5.0), "mnist_rows": (0.0, 0.1)}

# model -> (what Arm NN says, why)
REJECTED = {
    "kws_ref_model_float32": (
        "Reference Convolution2d: input and weights types mismatched",
        "not a pure float model: its 5 CONV_2D weights are int8 (dynamic-range 'hybrid' "
        "quantization) with float32 activations"),
    "person_detect": (
        "Quantization dimension for per-axis quantization expected to be 0 on tensor bias",
        "its depthwise-conv bias tensors (1-D, per-channel) carry quantized_dimension 3"),
    "trained_lstm": (
        "Operator not supported",
        "Arm NN 20.08's TfLite parser has no UNIDIRECTIONAL_SEQUENCE_LSTM"),
    "trained_lstm_int8": (
        "Operator not supported",
        "Arm NN 20.08's TfLite parser has no UNIDIRECTIONAL_SEQUENCE_LSTM"),
}
# Float models Arm NN rejects whose outputs come from float_oracle.py instead: TFLite's float
# kernels in numpy, for the ops these models use.
NUMPY_ORACLE = {"trained_lstm"}
NUMPY_NOTE = "oracle=numpy_TFLite_float_kernels(float_oracle.py)"
# int8 models Arm NN rejects for an op of layers.NUMPY_OPS: run op by op (layers.chain), those ops
# on their numpy oracle (TFLM's integer kernel, bit-exact), the others on Arm NN. FLOAT_TWIN is
# the float model of the same network, to check the integer oracle against (see check_lstm_int8).
INTEGER_ORACLE = {"trained_lstm_int8"}
INTEGER_NOTE = "oracle=numpy_TFLM_integer_LSTM(integer_lstm_oracle.py)+Arm_NN_CpuRef(other_ops)"
FLOAT_TWIN = {"trained_lstm_int8": "trained_lstm"}
# Hybrid models Arm NN rejects (int8 weights under float32 activations), run instead as a twin
# whose int8 weight tensors are float32 holding their real values, float32(scale) *
# float32(q - zero point) per channel: what kiln computes such layers with.
TWIN = {"kws_ref_model_float32"}
TWIN_NOTE = "oracle=Arm_NN_CpuRef_on_dequantized_weight_twin"
BMP_INPUTS = {"person_detect": [("person", "score[1]>score[0]"),
                                ("no_person", "score[0]>score[1]")]}

# ---------------------------------------------------------------------------------------------
# A minimal TFLite (FlatBuffers) reader: input/output tensors of subgraph 0 and their
# quantization. Field slots from tensorflow/lite/schema/schema.fbs:
#   Model { version 0, operator_codes 1, subgraphs 2, description 3, buffers 4 }
#   SubGraph { tensors 0, inputs 1, outputs 2, operators 3, name 4 }
#   Tensor { shape 0, type 1, buffer 2, name 3, quantization 4 }
#   QuantizationParameters { min 0, max 1, scale 2, zero_point 3, ..., quantized_dimension 6 }
TFL_TYPES = {0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 7: "int16",
             9: "int8"}


def _off(t, slot):
    return t.Offset(4 + 2 * slot)


def _tables(t, slot):
    o = _off(t, slot)
    if not o:
        return []
    v = t.Vector(o)
    return [Table(t.Bytes, t.Indirect(v + 4 * i)) for i in range(t.VectorLen(o))]


def _nums(t, slot, flags):
    o = _off(t, slot)
    return [] if not o else t.GetVectorAsNumpy(flags, o).tolist()


def _table(t, slot):
    o = _off(t, slot)
    return Table(t.Bytes, t.Indirect(o + t.Pos)) if o else None


def tflite_io(path):
    """Returns ([input tensor dicts], [output tensor dicts]) of subgraph 0."""
    buf = bytearray(open(path, "rb").read())
    model = Table(buf, flatbuffers.encode.Get(N.UOffsetTFlags.packer_type, buf, 0))
    sg = _tables(model, 2)[0]
    tensors = _tables(sg, 0)

    def desc(i):
        t = tensors[i]
        o = _off(t, 1)
        ttype = t.Get(N.Int8Flags, o + t.Pos) if o else 0
        name = _off(t, 3)
        q = _table(t, 4)
        scale = _nums(q, 2, N.Float32Flags) if q else []
        zp = _nums(q, 3, N.Int64Flags) if q else []
        assert len(scale) <= 1 and len(zp) <= 1, "per-axis quantized model input/output"
        return {"name": t.String(name + t.Pos).decode(),
                "shape": tuple(_nums(t, 0, N.Int32Flags)),
                "dtype": TFL_TYPES[ttype],
                "scale": float(scale[0]) if scale else None,
                "zero_point": int(zp[0]) if zp else None}

    return [desc(i) for i in _nums(sg, 1, N.Int32Flags)], [desc(i) for i in _nums(sg, 2, N.Int32Flags)]


# ---------------------------------------------------------------------------------------------
def _weights_as_float(t, data):
    """The real values of int8 weight tensor t (data: its buffer bytes), float32."""
    q = t.quantization
    axis = q.quantizedDimension if len(q.scale) > 1 else 0
    bshape = [1] * len(t.shape)
    bshape[axis] = len(q.scale)
    w = np.frombuffer(data.tobytes(), dtype=np.int8).reshape(t.shape).astype(np.int64)
    scale = np.asarray(q.scale, dtype=np.float32).reshape(bshape)
    zp = np.asarray(q.zeroPoint, dtype=np.int64).reshape(bshape)
    return scale * (w - zp).astype(np.float32)


def _hybrid_weights(mt):
    """Indices of the int8 tensors with data in a model whose activations are float."""
    sg = mt.subgraphs[0]
    return [i for i, t in enumerate(sg.tensors) if t.type == 9 and layers._has_data(mt, t)]


def dequantized_twin(S, buf, model):
    """The hybrid model `buf` with each int8 weight tensor made float32 holding its real values;
    all else the same (re-packed through the subset, after check_declared)."""
    S.check_declared(buf, model)
    mt = S.unpack(buf)
    sg = mt.subgraphs[0]
    hybrid = _hybrid_weights(mt)
    assert hybrid and all(t.type in (0, 2) for i, t in enumerate(sg.tensors) if i not in hybrid), model
    users = collections.Counter(t.buffer for t in sg.tensors)
    assert all(users[sg.tensors[i].buffer] == 1 for i in hybrid), "a weight buffer is shared"
    for i in hybrid:
        t = sg.tensors[i]
        b = mt.buffers[t.buffer]
        b.data = np.frombuffer(_weights_as_float(t, b.data).astype("<f4").tobytes(), dtype=np.uint8)
        t.type, t.quantization = 0, None
    b = flatbuffers.Builder(1 << 16)
    b.Finish(mt.Pack(b), file_identifier=b"TFL3")
    twin = bytes(b.Output())
    check_twin(S, buf, twin, hybrid)
    return twin, len(hybrid)


def load_twin(arm, path, model, io):
    """Arm NN loaded with the dequantized twin of the hybrid model at `path` (written to a
    temporary file); returns (loaded, number of weight tensors made float)."""
    S = layers.Schema(SCHEMA)
    try:
        twin, n = dequantized_twin(S, open(path, "rb").read(), model)
    finally:
        S.close()
    with tempfile.TemporaryDirectory(prefix="kiln_tflite_twin_") as tmp:
        twin_path = os.path.join(tmp, model + ".twin.tflite")
        with open(twin_path, "wb") as f:
            f.write(twin)
        assert tflite_io(twin_path) == io, model
        return arm.load(twin_path), n


def check_twin(S, buf, twin, hybrid):
    """Re-reads the twin: the original model but for the hybrid tensors, which are float32, with
    no quantization, and hold the original's dequantized values."""
    a, b = S.unpack(buf), S.unpack(twin)
    ga, gb = a.subgraphs[0], b.subgraphs[0]
    assert twin[4:8] == b"TFL3" and len(a.subgraphs) == len(b.subgraphs) == 1
    for f in ("version", "description", "operatorCodes"):
        assert layers._same(getattr(a, f), getattr(b, f)), f
    for f in ("inputs", "outputs", "operators", "name"):
        assert layers._same(getattr(ga, f), getattr(gb, f)), f
    assert len(ga.tensors) == len(gb.tensors) and len(a.buffers) == len(b.buffers)
    for i, (ta, tb) in enumerate(zip(ga.tensors, gb.tensors)):
        if i in hybrid:
            want = _weights_as_float(ta, a.buffers[ta.buffer].data).astype("<f4")
            assert tb.type == 0 and tb.quantization is None and \
                b.buffers[tb.buffer].data.tobytes() == want.tobytes(), "tensor %d" % i
            ta.type, ta.quantization = tb.type, tb.quantization
        else:
            assert layers._same(a.buffers[ta.buffer], b.buffers[tb.buffer]), "buffer of tensor %d" % i
        assert layers._same(ta, tb), "tensor %d" % i


def quantize(x, scale, zp):
    return np.clip(np.round(x / scale) + zp, -128, 127).astype(np.int8)


def dequantize(q, scale, zp):
    return ((q.astype(np.float32) - np.float32(zp)) * np.float32(scale)).astype(np.float32)


def family_range(family, io):
    if family in FAMILY_RANGE:
        return FAMILY_RANGE[family]
    t = io[FAMILY_QUANT[family]][0][0]
    return ((-128 - t["zero_point"]) * t["scale"], (127 - t["zero_point"]) * t["scale"])


def real_sample(family, dist, shape, lo, hi, k):
    """Real-valued input k of a family: the same for its int8 and float models."""
    rng = np.random.default_rng([BASE_SEED, zlib.crc32(family.encode()), k])
    if dist == "uniform":
        return rng.uniform(lo, hi, size=shape)
    if dist == "smooth_image":  # NHWC: bilinear upsampling of a coarse 7x7 random grid per channel
        n, h, w, c = shape
        g = 7
        coarse = rng.uniform(lo, hi, size=(n, g, g, c))
        ys = np.linspace(0, g - 1, h)
        xs = np.linspace(0, g - 1, w)
        y0 = np.minimum(np.floor(ys).astype(int), g - 2)
        x0 = np.minimum(np.floor(xs).astype(int), g - 2)
        fy = (ys - y0)[None, :, None, None]
        fx = (xs - x0)[None, None, :, None]
        a = coarse[:, y0][:, :, x0]
        b = coarse[:, y0][:, :, x0 + 1]
        cc = coarse[:, y0 + 1][:, :, x0]
        d = coarse[:, y0 + 1][:, :, x0 + 1]
        return (a * (1 - fy) * (1 - fx) + b * (1 - fy) * fx + cc * fy * (1 - fx) + d * fy * fx)
    raise ValueError(dist)


def make_input(model, io, k):
    family, dist = RUN[model]
    t = io[model][0][0]
    lo, hi = family_range(family, io)
    x = real_sample(family, dist, t["shape"], lo, hi, k)
    qt = t if t["dtype"] == "int8" else io[FAMILY_QUANT[family]][0][0] if family in FAMILY_QUANT else None
    notes = ["input=%s" % dist, "real_range=%.6g:%.6g" % (lo, hi)]
    if t["dtype"] == "int8":
        return quantize(x, t["scale"], t["zero_point"]), notes + ["quantized"]
    if qt is not None:  # the float model sees exactly what its int8 sibling sees
        return (dequantize(quantize(x, qt["scale"], qt["zero_point"]), qt["scale"], qt["zero_point"]),
                notes + ["on_grid_of=" + FAMILY_QUANT[family]])
    return x.astype(np.float32), notes


def bmp_as_int8(path):
    """TFLM's way: 8-bit pixel bytes top-down (PIL's tobytes), reinterpreted as int8."""
    b = open(path, "rb").read()
    assert b[:2] == b"BM"
    data_off, = struct.unpack_from("<I", b, 10)
    hdr, w, h, _, bpp, comp = struct.unpack_from("<IiiHHI", b, 14)
    assert bpp == 8 and comp == 0, (bpp, comp)
    palette = b[14 + hdr:data_off]
    assert all(palette[4 * i:4 * i + 3] == bytes([i] * 3) for i in range(len(palette) // 4)), \
        "palette is not the identity gray ramp"
    stride = (w + 3) & ~3
    rows = [b[data_off + r * stride:data_off + r * stride + w] for r in range(abs(h))]
    if h > 0:  # bottom-up
        rows.reverse()
    return np.frombuffer(b"".join(rows), dtype=np.uint8).view(np.int8)


# ---------------------------------------------------------------------------------------------
class ArmNN:
    def __init__(self):
        import pyarmnn as ann  # here, so that the reader functions above work without Arm NN
        self.ann = ann
        # One runtime for every model: destroying a runtime unregisters CpuRef for the next one.
        self.runtime = ann.IRuntime(ann.CreationOptions())
        self.version = ann.ARMNN_VERSION

    def load(self, path):
        ann = self.ann
        parser = ann.ITfLiteParser()
        net = parser.CreateNetworkFromBinaryFile(path)
        (iname,), (oname,) = parser.GetSubgraphInputTensorNames(0), parser.GetSubgraphOutputTensorNames(0)
        ib = parser.GetNetworkInputBindingInfo(0, iname)
        ob = parser.GetNetworkOutputBindingInfo(0, oname)
        opt, _ = ann.Optimize(net, [ann.BackendId("CpuRef")], self.runtime.GetDeviceSpec(),
                              ann.OptimizerOptions())
        net_id, _ = self.runtime.LoadNetwork(opt)
        return net_id, ib, ob

    def run_all(self, path, inputs, touts):
        """Loads `path` (any number of inputs and outputs), runs it once on
        inputs = {tensor name: (array, tensor dict)}, unloads it; returns the outputs (arrays of
        the dtypes of touts, the output tensor dicts in subgraph order). Checks that Arm NN's
        view of every input and output tensor (shape, quantization) is the model's."""
        ann = self.ann
        parser = ann.ITfLiteParser()
        net = parser.CreateNetworkFromBinaryFile(path)
        inames, onames = parser.GetSubgraphInputTensorNames(0), parser.GetSubgraphOutputTensorNames(0)
        assert sorted(inames) == sorted(inputs) and list(onames) == [t["name"] for t in touts], \
            (path, inames, onames)
        ibs = [parser.GetNetworkInputBindingInfo(0, n) for n in inames]
        obs = [parser.GetNetworkOutputBindingInfo(0, n) for n in onames]
        for b, t in list(zip(ibs, [inputs[n][1] for n in inames])) + list(zip(obs, touts)):
            shape, _, scale, off = ArmNN.info(b)
            assert shape == t["shape"], (path, t["name"], shape, t["shape"])
            if t["scale"] is not None:
                assert np.float32(scale) == np.float32(t["scale"]) and off == t["zero_point"], \
                    (path, t["name"], scale, off)  # exactly the model's float32 scale
        opt, _ = ann.Optimize(net, [ann.BackendId("CpuRef")], self.runtime.GetDeviceSpec(),
                              ann.OptimizerOptions())
        net_id, _ = self.runtime.LoadNetwork(opt)
        try:
            itensors = ann.make_input_tensors(ibs, [np.ascontiguousarray(inputs[n][0]) for n in inames])
            otensors = ann.make_output_tensors(obs)
            self.runtime.EnqueueWorkload(net_id, itensors, otensors)
            ys = ann.workload_tensors_to_ndarray(otensors)
            out = []
            for y, t in zip(ys, touts):
                assert str(y.dtype) == t["dtype"], (path, y.dtype, t["dtype"])
                out.append(np.frombuffer(np.ascontiguousarray(y).tobytes(), dtype=t["dtype"]).copy())
            return out
        finally:
            self.runtime.UnloadNetwork(net_id)

    @staticmethod
    def info(binding):
        ti = binding[1]
        return (tuple(ti.GetShape()[i] for i in range(ti.GetNumDimensions())), ti.GetDataType(),
                ti.GetQuantizationScale(), ti.GetQuantizationOffset())

    def run(self, loaded, x, out_dtype):
        ann = self.ann
        net_id, ib, ob = loaded
        inputs = ann.make_input_tensors([ib], [np.ascontiguousarray(x)])
        outputs = ann.make_output_tensors([ob])
        self.runtime.EnqueueWorkload(net_id, inputs, outputs)
        y = ann.workload_tensors_to_ndarray(outputs)[0]
        raw = np.ascontiguousarray(y).tobytes()
        return np.frombuffer(raw, dtype=out_dtype).copy(), str(y.dtype)


# ---------------------------------------------------------------------------------------------
MANIFEST_HEADER = "file model sample kind tensor dtype shape scale zero_point min max notes"


def manifest_line(name, model, k, kind, t, a, notes):
    scale, zp = ("%.9g" % t["scale"], str(t["zero_point"])) if t["scale"] is not None else ("-", "-")
    fields = [name, model, str(k), kind, t["name"], t["dtype"], "x".join(map(str, t["shape"])),
              scale, zp, "%.9g" % float(a.min()), "%.9g" % float(a.max()), ";".join(notes)]
    assert all(f and not any(c.isspace() for c in f) for f in fields), fields
    return " ".join(fields)


def write_checked(path, array, dtype, shape):
    """Writes raw little-endian bytes, then re-reads the file and compares (reader sanity check)."""
    a = np.ascontiguousarray(array, dtype=np.dtype(dtype).newbyteorder("<"))
    assert a.size == int(np.prod(shape)), (path, a.size, shape)
    with open(path, "wb") as f:
        f.write(a.tobytes())
    assert os.path.getsize(path) == a.size * a.itemsize, path
    back = np.fromfile(path, dtype=np.dtype(dtype).newbyteorder("<"))
    assert np.array_equal(back.reshape(shape), a.reshape(shape)), "re-read differs: " + path


def read_manifest(refs_dir=REFS_DIR):
    """How a test reads the refs: {file: (array of the file's dtype and shape, manifest fields)}."""
    out = {}
    for line in open(os.path.join(refs_dir, "manifest.txt")):
        if line.startswith("#") or not line.strip():
            continue
        f = dict(zip(MANIFEST_HEADER.split(), line.split()))
        assert len(line.split()) == len(MANIFEST_HEADER.split()), line
        shape = tuple(int(d) for d in f["shape"].split("x"))
        a = np.fromfile(os.path.join(refs_dir, f["file"]), dtype=np.dtype(f["dtype"]).newbyteorder("<"))
        out[f["file"]] = (a.reshape(shape), f)
    return out


def tflite_outputs(path):
    """Tensor indices of subgraph 0's outputs."""
    buf = bytearray(open(path, "rb").read())
    model = Table(buf, flatbuffers.encode.Get(N.UOffsetTFlags.packer_type, buf, 0))
    return _nums(_tables(model, 2)[0], 2, N.Int32Flags)


# How far the integer LSTM (dequantized) may be from the float one, in steps of its output scale.
LSTM_INT8_TOLERANCE_STEPS = 3


def check_lstm_int8(S, model, k, x, values, io):
    """The integer model against its float twin on the same real input (the int8 input's
    dequantized codes): the LSTM's outputs (dequantized) within LSTM_INT8_TOLERANCE_STEPS steps,
    the same top class. Both are the same trained network, quantized or not; wrong gate order,
    scales or state handling would be far off. Returns summary lines, with the oracle's
    parameters for sample 0."""
    fmodel = FLOAT_TWIN[model]
    buf = open(os.path.join(MODELS_DIR, model + ".tflite"), "rb").read()
    mt = S.unpack(buf)
    sg = mt.subgraphs[0]
    (ilstm,) = [op for op in sg.operators if S.op_name(mt, op) == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    P = integer_lstm_oracle.prepare(mt, ilstm)
    tin, tout = io[model][0][0], io[model][1][0]
    fvalues = {}
    fbuf = open(os.path.join(MODELS_DIR, fmodel + ".tflite"), "rb").read()
    fy = float_oracle.run(S, fbuf, dequantize(x, tin["scale"], tin["zero_point"]), fvalues)
    fmt = S.unpack(fbuf)
    (flstm,) = [op for op in fmt.subgraphs[0].operators if S.op_name(fmt, op) == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
    h_scale, h_zp = P["hidden"]
    lstm = (values[int(ilstm.outputs[0])].astype(np.float64) - h_zp) * h_scale
    d_lstm = np.abs(lstm - fvalues[int(flstm.outputs[0])]).max()
    y = (values[int(sg.outputs[0])].astype(np.float64) - tout["zero_point"]) * tout["scale"]
    d_out = np.abs(y.ravel() - fy.ravel()).max()
    assert d_lstm <= LSTM_INT8_TOLERANCE_STEPS * h_scale, (model, k, d_lstm)
    assert y.argmax() == fy.argmax(), (model, k, y.ravel(), fy.ravel())
    lines = ["%-24s sample %d vs %s (numpy float) on the same real input: LSTM max |diff| %.4g "
             "(%.2f steps), softmax max |diff| %.4g, top class %d in both" % (
                 model, k, fmodel, d_lstm, d_lstm / h_scale, d_out, int(y.argmax()))]
    if k == 0:
        lines += ["%-24s LSTM: %s" % (model, line) for line in integer_lstm_oracle.describe(P)]
    return lines


def main():
    t0 = time.time()
    integer_lstm_oracle.selftest()
    os.makedirs(REFS_DIR, exist_ok=True)
    for f in os.listdir(REFS_DIR):
        if f.endswith(".bin") or f == "manifest.txt":
            os.remove(os.path.join(REFS_DIR, f))
    io = {os.path.splitext(f)[0]: tflite_io(os.path.join(MODELS_DIR, f))
          for f in sorted(os.listdir(MODELS_DIR)) if f.endswith(".tflite")}
    arm = ArmNN()
    lines = ["# Reference inputs/outputs for tests/tflite/models, written by tools/tflite_refs/generate.py",
             "# (see tools/tflite_refs/README.md). Oracle: Arm NN %s (pyarmnn), backend CpuRef; numpy %s; seed %d."
             % (arm.version, np.__version__, BASE_SEED),
             "# Files: raw little-endian, the tensor's dtype and the model's own layout (NHWC), exactly",
             "# the tensor's size. scale/zero_point '-' = not quantized. min/max: the file's values.",
             "# %s: Arm NN rejects them (int8 weights under float32 activations); their outputs are"
             % ", ".join(sorted(TWIN)),
             "# Arm NN's on a twin whose int8 weights are float32 = float32(scale) * float32(q - zero point),",
             "# the values kiln computes such layers with (notes: %s)." % TWIN_NOTE,
             "# %s: Arm NN rejects them; their outputs are TFLite's float kernels in numpy (notes: %s)."
             % (", ".join(sorted(NUMPY_ORACLE)), NUMPY_NOTE),
             "# %s: Arm NN rejects its LSTM; run op by op, the LSTM by TFLM's integer kernel in numpy"
             % ", ".join(sorted(INTEGER_ORACLE)),
             "# (bit-exact with TFLM, state reset before each sample), the ops after it by Arm NN CpuRef"
             " (notes: %s)." % INTEGER_NOTE,
             "# " + MANIFEST_HEADER]
    written, summary = {}, []
    layer_inputs = {}  # sample-0 inputs of the models of layers.LAYER_MODELS

    def emit(name, model, k, kind, t, a, notes):
        write_checked(os.path.join(REFS_DIR, name), a, t["dtype"], t["shape"])
        written[name] = a.reshape(t["shape"])
        lines.append(manifest_line(name, model, k, kind, t, a, notes))

    for model in sorted(io):
        ins, outs = io[model]
        assert len(ins) == 1 and len(outs) == 1, model
        tin, tout = ins[0], outs[0]
        path = os.path.join(MODELS_DIR, model + ".tflite")
        oracle_notes = ["oracle=Arm_NN_CpuRef"]
        if model in REJECTED:
            try:
                arm.load(path)
            except RuntimeError as e:
                assert REJECTED[model][0] in str(e), "%s: unexpected error %s" % (model, e)
                summary.append("%-24s rejected by Arm NN: %s" % (model, REJECTED[model][0]))
            else:
                raise SystemExit("%s: Arm NN now accepts it: add it to RUN (not TWIN)" % model)
        if model in TWIN:
            loaded, n = load_twin(arm, path, model, io[model])
            oracle_notes = [TWIN_NOTE, "int8_weight_tensors_made_float32=%d" % n]
            summary.append("%-24s runs as its dequantized-weight twin (%d int8 weight tensors)" % (model, n))
        elif model in NUMPY_ORACLE:
            loaded, oracle_notes = None, [NUMPY_NOTE]
            summary.append("%-24s runs on float_oracle.py" % model)
        elif model in INTEGER_ORACLE:
            loaded, oracle_notes = None, [INTEGER_NOTE]
            summary.append("%-24s runs op by op: LSTM on integer_lstm_oracle.py, the rest on Arm NN" % model)
        elif model in REJECTED:
            for k, (image, expect) in enumerate(BMP_INPUTS.get(model, [])):
                x = bmp_as_int8(os.path.join(MODELS_DIR, image + ".bmp"))
                emit("%s.%d.input.bin" % (model, k), model, k, "input", tin, x,
                     ["from=%s.bmp" % image, "expect=" + expect, "no_output=Arm_NN_rejects_the_model"])
            continue
        else:
            loaded = arm.load(path)
        assert model in RUN, "%s: neither in RUN nor in REJECTED" % model
        # Arm NN's view of the tensors must be the model's: same shape and quantization.
        for t, b in ((tin, loaded[1]), (tout, loaded[2])) if loaded else ():
            shape, _, scale, off = ArmNN.info(b)
            assert shape == t["shape"], (model, shape, t["shape"])
            if t["scale"] is not None:
                assert abs(scale - t["scale"]) <= 1e-7 * t["scale"] and off == t["zero_point"], (model, scale, off)
        for k in range(SAMPLES):
            x, notes = make_input(model, io, k)
            x = x.reshape(tin["shape"]).astype(tin["dtype"])
            if model in INTEGER_ORACLE:
                S = layers.Schema(SCHEMA)
                try:
                    values = layers.chain(arm, S, open(path, "rb").read(), x, model)
                    summary.extend(check_lstm_int8(S, model, k, x, values, io))
                finally:
                    S.close()
                y = values[int(tflite_outputs(path)[0])]
                armnn_dtype = str(y.dtype)
            elif loaded is None:
                S = layers.Schema(SCHEMA)
                try:
                    y = float_oracle.run(S, open(path, "rb").read(), x)
                finally:
                    S.close()
                armnn_dtype = str(y.dtype)
            else:
                y, armnn_dtype = arm.run(loaded, x, tout["dtype"])
            assert armnn_dtype == tout["dtype"], (model, armnn_dtype)
            y = y.reshape(tout["shape"])
            if k == layers.SAMPLE and model in layers.LAYER_MODELS:
                layer_inputs[model] = x
            emit("%s.%d.input.bin" % (model, k), model, k, "input", tin, x, notes)
            emit("%s.%d.output.bin" % (model, k), model, k, "output", tout, y, oracle_notes)
            summary.append("%-24s sample %d: in [%.4g, %.4g] out [%.4g, %.4g] %s" % (
                model, k, x.min(), x.max(), y.min(), y.max(),
                np.array2string(y.ravel()[:10], max_line_width=200, precision=4)))

    with open(os.path.join(REFS_DIR, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # Reader sanity check: everything read back through the manifest is what was written.
    back = read_manifest()
    assert sorted(back) == sorted(written) == sorted(f for f in os.listdir(REFS_DIR) if f.endswith(".bin"))
    for name, a in written.items():
        assert back[name][0].dtype == a.dtype and np.array_equal(back[name][0], a), name
    total = sum(os.path.getsize(os.path.join(REFS_DIR, f)) for f in written) + \
        os.path.getsize(os.path.join(REFS_DIR, "manifest.txt"))
    print("\n".join(summary))
    print("Arm NN %s; wrote %d files (re-read and checked), %d bytes, to %s in %.1f s" % (
        arm.version, len(written) + 1, total, os.path.relpath(REFS_DIR, ROOT), time.time() - t0))

    # Layer by layer: every op of each int8 model alone (see layers.py).
    header = ["# Layer-by-layer references (sample %d) for the int8 models of tests/tflite/models, written by"
              % layers.SAMPLE,
              "# tools/tflite_refs/generate.py + layers.py (see tools/tflite_refs/README.md). Oracle: Arm NN %s"
              % arm.version,
              "# (pyarmnn), backend CpuRef. One line per .bin file (paths relative to this directory):",
              "# layer_model = the single-op model <model>/<k>.tflite holding op k of <model>; kind = input<i>",
              "# (its i-th non-constant input, the previous op's Arm NN output) or output (Arm NN's output",
              "# of layer_model on those inputs). Raw little-endian, the tensor's dtype, NHWC, no header.",
              "# Ops %s (Arm NN cannot parse them): output from %s instead, bit-exact"
              % (", ".join(sorted(layers.NUMPY_OPS)), layers.NUMPY_OPS_NOTE),
              "# with TFLM (trained_lstm_int8/0: state variables kept in the cut, reset before the run).",
              "# " + layers.MANIFEST_HEADER]
    t1 = time.time()
    lsummary = layers.generate(arm, SCHEMA, MODELS_DIR, LAYERS_DIR, layer_inputs, write_checked, header)
    ltotal = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(LAYERS_DIR) for f in fs)
    nfiles = sum(len(fs) for _, _, fs in os.walk(LAYERS_DIR))
    print("\n".join(lsummary))
    # The layer chain of sample 0 ends on the whole-model output written above (layers.chain).
    for model in sorted(INTEGER_ORACLE):
        last = max(int(f.split(".")[0]) for f in os.listdir(os.path.join(LAYERS_DIR, model)))
        y = np.fromfile(os.path.join(LAYERS_DIR, model, "%d.output.bin" % last), dtype=np.int8)
        assert y.tobytes() == written["%s.%d.output.bin" % (model, layers.SAMPLE)].tobytes(), model
    print("layers: wrote %d files (re-read and checked), %d bytes, to %s in %.1f s" % (
        nfiles, ltotal, os.path.relpath(LAYERS_DIR, ROOT), time.time() - t1))

    # Synthetic single-op models, one per case of each op kiln imports (see ops.py), and
    # integer LSTMs from trained_lstm_int8's, for the paths its refs miss (int8_lstm.py).
    for label, module in (("ops", ops), ("int8_lstm", int8_lstm)):
        start = time.time()
        print("\n".join(module.generate_from(arm, sys.modules[__name__])))
        out_dir = os.path.join(LAYERS_DIR, module.MODEL)
        files = os.listdir(out_dir)
        print("%s: wrote %d files (re-read and checked), %d bytes, to %s in %.1f s" % (
            label, len(files), sum(os.path.getsize(os.path.join(out_dir, f)) for f in files),
            os.path.relpath(out_dir, ROOT), time.time() - start))


if __name__ == "__main__":
    sys.exit(main())
