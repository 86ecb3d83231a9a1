"""A numpy reference for the float TFLite models Arm NN 22 cannot run (generate.py's
NUMPY_ORACLE): TFLite's float kernels, written from their definitions in tensorflow/lite/kernels
(lstm_eval.cc for UNIDIRECTIONAL_SEQUENCE_LSTM), for the ops those models use. Independent of
kiln: it reads the model with flatc's Python code for the schema and computes in float32, as
TFLite's reference kernels do.
"""

import numpy as np

UNIDIRECTIONAL_SEQUENCE_LSTM, RESHAPE, FULLY_CONNECTED, SOFTMAX = 44, 22, 9, 25


def _sigmoid(v):
    return (1 / (1 + np.exp(-v))).astype(np.float32)


def _lstm(op, arg, x):
    """TFLite's float LSTM step over the sequence: gates from separate input and recurrent
    weights and biases (input, forget, cell, output), the cell state clipped, no CIFG, peephole,
    projection or layer normalization (asserted), the state starting at zero."""
    o = op.builtinOptions
    assert o.fusedActivationFunction == 4 and not o.timeMajor  # TANH, batch-major
    for absent in [9, 10, 11, 16, 17] + list(range(20, len(op.inputs))):
        assert op.inputs[absent] < 0, "input %d is not supported by this oracle" % absent
    wi, wf, wc, wo = (arg(k) for k in (1, 2, 3, 4))
    ri, rf, rc, ro = (arg(k) for k in (5, 6, 7, 8))
    bi, bf, bc, bo = (arg(k) for k in (12, 13, 14, 15))
    batch, seq, _ = x.shape
    hidden = wi.shape[0]
    h = np.zeros((batch, hidden), np.float32)
    c = np.zeros((batch, hidden), np.float32)
    out = np.zeros((batch, seq, hidden), np.float32)
    for t in range(seq):
        xt = x[:, t]
        i = _sigmoid(xt @ wi.T + h @ ri.T + bi)
        f = _sigmoid(xt @ wf.T + h @ rf.T + bf)
        g = np.tanh(xt @ wc.T + h @ rc.T + bc)
        c = (f * c + i * g).astype(np.float32)
        if o.cellClip > 0:
            c = np.clip(c, -o.cellClip, o.cellClip)
        og = _sigmoid(xt @ wo.T + h @ ro.T + bo)
        h = (og * np.tanh(c)).astype(np.float32)
        out[:, t] = h
    return out


def run(S, buf, x, values=None):
    """The output of the one-input, one-output float model `buf` on input `x`. If `values` (a
    dict) is given, it receives every tensor computed, by tensor index."""
    mt = S.unpack(buf)
    sg = mt.subgraphs[0]
    values = {} if values is None else values
    values[sg.inputs[0]] = np.asarray(x, np.float32)

    def arg(op, k):
        i = op.inputs[k]
        if i in values:
            return values[i]
        t = sg.tensors[i]
        data = mt.buffers[t.buffer].data
        dtype = {0: np.float32, 2: np.int32}[t.type]
        return np.frombuffer(bytes(data), dtype=dtype).reshape(t.shape)

    for op in sg.operators:
        code = max(mt.operatorCodes[op.opcodeIndex].deprecatedBuiltinCode,
                   mt.operatorCodes[op.opcodeIndex].builtinCode)
        a = arg(op, 0)
        if code == UNIDIRECTIONAL_SEQUENCE_LSTM:
            y = _lstm(op, lambda k: arg(op, k), a)
        elif code == RESHAPE:
            y = a.reshape(sg.tensors[op.outputs[0]].shape)
        elif code == FULLY_CONNECTED:
            assert op.builtinOptions.fusedActivationFunction == 0
            y = (a.reshape(-1, arg(op, 1).shape[1]) @ arg(op, 1).T + arg(op, 2)).astype(np.float32)
        elif code == SOFTMAX:
            e = np.exp((a - a.max(axis=-1, keepdims=True)) * op.builtinOptions.beta)
            y = (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)
        else:
            raise NotImplementedError("op %d" % code)
        values[op.outputs[0]] = y.reshape(sg.tensors[op.outputs[0]].shape)
    return values[sg.outputs[0]]
