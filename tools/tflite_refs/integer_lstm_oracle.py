#!/usr/bin/python3
"""TFLite Micro's integer UNIDIRECTIONAL_SEQUENCE_LSTM in numpy, bit-exact with TFLM's reference
kernel: the "8x8_16" case (int8 activations and hidden state, int8 weights, int32 biases, int16
cell state), for the models Arm NN 20.08 cannot parse (it has no sequence LSTM): generate.py and
layers.py use it for trained_lstm_int8's LSTM, Arm NN for the ops after it.

Written from TFLM's sources (repository tensorflow/tflite-micro; not from kiln's):
  kernels/unidirectional_sequence_lstm.cc, kernels/lstm_eval_common.cc (Prepare: gate and
    multiplication parameters, CreateLstmCellStateInfo), kernels/lstm_eval.h (the templated
    EvalLstm / LstmStep / CalculateLstmGate / UpdateLstmCell / UpdateLstmHidden), kernels/lstm_eval.cc
    (AddElementWise, Sigmoid, Tanh, Mul, FullyConnected, Clipping), kernels/fully_connected_common.cc
    (CalculateOpDataFullyConnected), micro_interpreter_graph.cc (ResetVariableTensors);
  kernels/internal/reference/integer_ops/{fully_connected,logistic,tanh,mul}.h,
  kernels/internal/common.{h,cc} (MultiplyByQuantizedMultiplier, default double rounding, i.e.
    TFLITE_SINGLE_ROUNDING unset; sigmoid_table_uint16), kernels/internal/quantization_util.cc
    (QuantizeMultiplier, CheckedLog2), kernels/kernel_util.cc (GetQuantizedConvolutionMultipler);
  gemmlowp fixedpoint.h (SaturatingRoundingDoublingHighMul, RoundingDivideByPOT).

All arithmetic is on exact integers (numpy int64 arrays, Python ints for the parameters), each C
operation written out as the C code does it (truncating division, arithmetic shifts, clamps);
values that C computes in int32 are asserted to fit. The parameters come from float32 scales
exactly as TFLM combines them (float products where TFLM multiplies floats, double elsewhere).

The kernel, per batch row b (batch-major: each row runs all its time steps before the next;
time-major, input [steps, batch, input]: all rows together at each step, as TFLM's
LstmStepManager does; the rows never mix), the hidden state h (int8) starting at the hidden
tensor's zero point (TFLM resets an int8 variable tensor to its zero point, others to 0) and the
cell state c (int16) at 0; per time step t:
  gate g in (forget, input, cell, output), in that order:
    pre_g = sat16(FC_int16(x_t; W_g, bias_g) + FC_int16(h; R_g, no bias))     (Q3.12: scale 2^-12)
    forget, input, output: Logistic_int16(pre_g); cell: Tanh_int16(pre_g) with power -12
                                                                              (Q0.15: scale 2^-15)
  c = sat16(Mul(forget, c -> int16 cell) + Mul(input, cell gate -> int16 cell)), clipped to
      +-quantized_cell_clip if cell_clip > 0
  h = Mul(Tanh_int16(c) with power log2(cell scale), output gate -> int8 hidden, zero point)
  output[b, t] = h            (output[t, b] time-major)
"""

import math
import os
import sys

import numpy as np

UNIDIRECTIONAL_SEQUENCE_LSTM = 44
UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS = 71   # BuiltinOptions union type
ACT_TANH = 4                                # ActivationFunctionType
FLOAT32, INT32, INT16, INT8 = 0, 2, 7, 9    # TensorType
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

# The op's inputs (tensorflow/lite/kernels/lstm_shared.h).
INPUT = 0
INPUT_WEIGHTS = {"input": 1, "forget": 2, "cell": 3, "output": 4}
RECURRENT_WEIGHTS = {"input": 5, "forget": 6, "cell": 7, "output": 8}
PEEPHOLES = (9, 10, 11)
BIASES = {"input": 12, "forget": 13, "cell": 14, "output": 15}
PROJECTION = (16, 17)
HIDDEN_STATE, CELL_STATE = 18, 19
LAYER_NORM = (20, 21, 22, 23)
GATE_ORDER = ("forget", "input", "cell", "output")   # LstmStep's order

# "Table of sigmoid(i/24) at 0.16 format - 256 elements", copied as data (it is not round() of
# sigmoid: 44 entries are one above, the last one included) from tensorflow/tflite-micro
# tensorflow/lite/kernels/internal/common.h (sigmoid_table_uint16); the same 256 values as
# CMSIS-NN Source/NNSupportFunctions/arm_nntables.c (checked when this was written).
SIGMOID_TABLE_UINT16 = np.array([
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498,
    40149, 40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255,
    46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865,
    52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174,
    56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544, 58800, 59048, 59288,
    59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279, 61441,
    61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886,
    62990, 63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835,
    63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450,
    64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845,
    64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097,
    65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425,
    65429, 65433, 65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465,
    65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508,
    65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516, 65517, 65517, 65518,
    65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524, 65525,
    65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529,
    65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531,
    65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533,
    65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65535], dtype=np.int64)


def _i64(x):
    return np.asarray(x, dtype=np.int64)


def _assert_int32(x, what):
    x = _i64(x)
    assert x.size == 0 or (x.min() >= INT32_MIN and x.max() <= INT32_MAX), what + " overflows int32"
    return x


# ---------------------------------------------------------------------------------------------
# gemmlowp fixedpoint.h and TFLite's common.cc / quantization_util.cc
def saturating_rounding_doubling_high_mul(a, b):
    """gemmlowp::SaturatingRoundingDoublingHighMul(int32 a, int32 b): (a * b + nudge) / 2^31 with
    C's truncating division, nudge = 2^30 or 1 - 2^30 by the product's sign; INT32_MIN * INT32_MIN
    saturates to INT32_MAX."""
    a, b = _assert_int32(a, "SRDHM a"), _assert_int32(b, "SRDHM b")
    ab = a * b                                       # |ab| <= 2^62: exact in int64
    s = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    q = np.where(s >= 0, s // (1 << 31), -((-s) // (1 << 31)))   # truncation toward zero
    return np.where((a == b) & (a == INT32_MIN), INT32_MAX, q)


def rounding_divide_by_pot(x, exponent):
    """gemmlowp::RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero."""
    assert 0 <= exponent <= 31
    x = _assert_int32(x, "RoundingDivideByPOT x")
    mask = (1 << exponent) - 1
    remainder = x & mask                             # two's complement low bits, as in C
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def multiply_by_quantized_multiplier(x, multiplier, shift):
    """tflite::MultiplyByQuantizedMultiplier(int32 x, int32 multiplier, int shift), the default
    (double rounding) build: RoundingDivideByPOT(SRDHM(x * 2^max(shift, 0), multiplier),
    max(-shift, 0))."""
    left, right = max(shift, 0), max(-shift, 0)
    xl = _assert_int32(_i64(x) * (1 << left), "x << left_shift")
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(xl, multiplier), right)


def _round_half_away(v):
    """TfLiteRound (std::round) of a double."""
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def quantize_multiplier(real):
    """tflite::QuantizeMultiplier(double) without TFLITE_EMULATE_FLOAT / TFLITE_SINGLE_ROUNDING:
    (q_fixed, shift) with real ~= q_fixed * 2^(shift - 31), q_fixed in [2^30, 2^31)."""
    real = float(real)
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = _round_half_away(q * (1 << 31))       # q * 2^31 is exact in double
    assert q_fixed <= (1 << 31)
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    assert q_fixed <= INT32_MAX
    if shift < -31:                                  # flushed to zero, as TFLite does
        shift, q_fixed = 0, 0
    return int(q_fixed), int(shift)


def checked_log2(x):
    """tflite::CheckedLog2(float x): (int(TfLiteRound(log(x) * (1 / log(2)))), whether the
    fractional part is below 1e-3), in float32 as the C code computes it."""
    f = np.float32
    x_log2 = f(np.log(f(x))) * (f(1.0) / f(np.log(f(2.0))))
    rounded = f(math.copysign(math.floor(abs(float(x_log2)) + 0.5), float(x_log2)))  # std::round
    return int(rounded), bool(abs(f(x_log2 - rounded)) < f(1e-3))


def conv_multiplier(input_scale, weight_scale, output_scale):
    """GetQuantizedConvolutionMultipler (kernel_util.cc, the overload the per-tensor path ends in):
    double(float(input_scale * weight_scale)) / double(output_scale), the product in float32."""
    product = np.float32(input_scale) * np.float32(weight_scale)     # float * float in C
    assert product.dtype == np.float32 and product >= 0
    return float(product) / float(np.float32(output_scale))


def inter_gate_multiplier(input1_scale, input2_scale, output_scale):
    """CreateInterGateMulParams (lstm_eval_common.cc): double(in1) * double(in2) / double(out)."""
    return (float(np.float32(input1_scale)) * float(np.float32(input2_scale))) / \
        float(np.float32(output_scale))


# ---------------------------------------------------------------------------------------------
# reference_integer_ops kernels, as lstm_eval.cc calls them
def fully_connected_unclamped(x, w, bias, p):
    """reference_integer_ops::FullyConnected, int8 input and weights, int32 bias (or None), int16
    output, before its final clamp: acc = sum((w + weights_offset) * (x + input_offset)) + bias,
    then MultiplyByQuantizedMultiplier, + output_offset. x: [n_input], or [n_batch, n_input]
    (rows computed independently, as the C loop over batches does); w: [n_out, n_input]."""
    acc = (_i64(x) + p["input_offset"]) @ (_i64(w) + p["weights_offset"]).T
    if bias is not None:
        acc = acc + _i64(bias)
    acc = _assert_int32(acc, "FC accumulator")
    return multiply_by_quantized_multiplier(acc, p["multiplier"], p["shift"]) + p["output_offset"]


def fully_connected(x, w, bias, p):
    """reference_integer_ops::FullyConnected (see fully_connected_unclamped), clamped to
    [act_min, act_max] (int16 here)."""
    return np.clip(fully_connected_unclamped(x, w, bias, p), p["act_min"], p["act_max"])


def add_elementwise_int16(a, b):
    """lstm_internal::AddElementWise (int16): the sum clamped to int16."""
    return np.clip(_i64(a) + _i64(b), -32768, 32767)


def _lut_interpolate(abs_v, frac_bits):
    """sigmoid_table_uint16[uh] << frac_bits + ut * (table[uh + 1] - table[uh]), uh = abs_v >>
    frac_bits, ut = the low frac_bits bits (valid where uh < 255)."""
    uh = abs_v >> frac_bits
    ut = abs_v & ((1 << frac_bits) - 1)
    i = np.minimum(uh, 254)
    ua, ub = SIGMOID_TABLE_UINT16[i], SIGMOID_TABLE_UINT16[i + 1]
    return uh, (ua << frac_bits) + ut * (ub - ua)


def _scaled_input(x, input_multiplier, input_left_shift, what):
    """The int16 Logistic's and Tanh's input scaling: x * multiplier, rounded right by the
    shift; multiplier 0 is the power-of-two case, 3 << shift and no shift."""
    if input_multiplier == 0:                        # power of two case
        input_multiplier, input_left_shift = 3 << input_left_shift, 0
    rnd = (1 << (input_left_shift - 1)) if input_left_shift > 0 else 0
    return _assert_int32(_i64(x) * input_multiplier + rnd, what) >> input_left_shift


def logistic_int16(x, input_multiplier=0, input_left_shift=0):
    """reference_integer_ops::Logistic(input_multiplier, input_left_shift, int16): Q3.12 in,
    Q0.15 out. lstm_internal::Sigmoid passes (0, 0): the multiplier becomes 3 << 0."""
    assert input_left_shift >= 0
    v = _scaled_input(x, input_multiplier, input_left_shift, "Logistic input")
    a = np.abs(v)
    uh, interp = _lut_interpolate(a, 9)
    result = np.where(uh >= 255, 0x7FFF << 10, interp)           # uint32 in C: never negative
    result = np.where(v >= 0, result + (1 << 9), (1 << (16 + 9)) - result + (1 << 9) - 1)
    assert result.min() >= 0 and result.max() < (1 << 32)
    out = result >> 10
    assert out.min() >= -32768 and out.max() <= 32767       # stored through int16
    return out


def tanh_int16(x, input_multiplier, input_left_shift):
    """reference_integer_ops::Tanh(input_multiplier, input_left_shift, int16): tanh through the
    sigmoid table, tanh(x) = 2 sigmoid(2x) - 1; Q0.15 out."""
    v = _scaled_input(x, input_multiplier, input_left_shift, "Tanh input")
    a = np.abs(v)
    uh, interp = _lut_interpolate(a, 8)
    result = np.where(uh >= 255, 0xFFFF << 8, interp)            # int32 result
    result = np.where(v >= 0, result - (1 << (14 + 9)) + (1 << (9 - 2)),
                      -result + (1 << (14 + 9)) + (1 << (9 - 2)) - 1)
    out = result >> (9 - 1)                          # arithmetic shift of an int32
    assert out.min() >= -32768 and out.max() <= 32767
    return out


def lstm_tanh(cell_state_scale_power, x):
    """lstm_internal::Tanh(cell_state_scale_power, int16): the input's scale 2^power."""
    tanh_input_left_shift = (15 + cell_state_scale_power) - 3
    input_multiplier = 0
    if tanh_input_left_shift < 0:                    # handling negative shift value
        tanh_input_left_shift = -tanh_input_left_shift
        input_multiplier = 3
    return tanh_int16(x, input_multiplier, tanh_input_left_shift)


def mul_elementwise_unclamped(a, b, p):
    """reference_integer_ops::MulElementwise (int16 inputs) before its final clamp:
    output_offset + MBQM((a + in1_offset) * (b + in2_offset))."""
    prod = _assert_int32((_i64(a) + p["input1_offset"]) * (_i64(b) + p["input2_offset"]), "Mul product")
    return _assert_int32(p["output_offset"] + multiply_by_quantized_multiplier(prod, p["multiplier"], p["shift"]),
                         "Mul result")


def mul_elementwise(a, b, p):
    """reference_integer_ops::MulElementwise (int16 inputs, int16 or int8 output):
    out = clamp(output_offset + MBQM((a + in1_offset) * (b + in2_offset)))."""
    return np.clip(mul_elementwise_unclamped(a, b, p), p["act_min"], p["act_max"])


def clipping(c, quantized_cell_clip):
    """lstm_internal::Clipping (int16): into [-quantized_cell_clip, quantized_cell_clip]."""
    return np.maximum(np.minimum(c, quantized_cell_clip), -quantized_cell_clip)


# ---------------------------------------------------------------------------------------------
def _scale_zp(t):
    q = t.quantization
    assert q is not None and q.scale is not None and len(q.scale) == 1, \
        "%s: not quantized per tensor (per-channel scales are not this kernel's)" % t.name
    zp = q.zeroPoint if q.zeroPoint is not None and len(q.zeroPoint) else [0]
    assert len(zp) == 1, t.name
    return np.float32(q.scale[0]), int(zp[0])


def _has_data(mt, t):
    d = mt.buffers[t.buffer].data
    return d is not None and len(d) > 0


def _data(mt, t, dtype):
    return np.frombuffer(bytes(mt.buffers[t.buffer].data), dtype=np.dtype(dtype).newbyteorder("<")) \
        .reshape([int(d) for d in t.shape]).astype(np.int64)


def prepare(mt, op):
    """Checks that operator `op` of model `mt` (flatc object API, subgraph 0) is the kernel this
    oracle computes, and returns its constants and parameters, as TFLM's Prepare computes them."""
    sg = mt.subgraphs[0]
    oc = mt.operatorCodes[op.opcodeIndex]
    assert max(oc.deprecatedBuiltinCode, oc.builtinCode) == UNIDIRECTIONAL_SEQUENCE_LSTM
    o = op.builtinOptions
    assert op.builtinOptionsType == UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS and o is not None
    assert o.fusedActivationFunction == ACT_TANH, "cell gate activation is not TANH"
    assert not o.diagonalRecurrentTensors, "diagonal recurrent weights"
    # asymmetric_quantize_inputs (hybrid kernels only) and proj_clip (no projection) do not
    # concern this kernel; TFLM's integer LSTM ignores them.
    assert o.cellClip >= 0
    inputs = [int(i) for i in op.inputs]
    assert len(inputs) == 24 and len(op.outputs) == 1, "an LSTM of 24 inputs and one output"
    for k in PEEPHOLES + PROJECTION + LAYER_NORM:
        assert inputs[k] < 0, "input %d present: peephole, projection or layer norm LSTM" % k
    for k in [INPUT, HIDDEN_STATE, CELL_STATE] + list(INPUT_WEIGHTS.values()) + \
            list(RECURRENT_WEIGHTS.values()) + list(BIASES.values()):
        assert inputs[k] >= 0, "input %d absent (CIFG LSTM?)" % k
    t = {k: sg.tensors[inputs[k]] for k in range(24) if inputs[k] >= 0}
    tx, th, tc, tout = t[INPUT], t[HIDDEN_STATE], t[CELL_STATE], sg.tensors[int(op.outputs[0])]
    assert tx.type == INT8 and th.type == INT8 and tout.type == INT8, "not int8 activations"
    assert tc.type == INT16, "cell state is not int16"
    for s in (th, tc):
        assert s.isVariable and not _has_data(mt, s), "%s: not a variable state without data" % s.name
    assert not _has_data(mt, tx)
    # CreateLstmSizeInfo: input [batch, time, input], or [time, batch, input] if time_major; the
    # state dimension from the hidden state's shape [batch, state]. ValidateTensorSize: the
    # states hold batch * state elements, the output is [dim0, dim1] of the input by state.
    time_major = bool(o.timeMajor)
    assert len(tx.shape) == 3 and len(th.shape) == 2, "input [B, T, I] or [T, B, I], hidden state [B, S]"
    dim0, dim1, n_input = [int(d) for d in tx.shape]
    batch, steps = (dim1, dim0) if time_major else (dim0, dim1)
    n_state = int(th.shape[1])
    assert int(np.prod(th.shape)) == batch * n_state and int(np.prod(tc.shape)) == batch * n_state
    assert [int(d) for d in tout.shape] == [dim0, dim1, n_state]

    x_scale, x_zp = _scale_zp(tx)
    h_scale, h_zp = _scale_zp(th)
    c_scale, c_zp = _scale_zp(tc)
    o_scale, o_zp = _scale_zp(tout)
    assert c_zp == 0, "cell state zero point"
    # TFLM copies the hidden state's bytes into the output: same quantization, or the output
    # would not mean what its tensor says.
    assert (o_scale.tobytes(), o_zp) == (h_scale.tobytes(), h_zp), "output quantized unlike the hidden state"
    power, exact = checked_log2(c_scale)
    assert exact and np.float32(2.0 ** power) == c_scale, "cell state scale is not a power of two"

    gate_scale = np.float32(0.000244140625)          # 2^-12: Q3.12, the gates' pre-activation
    nonlinear_scale = np.float32(0.000030517578125)  # 2^-15: Q0.15, the gates' outputs
    P = {"batch": batch, "steps": steps, "n_input": n_input, "n_state": n_state, "time_major": time_major,
         "input": (float(x_scale), x_zp), "hidden": (float(h_scale), h_zp), "cell": (float(c_scale), c_zp),
         "cell_clip": float(o.cellClip), "gates": {}}
    for g in GATE_ORDER:
        w, r, b = t[INPUT_WEIGHTS[g]], t[RECURRENT_WEIGHTS[g]], t[BIASES[g]]
        assert w.type == INT8 and r.type == INT8 and b.type == INT32, "gate %s: not int8 weights, int32 bias" % g
        assert [int(d) for d in w.shape] == [n_state, n_input] and [int(d) for d in r.shape] == [n_state, n_state]
        assert [int(d) for d in b.shape] == [n_state]
        w_scale, w_zp = _scale_zp(w)
        r_scale, r_zp = _scale_zp(r)
        assert w_zp == 0 and r_zp == 0, "weights not symmetric"   # TFLM DCHECKs it
        fcs = {}
        for name, (in_scale, in_zp, wt_scale, wt_zp) in (("input_fc", (x_scale, x_zp, w_scale, w_zp)),
                                                          ("recurrent_fc", (h_scale, h_zp, r_scale, r_zp))):
            real = conv_multiplier(in_scale, wt_scale, gate_scale)
            m, s = quantize_multiplier(real)
            fcs[name] = {"real": real, "multiplier": m, "shift": s, "input_offset": -in_zp,
                         "weights_offset": -wt_zp, "output_offset": 0, "act_min": -32768, "act_max": 32767}
        P["gates"][g] = dict(fcs, w=_data(mt, w, np.int8), r=_data(mt, r, np.int8), bias=_data(mt, b, np.int32))

    def mul_params(s1, s2, so, zp, lo, hi):
        real = inter_gate_multiplier(s1, s2, so)
        m, s = quantize_multiplier(real)
        return {"real": real, "multiplier": m, "shift": s, "input1_offset": 0, "input2_offset": 0,
                "output_offset": zp, "act_min": lo, "act_max": hi}
    P["forget_cell_mul"] = mul_params(nonlinear_scale, c_scale, c_scale, 0, -32768, 32767)
    P["input_mul"] = mul_params(nonlinear_scale, nonlinear_scale, c_scale, 0, -32768, 32767)
    P["output_mul"] = mul_params(nonlinear_scale, nonlinear_scale, h_scale, h_zp, -128, 127)
    P["cell_state_scale_power"] = power
    P["quantized_cell_clip"] = int(math.trunc(min(max(float(np.float32(o.cellClip)) / float(c_scale),
                                                      -32768.0), 32767.0)))   # static_cast<int16_t>
    return P


def _count(stats, key, n):
    if stats is not None:
        stats[key] = stats.get(key, 0) + int(n)


def _max(stats, key, v):
    if stats is not None:
        stats[key] = max(stats.get(key, 0), int(v))


def _tanh_saturates(x, cell_state_scale_power):
    """Where lstm_internal::Tanh takes reference_integer_ops::Tanh's saturation branch
    (|scaled input| >> 8 >= 255)."""
    shift = (15 + cell_state_scale_power) - 3
    mult, shift = (3 << shift, 0) if shift >= 0 else (3, -shift)
    rnd = (1 << (shift - 1)) if shift > 0 else 0
    return (np.abs((_i64(x) * mult + rnd) >> shift) >> 8) >= 255


def _gate(P, g, x_t, h, stats=None):
    """CalculateLstmGate for the rows of x_t [n, n_input] and h [n, n_state]; with `stats`
    (a dict), counts where clamps and saturations happen (the result is the same)."""
    p = P["gates"][g]
    fx = fully_connected_unclamped(x_t, p["w"], p["bias"], p["input_fc"])
    fh = fully_connected_unclamped(h, p["r"], None, p["recurrent_fc"])
    lo, hi = p["input_fc"]["act_min"], p["input_fc"]["act_max"]
    s = np.clip(fx, lo, hi) + np.clip(fh, lo, hi)
    pre = add_elementwise_int16(np.clip(fx, lo, hi), np.clip(fh, lo, hi))
    _count(stats, g + ".fc_clamped", ((fx < lo) | (fx > hi)).sum() + ((fh < lo) | (fh > hi)).sum())
    _count(stats, g + ".sum_saturated", ((s < -32768) | (s > 32767)).sum())
    _count(stats, g + ".pre_at_limit", ((pre == -32768) | (pre == 32767)).sum())
    _max(stats, g + ".max_abs_pre", np.abs(pre).max())
    if g == "cell":
        _count(stats, "cell.tanh_saturated", _tanh_saturates(pre, -12).sum())
        return lstm_tanh(-12, pre)
    return logistic_int16(pre, 0, 0)


def _step(P, x_t, h, c, stats=None):
    """LstmStep on the rows x_t [n, n_input] with their states h, c [n, n_state]: n = 1 (one
    batch row, batch-major) or the whole batch (time-major). Returns the new (h, c)."""
    forget = _gate(P, "forget", x_t, h, stats)
    inp = _gate(P, "input", x_t, h, stats)
    cell = _gate(P, "cell", x_t, h, stats)
    fc = mul_elementwise_unclamped(forget, c, P["forget_cell_mul"])
    ic = mul_elementwise_unclamped(inp, cell, P["input_mul"])
    _count(stats, "c.mul_clamped", ((fc < -32768) | (fc > 32767) | (ic < -32768) | (ic > 32767)).sum())
    fc, ic = np.clip(fc, -32768, 32767), np.clip(ic, -32768, 32767)
    s = fc + ic
    c = add_elementwise_int16(fc, ic)
    _count(stats, "c.sum_saturated", ((s < -32768) | (s > 32767)).sum())
    _max(stats, "c.max_abs_before_clip", np.abs(c).max())
    if P["cell_clip"] > 0:
        q = P["quantized_cell_clip"]
        _count(stats, "c.clipped", ((c > q) | (c < -q)).sum())
        c = clipping(c, q)
        _count(stats, "c.at_clip", (np.abs(c) == q).sum())
    outg = _gate(P, "output", x_t, h, stats)                   # still the previous h
    _count(stats, "c.tanh_saturated", _tanh_saturates(c, P["cell_state_scale_power"]).sum())
    hu = mul_elementwise_unclamped(lstm_tanh(P["cell_state_scale_power"], c), outg, P["output_mul"])
    _count(stats, "h.clamped", ((hu < -128) | (hu > 127)).sum())
    h = np.clip(hu, P["output_mul"]["act_min"], P["output_mul"]["act_max"])
    _count(stats, "elements", h.size)
    return h, c


def run(mt, op, x, stats=None):
    """The int8 output of the LSTM operator `op` of `mt` on the int8 input x, from TFLM's reset
    state (a fresh interpreter: kiln's bundles are stateless), in EvalLstm's order: batch-major
    (x [batch, steps, input], output [batch, steps, state]) one batch row at a time, all its
    steps, each row's state its own slice [b]; time-major (x [steps, batch, input], output
    [steps, batch, state]) all batch rows together at each step (LstmStepManager: InputShape
    and StateShape [batch, ...], the input and output offsets advancing by batch * size per
    step). With `stats` (a dict), also counts the clamps and saturations (see _gate, _step)."""
    P = prepare(mt, op)
    x = np.asarray(x)
    B, T, I, S = P["batch"], P["steps"], P["n_input"], P["n_state"]
    h_zp = P["hidden"][1]                                      # ResetVariableTensors: zero point
    if P["time_major"]:
        assert x.dtype == np.int8 and x.shape == (T, B, I), x.shape
        out = np.zeros((T, B, S), np.int64)
        h, c = np.full((B, S), h_zp, np.int64), np.zeros((B, S), np.int64)
        for t in range(T):
            h, c = _step(P, x[t].astype(np.int64), h, c, stats)
            out[t] = h
    else:
        assert x.dtype == np.int8 and x.shape == (B, T, I), x.shape
        out = np.zeros((B, T, S), np.int64)
        for b in range(B):
            h, c = np.full((1, S), h_zp, np.int64), np.zeros((1, S), np.int64)
            for t in range(T):
                h, c = _step(P, x[b, t][None].astype(np.int64), h, c, stats)
                out[b, t] = h[0]
    assert out.min() >= -128 and out.max() <= 127
    return out.astype(np.int8)


def run_model(S, buf, x, stats=None):
    """The output of the one-op model `buf` (an LSTM, e.g. a layers.py cut) on input x."""
    mt = S.unpack(buf)
    sg = mt.subgraphs[0]
    assert len(mt.subgraphs) == 1 and len(sg.operators) == 1 and len(sg.inputs) == 1
    op = sg.operators[0]
    assert int(sg.inputs[0]) == int(op.inputs[INPUT]) and list(sg.outputs) == list(op.outputs)
    return run(mt, op, x, stats)


def describe(P):
    """The parameters as lines of text (for the report and the README)."""
    lines = ["%s, batch %d, steps %d, input %d, state %d; input scale %.9g zp %d, hidden scale %.9g zp %d, "
             "cell scale %.9g (2^%d)" % ("time-major" if P["time_major"] else "batch-major",
                                        P["batch"], P["steps"], P["n_input"], P["n_state"],
                                        P["input"][0], P["input"][1], P["hidden"][0], P["hidden"][1],
                                        P["cell"][0], P["cell_state_scale_power"])]
    for g in GATE_ORDER:
        p = P["gates"][g]
        lines.append("%-6s gate: input FC (M %d, shift %d; real %.9g), recurrent FC (M %d, shift %d; real %.9g)"
                     % (g, p["input_fc"]["multiplier"], p["input_fc"]["shift"], p["input_fc"]["real"],
                        p["recurrent_fc"]["multiplier"], p["recurrent_fc"]["shift"], p["recurrent_fc"]["real"]))
    for name in ("forget_cell_mul", "input_mul", "output_mul"):
        p = P[name]
        lines.append("%-15s (M %d, shift %d; real %.9g), output offset %d, range [%d, %d]" % (
            name, p["multiplier"], p["shift"], p["real"], p["output_offset"], p["act_min"], p["act_max"]))
    shift = (15 + P["cell_state_scale_power"]) - 3
    lines.append("cell_clip %g -> quantized_cell_clip %d%s; cell_state_scale_power %d (Tanh of c: "
                 "input_multiplier %d, input_left_shift %d); cell gate Tanh power -12 (left shift 0)" % (
                     P["cell_clip"], P["quantized_cell_clip"], "" if P["cell_clip"] > 0 else " (no clipping)",
                     P["cell_state_scale_power"], 0 if shift >= 0 else 3, abs(shift)))
    return lines


# ---------------------------------------------------------------------------------------------
def selftest():
    """Unit checks of the primitives against values worked out by hand from the C code."""
    mbqm = multiply_by_quantized_multiplier
    srdhm, rdbpot = saturating_rounding_doubling_high_mul, rounding_divide_by_pot
    # The table: 256 entries, non-decreasing, sigmoid(i/24) * 2^16 within one step (at most one above).
    T = SIGMOID_TABLE_UINT16
    ideal = 65536.0 / (1.0 + np.exp(-np.arange(256) / 24.0))
    assert len(T) == 256 and T[0] == 32768 and T[255] == 65535 and np.all(np.diff(T) >= 0)
    d = T - np.floor(ideal + 0.5).astype(np.int64)
    assert d.min() == 0 and d.max() == 1 and int((d != 0).sum()) == 44
    # QuantizeMultiplier
    assert quantize_multiplier(0.5) == (1 << 30, 0)
    assert quantize_multiplier(1.0) == (1 << 30, 1)
    assert quantize_multiplier(0.75) == (3 << 29, 0)
    assert quantize_multiplier(2.0 ** -15) == (1 << 30, -14)
    assert quantize_multiplier(1.0 - 2.0 ** -40) == (1 << 30, 1)      # q_fixed == 2^31 corrected
    assert quantize_multiplier(2.0 ** -40) == (0, 0)                  # shift < -31 flushed
    assert quantize_multiplier(0.1) == (1717986918, -3)              # round(0.8 * 2^31)
    # SaturatingRoundingDoublingHighMul: ties toward +inf (VQRDMULH), saturation
    assert int(srdhm(3, 1 << 30)) == 2 and int(srdhm(-3, 1 << 30)) == -1 and int(srdhm(-5, 1 << 30)) == -2
    assert int(srdhm(INT32_MIN, INT32_MIN)) == INT32_MAX and int(srdhm(INT32_MIN, INT32_MAX)) == -INT32_MAX
    # RoundingDivideByPOT: ties away from zero
    assert [int(rdbpot(v, 1)) for v in (3, -3, 5, -5, 4, -4)] == [2, -2, 3, -3, 2, -2]
    assert int(rdbpot(-6, 2)) == -2 and int(rdbpot(-7, 2)) == -2 and int(rdbpot(6, 2)) == 2
    # MultiplyByQuantizedMultiplier: both rounding steps, and a left shift
    assert int(mbqm(100, 1 << 30, 0)) == 50 and int(mbqm(5, 1 << 30, 2)) == 10
    assert int(mbqm(3, 1 << 30, -1)) == 1        # 3 * 0.25 = 0.75: SRDHM 1.5 -> 2, then 2 / 2 = 1
    assert int(mbqm(-3, 1 << 30, -1)) == -1      # SRDHM -1.5 -> -1, then -1 / 2 = -0.5 -> -1
    assert int(mbqm(7, 3 << 29, -2)) == 1        # 7 * 0.1875 = 1.3125: SRDHM 5.25 -> 5, 5 / 4 -> 1
    assert int(mbqm(1 << 20, 1717986918, -3)) == 104858     # 0.1 * 2^20 = 104857.6
    # Logistic int16 (Q3.12 -> Q0.15), worked by hand from logistic.h:
    #   0: v = 0, table[0] = 32768: (32768 << 9) + 512 >> 10 = 16384
    #   4096 (1.0): v = 12288, uh = 24, ut = 0: (47911 << 9) + 512 >> 10 = 23956 (sigmoid(1) = 0.7311)
    #   -4096: (1 << 25) - (47911 << 9) + 511 = 9024511, >> 10 = 8812
    #   -32768 (-8.0): v = -98304, uh = 192: (1 << 25) - (65514 << 9) + 511 >> 10 = 11
    #   32767: v = 98301, uh = 191, ut = 509: (65513 << 9) + 509 * (65514 - 65513) + 512 >> 10 = 32757
    sig = logistic_int16(np.array([0, 4096, -4096, -32768, 32767]), 0, 0)
    assert sig.tolist() == [16384, 23956, 8812, 11, 32757], sig
    # Tanh int16 with the LSTM's power -12 (left shift 0, multiplier 3), by hand from tanh.h:
    #   0: (32768 << 8) - (1 << 23) + 128 >> 8 = 0
    #   2048 (0.5): v = 6144, uh = 24, ut = 0: (47911 << 8) - (1 << 23) + 128 >> 8 = 15143 (tanh 0.4621)
    #   -2048: -(47911 << 8) + (1 << 23) + 127 >> 8 = floor(-15142.5) = -15143
    #   32767 / -32768: uh >= 255 saturates: (0xFFFF << 8) - (1 << 23) + 128 >> 8 = 32767, and -32767
    th = lstm_tanh(-12, np.array([0, 2048, -2048, 32767, -32768]))
    assert th.tolist() == [0, 15143, -15143, 32767, -32767], th
    # Every int16 input against the real functions (Q3.12 in, Q0.15 out): within 1e-4 (the
    # worst errors are 3.1e-5 and 4.5e-5, about 1.5 steps of 2^-15)
    xs = np.arange(-32768, 32768)
    assert np.abs(logistic_int16(xs) / 32768.0 - 1 / (1 + np.exp(-xs / 4096.0))).max() < 1e-4
    assert np.abs(lstm_tanh(-12, xs) / 32768.0 - np.tanh(xs / 4096.0)).max() < 1e-4
    assert np.all(np.diff(logistic_int16(xs)) >= 0) and np.all(np.diff(lstm_tanh(-12, xs)) >= 0)
    # Tanh of a Q4.11 cell (power -11): shift 1, multiplier 0 -> 6; of Q2.13 (power -13): 3, >> 1
    assert lstm_tanh(-11, np.array([1024])).tolist() == lstm_tanh(-12, np.array([2048])).tolist()
    assert lstm_tanh(-13, np.array([4096])).tolist() == lstm_tanh(-12, np.array([2048])).tolist()
    # Tanh of a Q0.15 cell (power -15): lstm_eval.cc's negative-shift branch, left shift 12 - 15 =
    # -3 -> input_multiplier 3, input_left_shift 3, rounding 4; by hand from tanh.h:
    #   32767 (~1.0): v = (98301 + 4) >> 3 = 12288, uh = 48, ut = 0:
    #     (57724 << 8) - (1 << 23) + 128 >> 8 = 24956 (tanh(1) * 32768 = 24956.4)
    #   -32768: v = (-98304 + 4) >> 3 = -12288: -(57724 << 8) + (1 << 23) + 127 >> 8 = -24956
    #   4: v = (12 + 4) >> 3 = 2, uh = 0, ut = 2: (32768 << 8) + 2 * 683 - (1 << 23) + 128 >> 8 = 5
    assert lstm_tanh(-15, np.array([32767, -32768, 0, 4])).tolist() == [24956, -24956, 0, 5]
    # Mul: 0.5 * 0.5 in Q0.15 -> 0.25 in Q0.15 (M 2^30, shift -14)
    pm = {"multiplier": 1 << 30, "shift": -14, "input1_offset": 0, "input2_offset": 0,
          "output_offset": 0, "act_min": -32768, "act_max": 32767}
    assert mul_elementwise(np.array([16384, -16384]), np.array([16384, 16384]), pm).tolist() == [8192, -8192]
    # FC: [1, 2] . ([3, -4] + input offset 1) + 5 = 4 - 6 + 5 = 3, times 0.5: 1.5 -> 2 (SRDHM)
    pf = {"multiplier": 1 << 30, "shift": 0, "input_offset": 1, "weights_offset": 0,
          "output_offset": 0, "act_min": -32768, "act_max": 32767}
    assert fully_connected(np.array([3, -4]), np.array([[1, 2]]), np.array([5]), pf).tolist() == [2]
    assert checked_log2(np.float32(2.0 ** -12)) == (-12, True) and checked_log2(np.float32(0.3))[1] is False
    assert clipping(np.array([-32768, 32767, 5]), 32767).tolist() == [-32767, 32767, 5]
    return _tflm_2x3x2x2_check()


def _tflm_2x3x2x2_check():
    """TFLM's own int8 LSTM test (kernels/unidirectional_sequence_lstm_test.cc,
    TestUnidirectionalLSTMInt8, data from kernels/testdata/lstm_test_data.cc): batch 2, 3 steps,
    2 inputs, 2 cells, cell_clip 6 (clipping happens), hidden zero point -21; its float weights
    quantized with its settings, its float golden output met within its tolerance 1e-2. (Not
    bit-exact: TFLM's test only bounds the error; it exercises what trained_lstm_int8 does not:
    several batches, a non-zero hidden zero point, an active cell clip.)"""
    from types import SimpleNamespace as NS
    f32 = np.float32
    x_q, h_q, c_q = (f32(0.00784313725490196), 0), (f32(0.004705882165580988), -21), (f32(0.00024414062), 0)
    gates = {  # gate: (input weights, recurrent weights, bias, weight scale, bias scale), [state][input]
        "forget": ([-10, -10, -20, -20], [-10, -10, -20, -20], [1, 2], 0.15748031496062992, 0.0012351397251814111),
        "input": ([10, 10, 20, 20], [10, 10, 20, 20], [-1, -2], 0.15748031496062992, 0.0012351397251814111),
        "cell": ([1, 1, 1, 1], [1, 1, 1, 1], [0, 0], 0.007874015748031496, 6.175698625907056e-5),
        "output": ([1, 1, 1, 1], [1, 1, 1, 1], [0, 0], 0.007874015748031496, 6.175698625907056e-5)}
    tensors, buffers = [], [NS(data=None)]

    def tensor(name, ttype, shape, q, data=None, variable=False):
        if data is not None:
            buffers.append(NS(data=np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)))
        tensors.append(NS(name=name, type=ttype, shape=shape, buffer=len(buffers) - 1 if data is not None else 0,
                          isVariable=variable, quantization=NS(scale=[float(q[0])], zeroPoint=[q[1]])))
        return len(tensors) - 1

    def sym(values, scale, dtype, limit):  # SymmetricQuantize: round(v / scale), clamped
        return np.clip(np.round(np.float32(values) / np.float32(scale)), -limit, limit).astype(dtype)
    inputs = [-1] * 24
    inputs[INPUT] = tensor("input", INT8, [2, 3, 2], x_q)
    for g, (w, r, b, ws, bs) in gates.items():
        inputs[INPUT_WEIGHTS[g]] = tensor(g + "_w", INT8, [2, 2], (ws, 0), sym(w, ws, np.int8, 127))
        inputs[RECURRENT_WEIGHTS[g]] = tensor(g + "_r", INT8, [2, 2], (ws, 0), sym(r, ws, np.int8, 127))
        inputs[BIASES[g]] = tensor(g + "_b", INT32, [2], (bs, 0), sym(b, bs, np.int32, INT32_MAX))
    inputs[HIDDEN_STATE] = tensor("hidden", INT8, [2, 2], h_q, variable=True)
    inputs[CELL_STATE] = tensor("cell", INT16, [2, 2], c_q, variable=True)
    out = tensor("output", INT8, [2, 3, 2], h_q)
    op = NS(opcodeIndex=0, inputs=inputs, outputs=[out], builtinOptionsType=UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS,
            builtinOptions=NS(fusedActivationFunction=ACT_TANH, cellClip=6.0, projClip=3.0, timeMajor=False,
                              asymmetricQuantizeInputs=True, diagonalRecurrentTensors=False))
    mt = NS(operatorCodes=[NS(deprecatedBuiltinCode=UNIDIRECTIONAL_SEQUENCE_LSTM, builtinCode=0)],
            subgraphs=[NS(tensors=tensors)], buffers=buffers)
    x = np.array([0.2, 0.3, 0.2, 0.3, 0.2, 0.3, -0.98, 0.62, 0.01, 0.99, 0.49, -0.32], np.float32)
    xq = np.clip(np.round(x / x_q[0]) + x_q[1], -128, 127).astype(np.int8).reshape(2, 3, 2)
    golden = np.array([0.26455893, 0.26870455, 0.47935803, 0.47937014, 0.58013272, 0.58013278,
                       -1.41184672e-3, -1.43329117e-5, 0.46887168, 0.46891281, 0.50054074, 0.50054148])
    P = prepare(mt, op)
    assert P["quantized_cell_clip"] == 24576
    yq = run(mt, op, xq)
    y = (yq.astype(np.float64).ravel() - h_q[1]) * float(h_q[0])
    err = np.abs(y - golden).max()
    assert err < 1e-2, (y, golden)
    # The same op time-major (input [3, 2, 2], both rows at each step) on the transposed input
    # gives the transposed output: the rows never mix.
    tensors[inputs[INPUT]].shape, tensors[out].shape = [3, 2, 2], [3, 2, 2]
    op.builtinOptions.timeMajor = True
    assert np.array_equal(run(mt, op, xq.transpose(1, 0, 2).copy()), yq.transpose(1, 0, 2))
    return err


def main():
    """Self-test, then the parameters of each sequence LSTM of the models given (by default
    trained_lstm_int8); with --run, also the first LSTM's output on a raw int8 input file (the
    LSTM's input tensor, raw bytes), written raw: e.g. to check a compiler on inputs of one's own
    (full-range codes saturate the gates and clip the cell state; the refs' inputs do not)."""
    import argparse
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import layers
    root = os.path.normpath(os.path.join(here, "..", ".."))
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("models", nargs="*",
                    default=[os.path.join(root, "tests", "tflite", "models", "trained_lstm_int8.tflite")])
    ap.add_argument("--run", nargs=2, metavar=("INPUT.bin", "OUTPUT.bin"))
    args = ap.parse_args()
    print("selftest passed (TFLM's 2x3x2x2 int8 LSTM test: max |error| %.4g, its tolerance 1e-2)" % selftest())
    S = layers.Schema(os.path.join(root, "compiler", "frontend", "tflite", "TFLiteSchema.fbs"))
    try:
        for path in args.models:
            mt = S.unpack(open(path, "rb").read())
            lstms = [op for op in mt.subgraphs[0].operators if S.op_name(mt, op) == "UNIDIRECTIONAL_SEQUENCE_LSTM"]
            for k, op in enumerate(lstms):
                print("%s LSTM %d:" % (os.path.basename(path), k))
                print("  " + "\n  ".join(describe(prepare(mt, op))))
            if args.run and lstms:
                P = prepare(mt, lstms[0])
                seq = (P["steps"], P["batch"]) if P["time_major"] else (P["batch"], P["steps"])
                x = np.fromfile(args.run[0], dtype=np.int8).reshape(seq + (P["n_input"],))
                y = run(mt, lstms[0], x)
                y.tofile(args.run[1])
                print("wrote %s: int8 %s, [%d, %d]" % (args.run[1], "x".join(map(str, y.shape)), y.min(), y.max()))
    finally:
        S.close()


if __name__ == "__main__":
    sys.exit(main())
