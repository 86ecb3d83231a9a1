#!/usr/bin/python3
"""Synthetic integer-LSTM references: single-op UNIDIRECTIONAL_SEQUENCE_LSTM int8 models derived
from trained_lstm_int8's LSTM, for the paths its own refs never take (saturated gates, the cell
clip, a non-zero hidden zero point, batch > 1, time-major input, other cell scales and shapes).

Writes, into tests/tflite/refs/layers/int8_lstm/ (the layout of layers.py's cuts, so that the
layer tests run them like any other layer model):

  <k>.tflite          trained_lstm_int8's LSTM cut out as by layers.py (layers.cut: the same
                      tensors, buffers, op code and options; the two state tensors variable, with
                      no data, not subgraph inputs), then edited through the FlatBuffers object API
                      (unpack, modify, pack) as the case says. Its only subgraph input is the
                      sequence, its only output the LSTM's. Model.description names the case.
  <k>.input0.bin      the sequence (int8, the input tensor's shape: [batch, steps, input], or
                      [steps, batch, input] for time-major); numpy PCG64 seeded with
                      (BASE_SEED, crc32("int8_lstm/" + case name), row)
  <k>.output.bin      integer_lstm_oracle.py's output (TFLM's reference integer LSTM, bit-exact),
                      from TFLM's reset state (hidden state = its zero point, cell state = 0)

and appends their rows to tests/tflite/refs/layers/manifest.txt with model "int8_lstm", after a
comment line per case saying what it exercises and how often (counts from the oracle's
internals: gate pre-activations at the int16 limit, clipped cell values, ...). Everything from
MARKER on is rewritten on each run (ops.py keeps it when it rewrites its own section).

Checks, each run: every model is re-read and compared field by field with the one built, its
inputs and outputs also through generate.py's own reader (one input, the sequence; one output);
Arm NN still rejects the op (layers.run_op, as for the cut); what each case is meant to exercise
does happen (the counts); the oracle's output is within FLOAT_TOLERANCE_STEPS of a float64
model of the same LSTM computed from the real multipliers (no lookup tables, no fixed point);
the time-major case reproduces, row by row, the batch-major outputs of the same rows
(trained_lstm_int8/0.output.bin and case 0's output).

Run alone (after generate.py has written layers/) or through generate.py:
    /usr/bin/python3 tools/tflite_refs/int8_lstm.py
"""

import collections
import os
import shutil
import sys
import zlib

import flatbuffers
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import integer_lstm_oracle as O  # noqa: E402  (tools/tflite_refs/integer_lstm_oracle.py)
import layers  # noqa: E402  (tools/tflite_refs/layers.py)

MODEL = "int8_lstm"
MARKER = "# int8_lstm:"
SOURCE = "trained_lstm_int8"        # tests/tflite/models/<SOURCE>.tflite: its one LSTM is the base
OP = "UNIDIRECTIONAL_SEQUENCE_LSTM"
ORACLE_NOTE = "oracle=numpy_TFLM_integer_LSTM(integer_lstm_oracle.py)"
# The oracle against a float64 LSTM on the same real multipliers: saturations are modelled
# (int16 clamps of the pre-activations and the cell, the cell clip, the int8 clamp of h), the
# lookup tables and fixed-point roundings are not; the hidden state is carried unrounded.
FLOAT_TOLERANCE_STEPS = 4.0

# name; exercises: what it is for (manifest note); edit(S, m, rng) modifies the ModelT (the cut);
# make_input(rng, shape, ctx) gives its input.
Case = collections.namedtuple("Case", "name exercises edit make_input")


# ---------------------------------------------------------------------------------------------
# Editing the cut (keeping the dtypes unpacking gives, so that the re-read model compares equal).
def _lstm(m):
    sg = m.subgraphs[0]
    assert len(sg.operators) == 1
    op = sg.operators[0]
    return sg, op, {k: sg.tensors[int(i)] for k, i in enumerate(op.inputs) if int(i) >= 0}, \
        sg.tensors[int(op.outputs[0])]


def _set(t, shape=None, scale=None, zp=None):
    if shape is not None:
        t.shape = np.array(shape, dtype=np.int32)
    if scale is not None:
        t.quantization.scale = np.array([scale], dtype=np.float32)
    if zp is not None:
        t.quantization.zeroPoint = np.array([zp], dtype=np.int64)


def _set_data(m, t, values, dtype):
    """Replaces the data of constant tensor t (its own buffer) by `values` (little-endian)."""
    users = [u for u in m.subgraphs[0].tensors if u.buffer == t.buffer]
    assert t.buffer != 0 and len(users) == 1, "tensor %s does not own its buffer" % t.name
    a = np.asarray(values)
    assert a.dtype == np.dtype(dtype) and tuple(a.shape) == tuple(int(d) for d in t.shape), (t.name, a.shape)
    m.buffers[t.buffer].data = np.frombuffer(a.astype(np.dtype(dtype).newbyteorder("<")).tobytes(),
                                             dtype=np.uint8).copy()


def _scale(t):
    return np.float32(t.quantization.scale[0])


def _batch(m, batch, time_major=False):
    """Batch `batch`: the input [B, T, I] (or [T, B, I]), the states [B, S], the output likewise."""
    sg, op, t, out = _lstm(m)
    _, steps, n_input = [int(d) for d in t[O.INPUT].shape]     # the cut is [1, 28, 28]
    n_state = int(t[O.HIDDEN_STATE].shape[1])
    seq = (steps, batch) if time_major else (batch, steps)
    _set(t[O.INPUT], shape=seq + (n_input,))
    _set(out, shape=seq + (n_state,))
    for k in (O.HIDDEN_STATE, O.CELL_STATE):
        _set(t[k], shape=(batch, n_state))
    op.builtinOptions.timeMajor = time_major


def edit_none(S, m, rng):
    pass


def edit_zero_points_batch2(S, m, rng):
    _, _, t, out = _lstm(m)
    _set(t[O.INPUT], zp=5)
    _set(t[O.HIDDEN_STATE], zp=-21)
    _set(out, zp=-21)            # TFLM copies the hidden state into the output: same quantization
    _batch(m, 2)


def edit_cell_scale_clip_weights(S, m, rng):
    _, op, t, _ = _lstm(m)
    for k in list(O.INPUT_WEIGHTS.values()) + list(O.RECURRENT_WEIGHTS.values()) + list(O.BIASES.values()):
        _set(t[k], scale=_scale(t[k]) * np.float32(2.0))   # the biases with their weights (exact)
    _set(t[O.CELL_STATE], scale=np.float32(2.0 ** -11))
    op.builtinOptions.cellClip = 1.5                   # 1.5 / 2^-11 = 3072


def edit_time_major_batch2(S, m, rng):
    _batch(m, 2, time_major=True)


# Case 4: hidden 3, input 5, seq 4, batch 3. Scales per tensor, chosen so that the FC
# multipliers (float32(input scale * weight scale) / 2^-12) straddle 1: MultiplyByQuantized-
# Multiplier with a left shift (real > 1) and with right shifts.
SMALL = {"batch": 3, "steps": 4, "input": 5, "state": 3,
         "input_q": (0.02, -3), "hidden_q": (0.0095, 7), "cell_scale": 2.0 ** -15,
         # gate: (input weights' scale, recurrent weights' scale)
         "weights": {"forget": (0.02, 0.064), "input": (0.00185, 0.0205),
                     "cell": (0.0045, 0.0052), "output": (0.0003, 0.031)}}


# Case 5: SMALL's scales at hidden 6, input 7, seq 3, batch 2: a hidden size a compiler may
# put on vector lanes (4 or more units) with tap counts that fill no quad or pair of taps.
WIDER = dict(SMALL, batch=2, steps=3, input=7, state=6)


def _full_range_int8(rng, shape):
    q = rng.integers(-128, 128, size=int(np.prod(shape)))
    q[:2] = (-128, 127)
    return rng.permutation(q).astype(np.int8).reshape(shape)


def edit_small(S, m, rng, c=SMALL):
    sg, op, t, out = _lstm(m)
    B, T, I, H = c["batch"], c["steps"], c["input"], c["state"]
    _set(t[O.INPUT], shape=(B, T, I), scale=c["input_q"][0], zp=c["input_q"][1])
    _set(t[O.HIDDEN_STATE], shape=(B, H), scale=c["hidden_q"][0], zp=c["hidden_q"][1])
    _set(t[O.CELL_STATE], shape=(B, H), scale=c["cell_scale"])
    _set(out, shape=(B, T, H), scale=c["hidden_q"][0], zp=c["hidden_q"][1])
    for g in O.GATE_ORDER:
        ws, rs = c["weights"][g]
        w, r, b = t[O.INPUT_WEIGHTS[g]], t[O.RECURRENT_WEIGHTS[g]], t[O.BIASES[g]]
        _set(w, shape=(H, I), scale=ws)
        _set(r, shape=(H, H), scale=rs)
        _set(b, shape=(H,), scale=np.float32(c["input_q"][0]) * np.float32(ws))
        _set_data(m, w, _full_range_int8(rng, (H, I)), np.int8)
        _set_data(m, r, _full_range_int8(rng, (H, H)), np.int8)
        _set_data(m, b, rng.integers(-20000, 20001, size=H).astype(np.int32), np.int32)
    op.builtinOptions.cellClip = 0.0


def edit_wider(S, m, rng):
    edit_small(S, m, rng, WIDER)


# Inputs: make_input(rng, shape, ctx) -> int8 array of the input tensor's shape; ctx["trained"]()
# is trained_lstm_int8's sample-0 input [1, 28, 28], ctx["inputs"] the inputs of the cases before.
def input_full_range(rng, shape, ctx):
    return rng.integers(-128, 128, size=shape).astype(np.int8)


def input_full_range_and_nonnegative(rng, shape, ctx):
    """Row 0 full-range codes, row 1 codes 5..127 (with input zero point 5: real input >= 0)."""
    rows = [rng.integers(-128, 128, size=shape[1:]), rng.integers(5, 128, size=shape[1:])]
    return np.stack(rows).astype(np.int8)


def input_trained_and_case0(rng, shape, ctx):
    """Time-major [steps, 2, input]: row 0 trained_lstm_int8's sample 0, row 1 case 0's input."""
    return np.stack([ctx["trained"]()[0], ctx["inputs"][0][0]], axis=1).astype(np.int8)


CASES = [
    Case("trained_full_range",
         "trained weights and quantization, full-range random input codes: gate pre-activations "
         "saturate at the int16 limits, the cell state reaches -32768 and is clipped to -32767 "
         "(cell_clip 10 -> 32767), the cell tanh and the int8 hidden clamp saturate",
         edit_none, input_full_range),
    Case("zero_points_batch2",
         "hidden (and output) zero point -21, input zero point 5, batch 2 batch-major (input "
         "[2,28,28], states [2,20], output [2,28,20]); row 0 full-range codes, row 1 codes 5..127 "
         "(real input >= 0): the recurrent FC's input offset 21, the hidden state reset to -21, "
         "the output Mul's offset -21 with its int8 clamp at -128",
         edit_zero_points_batch2, input_full_range_and_nonnegative),
    Case("cell_2^-11_clip_1.5_weights_x2",
         "cell state scale 2^-11 (Tanh of the cell: input_left_shift 1), cell_clip 1.5 -> 3072 "
         "binding, all 8 weight scales (and the 4 bias scales) doubled, full-range random input: "
         "FC outputs clamped, pre-activations saturated, the cell clipped",
         edit_cell_scale_clip_weights, input_full_range),
    Case("time_major_batch2",
         "time_major = true, batch 2: input [28,2,28] (steps, batch, input), output [28,2,20], "
         "both rows stepped together (TFLM's LstmStepManager time-major path); row 0 = "
         "trained_lstm_int8's sample-0 input, row 1 = case 0's input, so its outputs are those "
         "of trained_lstm_int8/0 and int8_lstm/0, interleaved",
         edit_time_major_batch2, input_trained_and_case0),
    Case("small_h3_i5_t4_b3_cell_2^-15",
         "hidden 3, input 5, seq 4, batch 3, random full-range int8 weights and int32 biases in "
         "[-20000, 20000], per-tensor scales with FC multipliers above 1 (left shifts) and below, "
         "input zero point -3, hidden zero point 7, cell scale 2^-15 (Tanh of the cell: "
         "lstm_eval.cc's negative-shift branch, multiplier 3, input_left_shift 3), cell_clip 0 "
         "(no clipping: the cell add saturates at int16 instead)",
         edit_small, input_full_range),
    Case("h6_i7_t3_b2",
         "hidden 6, input 7, seq 3, batch 2, case 4's scales and zero points: neither the input's "
         "7 taps nor the hidden state's 6 fill whole quads of taps",
         edit_wider, input_full_range),
]

# What each case must exercise (checked on the oracle's counts): stats key -> minimum count.
REQUIRED = {
    "trained_full_range": {"pre_at_limit": 1, "c.clipped": 1, "c.tanh_saturated": 1, "h.clamped": 1},
    "zero_points_batch2": {"h.clamped": 1},
    "cell_2^-11_clip_1.5_weights_x2": {"fc_clamped": 1, "pre_at_limit": 1, "c.clipped": 100},
    "time_major_batch2": {"pre_at_limit": 1, "c.clipped": 1},
    "small_h3_i5_t4_b3_cell_2^-15": {"pre_at_limit": 1, "c.sum_saturated": 1},
    "h6_i7_t3_b2": {"pre_at_limit": 1},
}


# ---------------------------------------------------------------------------------------------
def base_cut(S, models_dir, layers_dir):
    """trained_lstm_int8's LSTM cut out as layers.py cuts it (checked the same way); the same
    bytes as layers/trained_lstm_int8/<k>.tflite when that exists."""
    buf = open(os.path.join(models_dir, SOURCE + ".tflite"), "rb").read()
    S.check_declared(buf, SOURCE)
    mt = S.unpack(buf)
    (k,) = [k for k, op in enumerate(mt.subgraphs[0].operators) if S.op_name(mt, op) == OP]
    data, tmap = layers.cut(S, mt, k)
    layers.check_cut(S, mt, k, data, tmap)
    written = os.path.join(layers_dir, SOURCE, "%d.tflite" % k)
    if os.path.exists(written):
        assert open(written, "rb").read() == data, written
    return data, k


def pack(m):
    b = flatbuffers.Builder(1 << 14)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def check_built(S, m, data, tflite_io):
    """Re-reads the packed model (layers.check_packed): also the states variable without data,
    one subgraph input (the sequence) and one output."""
    back = layers.check_packed(S, m, data, tflite_io)
    sg, op, t, out = _lstm(back)
    for k in (O.HIDDEN_STATE, O.CELL_STATE):
        assert t[k].isVariable and t[k].buffer == 0, "state %d not a variable without data" % k
    assert list(sg.inputs) == [int(op.inputs[O.INPUT])] == layers.nonconst_inputs(back, op)
    assert list(sg.outputs) == [int(op.outputs[0])]
    return back


def float_lstm(P, x):
    """The same LSTM in float64 on the real multipliers P gives (TFLM's float32 scale products):
    pre-activations in Q3.12 units clamped to int16 (as the integer kernel saturates them),
    exact sigmoid and tanh, the cell clamped to int16 and clipped, h clamped to the int8 range
    and kept unrounded. Returns h in int8 steps (offset by the zero point), x's layout."""
    hs, hzp = P["hidden"]
    cs = P["cell"][0]
    xs, xzp = P["input"]
    rows = x.transpose(1, 0, 2) if P["time_major"] else x        # [batch, steps, input]
    out = np.zeros(rows.shape[:2] + (P["n_state"],))
    for b in range(P["batch"]):
        h = np.full(P["n_state"], float(hzp))
        c = np.zeros(P["n_state"])
        for t in range(P["steps"]):
            gate = {}
            for g in O.GATE_ORDER:
                p = P["gates"][g]
                pre = p["input_fc"]["real"] * ((rows[b, t].astype(np.float64) - xzp) @ p["w"].T + p["bias"]) + \
                    p["recurrent_fc"]["real"] * ((h - hzp) @ p["r"].T.astype(np.float64))
                pre = np.clip(pre, -32768, 32767) / 4096.0
                gate[g] = np.tanh(pre) if g == "cell" else 1.0 / (1.0 + np.exp(-pre))
            c = np.clip(gate["forget"] * c + gate["input"] * gate["cell"], -32768 * cs, 32767 * cs)
            if P["cell_clip"] > 0:
                q = P["quantized_cell_clip"] * cs
                c = np.clip(c, -q, q)
            h = np.clip(gate["output"] * np.tanh(c) / hs + hzp, -128, 127)
            out[b, t] = h
    return out.transpose(1, 0, 2) if P["time_major"] else out


def _counts_text(st):
    """The oracle's counts as one manifest note."""
    n = st["elements"]
    parts = ["of %d gate/cell/hidden values per kind" % n]
    pre = {g: st[g + ".pre_at_limit"] for g in O.GATE_ORDER}
    parts.append("gate pre-activations at the int16 limit %d (%s)" % (
        sum(pre.values()), ", ".join("%s %d" % kv for kv in pre.items())))
    parts.append("FC outputs clamped to int16 %d" % sum(st[g + ".fc_clamped"] for g in O.GATE_ORDER))
    parts.append("gate sums saturated %d" % sum(st[g + ".sum_saturated"] for g in O.GATE_ORDER))
    parts.append("cell-gate tanh saturated %d" % st["cell.tanh_saturated"])
    parts.append("cell sums saturated %d" % st["c.sum_saturated"])
    if "c.clipped" in st:
        parts.append("cell values clipped %d (at the clip after clipping %d)" % (st["c.clipped"], st["c.at_clip"]))
    else:
        parts.append("no clipping (cell_clip 0)")
    parts.append("max |cell| before clipping %d" % st["c.max_abs_before_clip"])
    parts.append("tanh(cell) saturated %d" % st["c.tanh_saturated"])
    parts.append("hidden values clamped to int8 %d" % st["h.clamped"])
    return "; ".join(parts)


def _check_required(case, st):
    for key, least in REQUIRED[case.name].items():
        n = sum(v for k, v in st.items() if k == key or k.endswith("." + key))
        assert n >= least, "%s: %s happens %d times, want >= %d" % (case.name, key, n, least)


def generate(arm, schema_fbs, models_dir, layers_dir, write_checked, tflite_io, make_trained_input,
             base_seed):
    """Writes layers_dir/int8_lstm/ and its manifest rows. make_trained_input() gives
    trained_lstm_int8's sample-0 input (generate.make_input). Returns summary lines."""
    out_dir = os.path.join(layers_dir, MODEL)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    manifest = os.path.join(layers_dir, "manifest.txt")
    before = open(manifest).read().split("\n" + MARKER)[0].rstrip("\n") + "\n"
    lines = [MARKER + " single-op UNIDIRECTIONAL_SEQUENCE_LSTM int8 models (int8_lstm/<k>.tflite), "
             "trained_lstm_int8's LSTM cut",
             "# and edited per case by tools/tflite_refs/int8_lstm.py; inputs deterministic (seed %d); "
             "outputs TFLM's integer" % base_seed,
             "# LSTM in numpy, bit-exact (%s), from the reset state. Exact equality expected." % ORACLE_NOTE]
    S = layers.Schema(schema_fbs)
    written, summary, inputs, outputs = {}, [], [], []
    try:
        base, k_src = base_cut(S, models_dir, layers_dir)
        for k, case in enumerate(CASES):
            rng = np.random.default_rng([base_seed, zlib.crc32(("int8_lstm/" + case.name).encode()), 0])
            m = S.unpack(base)
            m.description = ("kiln tools/tflite_refs/int8_lstm.py: %s (from %s's LSTM)" % (case.name, SOURCE)).encode()
            case.edit(S, m, rng)
            data = pack(m)
            back = check_built(S, m, data, tflite_io)
            sg, op, t, _ = _lstm(back)
            P = O.prepare(back, op)
            tin = [layers.tensor_desc(back, int(i)) for i in sg.inputs]
            tout = [layers.tensor_desc(back, int(i)) for i in sg.outputs]
            x = case.make_input(rng, tin[0]["shape"], {"trained": make_trained_input, "inputs": inputs})
            assert x.dtype == np.int8 and x.shape == tin[0]["shape"], (case.name, x.shape)
            inputs.append(x)
            path = os.path.join(out_dir, "%d.tflite" % k)
            with open(path, "wb") as f:
                f.write(data)
            # Arm NN still rejects the op; the output is the oracle's (layers.run_op), then again
            # with the counts (the same bytes).
            (y,) = layers.run_op(arm, S, path, data, OP, [x], tin, tout, "%s/%d" % (MODEL, k))
            st = {}
            assert np.array_equal(O.run_model(S, data, x, st), y)
            _check_required(case, st)
            fy = float_lstm(P, x)
            dfloat = np.abs(y.astype(np.float64) - fy).max()
            assert dfloat <= FLOAT_TOLERANCE_STEPS, (case.name, dfloat)
            outputs.append((x, y))
            desc = O.describe(P)
            lines.append("# %s/%d.tflite %s: %s. %s; %s. Counts: %s. Float64 model within %.2f steps. %s" % (
                MODEL, k, case.name, case.exercises, desc[0], desc[-1], _counts_text(st), dfloat, ORACLE_NOTE))
            for kind, a, tt in (("input0", x, tin[0]), ("output", y, tout[0])):
                name = "%s/%d.%s.bin" % (MODEL, k, kind)
                write_checked(os.path.join(layers_dir, name), a, tt["dtype"], tt["shape"])
                written[name] = a
                lines.append(layers._manifest_line(name, MODEL, k, OP, kind, tt, a))
            summary.append("%2d %-30s in %s out %s [%d, %d], %d codes; float64 within %.2f steps" % (
                k, case.name, "x".join(map(str, tin[0]["shape"])), "x".join(map(str, tout[0]["shape"])),
                y.min(), y.max(), np.unique(y).size, dfloat))
            summary.append("   counts: " + _counts_text(st))
            summary.extend("   " + line for line in desc)
        # The time-major case is the batch-major runs of its rows, interleaved: row 0 is
        # trained_lstm_int8's sample 0 (its cut's output), row 1 case 0.
        (x3, y3), (x0, y0) = outputs[3], outputs[0]
        y_src = O.run_model(S, base, x3[:, 0][None])
        ref = os.path.join(layers_dir, SOURCE, "%d.output.bin" % k_src)
        if os.path.exists(ref):
            assert np.fromfile(ref, dtype=np.int8).tobytes() == y_src.tobytes(), ref
        assert np.array_equal(y3[:, 0], y_src[0]) and np.array_equal(y3[:, 1], y0[0])
        assert np.array_equal(x3[:, 1], x0[0])
        summary.append("   time-major rows = batch-major %s/%d output and %s/0 output: checked"
                       % (SOURCE, k_src, MODEL))
    finally:
        S.close()
    with open(manifest, "w") as f:
        f.write(before + "\n".join(lines) + "\n")
    back = [(f, a) for f, a in layers.read_manifest(layers_dir) if f["model"] == MODEL]
    assert sorted(f["file"] for f, _ in back) == sorted(written)
    for f, a in back:
        assert a.dtype == written[f["file"]].dtype and np.array_equal(a, written[f["file"]]), f["file"]
    return summary


def generate_from(arm, gen):
    """generate() with generate.py's (module gen) paths, file writer, reader and seed."""
    io = {SOURCE: gen.tflite_io(os.path.join(gen.MODELS_DIR, SOURCE + ".tflite"))}

    def trained_input():
        x, _ = gen.make_input(SOURCE, io, 0)
        return x.reshape(io[SOURCE][0][0]["shape"]).astype(io[SOURCE][0][0]["dtype"])
    return generate(arm, gen.SCHEMA, gen.MODELS_DIR, gen.LAYERS_DIR, gen.write_checked, gen.tflite_io,
                    trained_input, gen.BASE_SEED)


def main():
    import generate  # noqa: E402  (tools/tflite_refs/generate.py)
    O.selftest()
    arm = generate.ArmNN()
    print("\n".join(generate_from(arm, generate)))


if __name__ == "__main__":
    sys.exit(main())
