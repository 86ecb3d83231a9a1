"""Layer-by-layer references for the int8 TFLite test models (used by generate.py).

Arm NN's CpuRef computes quantized ops through float, so each op may differ from TFLite's
integer arithmetic (which kiln follows) by one step on a few elements, and over a deep network
the differences accumulate. The tests therefore compare op by op: every operator k of each
int8 model, alone, on the same input. For sample 0 of each model in LAYER_MODELS this writes,
into tests/tflite/refs/layers/:

  <model>/<k>.tflite         the model cut down to operator k: the same tensors (shape, type,
                             name, quantization, byte for byte), buffers, op code and options as
                             the original; subgraph inputs = the op's non-constant inputs (in the
                             op's input order), outputs = the op's outputs. Tensors and buffers
                             the op does not use are dropped (indices renumbered; buffer 0 stays
                             the empty sentinel), only the op's own op code is kept.
  <model>/<k>.input<i>.bin   the op's i-th non-constant input (i counts non-constant inputs
                             only, in the op's input order): the model's own input (the same
                             bytes as refs/<model>.0.input.bin) or Arm NN's output of the
                             single-op model of the op that produced the tensor ("chained")
  <model>/<k>.output.bin     Arm NN CpuRef's output of <k>.tflite on those inputs; for the ops
                             of NUMPY_OPS (which Arm NN cannot parse) a numpy oracle's instead
  manifest.txt               one line per .bin file (see MANIFEST_HEADER)

A variable tensor (an LSTM's state: is_variable, no data) is kept in the cut as the original
has it; it is not a subgraph input (the op reads and writes it; TFLM resets it, kiln starts it
at its reset value).

The single-op models are written with the FlatBuffers object API from Python code that flatc
generates at run time, into a temporary directory, from kiln's schema subset
(compiler/frontend/tflite/TFLiteSchema.fbs). Re-packing through a subset drops what the subset
does not declare, so before cutting a model `check_declared()` walks its tables and fails if
any holds a field beyond the subset's slots or a builtin-options type the subset lacks, and
after writing each single-op model `check_cut()` re-reads it and compares every kept tensor,
buffer, op code and the operator (options included) with the original, numpy arrays byte for
byte (float32 scales included).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import integer_lstm_oracle  # noqa: E402  (tools/tflite_refs/integer_lstm_oracle.py)

# The int8 models of generate.RUN; their tensors are int8/int32 (and trained_lstm_int8's cell
# state int16). Arm NN runs all their ops but trained_lstm_int8's LSTM (NUMPY_OPS).
LAYER_MODELS = ["ad01_int8", "hello_world_int8", "kws_ref_model", "micro_speech_quantized",
                "pretrainedResnet_quant", "trained_lstm_int8", "vww_96_int8"]
SAMPLE = 0
# Ops Arm NN 20.08's TfLite parser rejects, computed instead by a numpy oracle of TFLM's kernel
# (bit-exact with TFLM, not within a step like Arm NN): op name -> (oracle(S, single-op model
# bytes, its one non-constant input) -> its output, what Arm NN says; checked each run).
NUMPY_OPS = {
    "UNIDIRECTIONAL_SEQUENCE_LSTM": (integer_lstm_oracle.run_model, "Operator not supported"),
}
NUMPY_OPS_NOTE = "numpy_TFLM_integer_kernel(integer_lstm_oracle.py)"
MANIFEST_HEADER = "file model k op layer_model kind tensor dtype shape scale zero_point min max"
TFL_TYPES = {0: "float32", 2: "int32", 3: "uint8", 4: "int64", 7: "int16", 9: "int8"}
BUFFER_ALIGN = 16  # as TFLite's converter aligns buffer data


def _shape_signature_ok(t, off):
    """shape_signature: the shape with unknown dimensions as -1. Dropping it only makes the
    shape static, if every known dimension equals the shape's."""
    from flatbuffers import number_types as N
    sig = t._tab.GetVectorAsNumpy(N.Int32Flags, t._tab.Offset(off)).tolist()
    shape = t.ShapeAsNumpy().tolist() if t.ShapeLength() else []
    return len(sig) == len(shape) and all(a in (-1, b) for a, b in zip(sig, shape))


def _has_rank_ok(t, off):
    """has_rank tells a scalar (shape [], has_rank true) from an unknown rank (shape [], false);
    for a non-empty shape it adds nothing."""
    return t.ShapeLength() > 0


def _intermediates_ok(op, off):
    """Operator.intermediates: tensors whose scales TFLite's integer LSTM (and TFLM's CMSIS-NN
    one) reads: 0-3 the gates' (with layer normalization only, else 2^-12), 4 the hidden
    state's. TFLM's reference LSTM ignores them (gates at 2^-12, the hidden state at its own
    tensor's scale), as kiln does: droppable on a sequence LSTM whose intermediates are none of
    its inputs or outputs. (In trained_lstm_int8 intermediate 4 is quantized as the hidden state.)"""
    from flatbuffers import number_types as N
    inter = set(op._tab.GetVectorAsNumpy(N.Int32Flags, op._tab.Offset(off)).tolist())
    io = set(op.InputsAsNumpy().tolist()) | set(op.OutputsAsNumpy().tolist())
    return op.BuiltinOptionsType() == integer_lstm_oracle.UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS and \
        not inter & io


# Fields of the public schema (tensorflow/lite/schema/schema.fbs) that kiln's subset does not
# declare, met in the models, and dropped by re-packing: (table, slot) -> (name, check that
# dropping it changes nothing either kiln or Arm NN reads; the check returns True if fine).
DROPPABLE = {
    ("Operator", 8): ("intermediates", _intermediates_ok),    # TFLite's integer LSTM only
    ("Model", 5): ("metadata_buffer", lambda m, off: True),   # buffer indices of metadata
    ("Model", 6): ("metadata", lambda m, off: True),          # e.g. min_runtime_version
    ("Model", 7): ("signature_defs", lambda m, off: True),    # SavedModel signatures
    ("Tensor", 7): ("shape_signature", _shape_signature_ok),
    ("Tensor", 8): ("has_rank", _has_rank_ok),
}


class Schema:
    """Python object-API code for kiln's TFLite schema subset, generated by flatc into a
    temporary directory (removed by close(); the modules stay imported)."""

    def __init__(self, fbs):
        if shutil.which("flatc") is None:
            raise SystemExit("flatc not found: apt-get install flatbuffers-compiler")
        self.dir = tempfile.mkdtemp(prefix="kiln_tflite_schema_")
        subprocess.run(["flatc", "--python", "--gen-object-api", "-o", self.dir, fbs], check=True)
        pkg = os.path.join(self.dir, "tflite")
        # Number of vtable slots each table of the subset declares (a union field takes two).
        self.slots = {}
        for f in sorted(os.listdir(pkg)):
            offs = [int(o) for o in re.findall(r"self\._tab\.Offset\((\d+)\)", open(os.path.join(pkg, f)).read())]
            if offs:
                self.slots[f[:-3]] = (max(offs) - 4) // 2 + 1
        sys.path.insert(0, self.dir)
        try:
            import tflite.Model, tflite.Buffer, tflite.BuiltinOperator, tflite.BuiltinOptions
            import tflite.Operator, tflite.SubGraph, tflite.Tensor, tflite.OperatorCode
            import tflite.QuantizationParameters
            self.T = tflite
            # Import every generated module now: the generated code imports some lazily.
            for f in sorted(os.listdir(pkg)):
                if f.endswith(".py") and f != "__init__.py":
                    __import__("tflite." + f[:-3])
        finally:
            sys.path.remove(self.dir)
        self.op_names = {v: k for k, v in vars(tflite.BuiltinOperator.BuiltinOperator).items()
                         if not k.startswith("_")}
        self.options = {v: k for k, v in vars(tflite.BuiltinOptions.BuiltinOptions).items()
                        if not k.startswith("_")}
        tflite.Buffer.BufferT.Pack = _pack_buffer_aligned

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def read(self, buf):
        return self.T.Model.Model.GetRootAsModel(buf, 0)

    def unpack(self, buf):
        return self.T.Model.ModelT.InitFromObj(self.read(buf))

    def op_name(self, mt, op):
        oc = mt.operatorCodes[op.opcodeIndex]
        return self.op_names[max(oc.deprecatedBuiltinCode, oc.builtinCode)]

    # -- nothing may be lost when re-packing through the subset ---------------------------
    def _extra(self, obj, cls, where, errors, dropped):
        """Fields present in table `obj` beyond the slots the subset declares for `cls`: those of
        DROPPABLE whose check passes go to `dropped` (a Counter), any other to `errors`."""
        tab = obj._tab
        vt = tab.Pos - tab.Get(self._soff, tab.Pos)
        vt_slots = (tab.Get(self._u16, vt) - 4) // 2
        for s in range(self.slots[cls], vt_slots):
            if tab.Get(self._u16, vt + 4 + 2 * s):
                name, ok = DROPPABLE.get((cls, s), (None, None))
                if ok is None:
                    errors.append("%s: %s field slot %d is not in kiln's schema subset" % (where, cls, s))
                elif not ok(obj, 4 + 2 * s):
                    errors.append("%s: %s.%s cannot be dropped safely" % (where, cls, name))
                else:
                    dropped[cls + "." + name] += 1

    def check_declared(self, buf, what):
        """Fails if re-packing `buf` through the subset would drop anything but the fields of
        DROPPABLE (which pass their check); returns {dropped field: count}."""
        import collections
        from flatbuffers import number_types as N
        self._soff, self._u16 = N.SOffsetTFlags, N.Uint16Flags
        T, errors, dropped = self.T, [], collections.Counter()
        m = self.read(buf)
        self._extra(m, "Model", what, errors, dropped)
        for i in range(m.OperatorCodesLength()):
            self._extra(m.OperatorCodes(i), "OperatorCode", "%s opcode %d" % (what, i), errors, dropped)
        for i in range(m.BuffersLength()):
            b = m.Buffers(i)
            self._extra(b, "Buffer", "%s buffer %d" % (what, i), errors, dropped)
            if b.Offset() or b.Size():
                errors.append("%s buffer %d: data outside the flatbuffer" % (what, i))
        for g in range(m.SubgraphsLength()):
            sg = m.Subgraphs(g)
            self._extra(sg, "SubGraph", "%s subgraph %d" % (what, g), errors, dropped)
            for i in range(sg.TensorsLength()):
                t = sg.Tensors(i)
                self._extra(t, "Tensor", "%s tensor %d" % (what, i), errors, dropped)
                q = t.Quantization()
                if q is not None:
                    self._extra(q, "QuantizationParameters", "%s tensor %d" % (what, i), errors, dropped)
                    if q.DetailsType():
                        errors.append("%s tensor %d: quantization details" % (what, i))
                if t.Sparsity() is not None:
                    errors.append("%s tensor %d: sparse" % (what, i))
            for i in range(sg.OperatorsLength()):
                op = sg.Operators(i)
                self._extra(op, "Operator", "%s op %d" % (what, i), errors, dropped)
                ot = op.BuiltinOptionsType()
                if ot and ot not in self.options:
                    errors.append("%s op %d: builtin options type %d not in the subset" % (what, i, ot))
                elif ot:
                    cls = self.options[ot]
                    mod = getattr(T, cls)
                    opts = getattr(mod, cls)()
                    tbl = op.BuiltinOptions()
                    opts.Init(tbl.Bytes, tbl.Pos)
                    self._extra(opts, cls, "%s op %d options" % (what, i), errors, dropped)
        if errors:
            raise SystemExit("re-packing would lose data:\n  " + "\n  ".join(errors))
        return dict(dropped)


def _pack_buffer_aligned(self, builder):
    """BufferT.Pack with the data vector aligned to BUFFER_ALIGN bytes (TFLite's converter
    does the same; kiln and Arm NN may read int32 biases in place)."""
    T = sys.modules["tflite.Buffer"]
    data = None
    if self.data is not None:
        raw = np.ascontiguousarray(self.data, dtype=np.uint8).tobytes()
        builder.StartVector(1, len(raw), BUFFER_ALIGN)
        builder.head = builder.Head() - len(raw)
        builder.Bytes[builder.Head():builder.Head() + len(raw)] = raw
        builder.vectorNumElems = len(raw)
        data = builder.EndVector()
    T.BufferStart(builder)
    if data is not None:
        T.BufferAddData(builder, data)
    T.BufferAddOffset(builder, self.offset)
    T.BufferAddSize(builder, self.size)
    return T.BufferEnd(builder)


def _same(a, b):
    """Deep equality of object-API values; numpy arrays by dtype and bytes."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and a.tobytes() == b.tobytes())
    if isinstance(a, list) or isinstance(b, list):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dict__") or hasattr(b, "__dict__"):
        return type(a) is type(b) and vars(a).keys() == vars(b).keys() and \
            all(_same(vars(a)[k], vars(b)[k]) for k in vars(a))
    return a == b


def check_packed(S, m, data, tflite_io):
    """Re-reads model `data`, packed from `m`: its file identifier, every field as built
    (float32 scales by their bytes), buffer data aligned, and the same inputs and outputs
    through generate.py's own reader (`tflite_io`). Returns the re-read model."""
    assert data[4:8] == b"TFL3", "file identifier"
    back = S.unpack(data)
    assert _same(back, m), "re-read model differs from the one built"
    r = S.read(data)
    for i in range(r.BuffersLength()):
        tab = r.Buffers(i)._tab
        o = tab.Offset(4)
        assert not o or tab.Vector(o) % BUFFER_ALIGN == 0, "buffer %d data not aligned" % i
    with tempfile.NamedTemporaryFile(suffix=".tflite") as f:
        f.write(data)
        f.flush()
        ins, outs = tflite_io(f.name)
    assert ins == [tensor_desc(back, int(i)) for i in back.subgraphs[0].inputs]
    assert outs == [tensor_desc(back, int(i)) for i in back.subgraphs[0].outputs]
    return back


def _has_data(mt, t):
    return mt.buffers[t.buffer].data is not None and len(mt.buffers[t.buffer].data) > 0


def nonconst_inputs(mt, op):
    """The op's inputs with no data, in order, but for variable tensors (an LSTM's state)."""
    sg = mt.subgraphs[0]
    out = []
    for i in op.inputs:
        if i >= 0 and not _has_data(mt, sg.tensors[i]) and not sg.tensors[i].isVariable and i not in out:
            out.append(int(i))
    return out


def cut(S, mt, k):
    """Single-op model of operator k of `mt` (not modified): (bytes, old->new tensor map)."""
    import copy
    sg = mt.subgraphs[0]
    op = sg.operators[k]
    used = sorted({int(i) for i in list(op.inputs) + list(op.outputs) if i >= 0})
    tmap = {o: n for n, o in enumerate(used)}
    assert mt.buffers[0].data is None or len(mt.buffers[0].data) == 0, "buffer 0 is not empty"
    bufs = [0] + sorted({sg.tensors[i].buffer for i in used} - {0})
    bmap = {o: n for n, o in enumerate(bufs)}

    m2 = S.T.Model.ModelT()
    m2.version, m2.description = mt.version, mt.description
    m2.operatorCodes = [copy.deepcopy(mt.operatorCodes[op.opcodeIndex])]
    m2.buffers = [copy.deepcopy(mt.buffers[b]) for b in bufs]
    g = S.T.SubGraph.SubGraphT()
    g.name = sg.name
    g.tensors = []
    for o in used:
        t = copy.deepcopy(sg.tensors[o])
        t.buffer = bmap[t.buffer]
        g.tensors.append(t)
    o2 = copy.deepcopy(op)
    o2.opcodeIndex = 0
    o2.inputs = [tmap[int(i)] if i >= 0 else -1 for i in op.inputs]
    o2.outputs = [tmap[int(i)] for i in op.outputs]
    g.operators = [o2]
    g.inputs = [tmap[i] for i in nonconst_inputs(mt, op)]
    g.outputs = [tmap[int(i)] for i in op.outputs]
    m2.subgraphs = [g]

    import flatbuffers
    b = flatbuffers.Builder(1 << 16)
    b.Finish(m2.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output()), tmap


def check_cut(S, mt, k, data, tmap):
    """Re-reads the single-op model and compares it with operator k of the original."""
    assert data[4:8] == b"TFL3", "file identifier"
    m2 = S.unpack(data)
    sg, g = mt.subgraphs[0], m2.subgraphs[0]
    op, o2 = sg.operators[k], g.operators[0]
    assert len(m2.subgraphs) == 1 and len(g.operators) == 1 and len(g.tensors) == len(tmap)
    assert _same(m2.operatorCodes[o2.opcodeIndex], mt.operatorCodes[op.opcodeIndex]), "op code"
    assert m2.version == mt.version and m2.description == mt.description and g.name == sg.name
    for o, n in tmap.items():
        a, b = sg.tensors[o], g.tensors[n]
        assert _same(mt.buffers[a.buffer], m2.buffers[b.buffer]), "buffer of tensor %d" % o
        assert (_has_data(mt, a), _has_data(m2, b)) in ((True, True), (False, False))
        b.buffer = a.buffer  # the only field allowed to differ
        assert _same(a, b), "tensor %d" % o
    assert [tmap[int(i)] if i >= 0 else -1 for i in op.inputs] == list(o2.inputs), "op inputs"
    assert [tmap[int(i)] for i in op.outputs] == list(o2.outputs), "op outputs"
    for f in set(vars(op)) - {"opcodeIndex", "inputs", "outputs"}:
        assert _same(getattr(op, f), getattr(o2, f)), "operator field " + f
    if op.builtinOptionsType:
        assert o2.builtinOptions is not None and o2.builtinOptionsType == op.builtinOptionsType
    assert list(g.inputs) == [tmap[i] for i in nonconst_inputs(mt, op)]
    assert list(g.outputs) == [tmap[int(i)] for i in op.outputs]
    r = S.read(data)
    for i in range(r.BuffersLength()):
        tab = r.Buffers(i)._tab
        o = tab.Offset(4)
        assert not o or tab.Vector(o) % BUFFER_ALIGN == 0, "buffer %d data not aligned" % i


def tensor_desc(mt, i):
    t = mt.subgraphs[0].tensors[i]
    q = t.quantization
    scale = q.scale if q is not None and q.scale is not None else []
    zp = q.zeroPoint if q is not None and q.zeroPoint is not None else []
    assert len(scale) <= 1 and len(zp) <= 1, "per-axis quantized activation"
    return {"name": t.name.decode(), "shape": tuple(int(d) for d in t.shape),
            "dtype": TFL_TYPES[t.type],
            "scale": float(scale[0]) if len(scale) else None,
            "zero_point": int(zp[0]) if len(zp) else None}


def _manifest_line(name, model, k, opname, kind, t, a):
    scale, zp = ("%.9g" % t["scale"], str(t["zero_point"])) if t["scale"] is not None else ("-", "-")
    fields = [name, model, str(k), opname, "%s/%d.tflite" % (model, k), kind, t["name"], t["dtype"],
              "x".join(map(str, t["shape"])), scale, zp, "%.9g" % a.min(), "%.9g" % a.max()]
    assert len(fields) == len(MANIFEST_HEADER.split())
    assert all(f and not any(c.isspace() for c in f) for f in fields), fields
    return " ".join(fields)


def read_manifest(layers_dir):
    """How a test reads the layer refs: a list of (fields dict, array of the file's dtype/shape)."""
    out = []
    keys = MANIFEST_HEADER.split()
    for line in open(os.path.join(layers_dir, "manifest.txt")):
        if line.startswith("#") or not line.strip():
            continue
        assert len(line.split()) == len(keys), line
        f = dict(zip(keys, line.split()))
        shape = tuple(int(d) for d in f["shape"].split("x"))
        a = np.fromfile(os.path.join(layers_dir, f["file"]), dtype=np.dtype(f["dtype"]).newbyteorder("<"))
        out.append((f, a.reshape(shape)))
    return out


def run_op(arm, S, path, data, opname, xs, tin, tout, what):
    """The outputs of the single-op model `data` (written at `path`) on its non-constant inputs
    xs (tensor dicts tin, outputs tout): Arm NN's, or for NUMPY_OPS the numpy oracle's, after
    checking that Arm NN still rejects the op."""
    if opname in NUMPY_OPS:
        oracle, armnn_says = NUMPY_OPS[opname]
        try:
            arm.run_all(path, {t["name"]: (x, t) for x, t in zip(xs, tin)}, list(tout))
        except RuntimeError as e:
            assert armnn_says in str(e), "%s (%s): Arm NN's error changed: %s" % (what, opname, e)
        else:
            raise SystemExit("%s (%s): Arm NN now runs it: drop it from NUMPY_OPS?" % (what, opname))
        assert len(xs) == 1 and len(tout) == 1, what
        y = oracle(S, data, xs[0])
        assert str(y.dtype) == tout[0]["dtype"] and y.shape == tout[0]["shape"], (what, y.dtype, y.shape)
        return [y]
    try:
        return arm.run_all(path, {t["name"]: (x, t) for x, t in zip(xs, tin)}, list(tout))
    except RuntimeError as e:
        raise SystemExit("%s (%s): Arm NN refuses the single-op model: %s" % (what, opname, e))


def chain(arm, S, buf, x, what):
    """Runs the one-input model `buf` op by op, each op cut out as by generate() (Arm NN, or
    NUMPY_OPS) and fed the outputs of those before it; returns {tensor index: value}. For the
    models Arm NN cannot run whole (generate.py's INTEGER_ORACLE)."""
    S.check_declared(buf, what)
    mt = S.unpack(buf)
    sg = mt.subgraphs[0]
    assert len(mt.subgraphs) == 1 and len(sg.inputs) == 1, what
    values = {int(sg.inputs[0]): np.asarray(x)}
    with tempfile.TemporaryDirectory(prefix="kiln_tflite_chain_") as tmp:
        for k, op in enumerate(sg.operators):
            data, tmap = cut(S, mt, k)
            check_cut(S, mt, k, data, tmap)
            path = os.path.join(tmp, "%d.tflite" % k)
            with open(path, "wb") as f:
                f.write(data)
            ins, outs = nonconst_inputs(mt, op), [int(o) for o in op.outputs]
            tin, tout = [tensor_desc(mt, i) for i in ins], [tensor_desc(mt, o) for o in outs]
            xs = [values[i].reshape(t["shape"]).astype(t["dtype"]) for i, t in zip(ins, tin)]
            ys = run_op(arm, S, path, data, S.op_name(mt, op), xs, tin, tout, "%s op %d" % (what, k))
            for o, t, y in zip(outs, tout, ys):
                values[o] = y.reshape(t["shape"])
    return values


def generate(arm, schema_fbs, models_dir, layers_dir, model_inputs, write_checked, header):
    """Writes the layer refs. model_inputs: {model: sample-0 input array}; write_checked and
    header (comment lines) come from generate.py. Returns summary lines."""
    if os.path.isdir(layers_dir):
        shutil.rmtree(layers_dir)
    os.makedirs(layers_dir)
    S = Schema(schema_fbs)
    lines = list(header)
    written, summary = {}, []
    try:
        for model in LAYER_MODELS:
            buf = open(os.path.join(models_dir, model + ".tflite"), "rb").read()
            dropped = S.check_declared(buf, model)
            mt = S.unpack(buf)
            sg = mt.subgraphs[0]
            assert len(mt.subgraphs) == 1 and len(sg.inputs) == 1, model
            os.makedirs(os.path.join(layers_dir, model))
            values = {int(sg.inputs[0]): np.asarray(model_inputs[model])}
            for k, op in enumerate(sg.operators):
                opname = S.op_name(mt, op)
                data, tmap = cut(S, mt, k)
                check_cut(S, mt, k, data, tmap)
                path = os.path.join(layers_dir, model, "%d.tflite" % k)
                with open(path, "wb") as f:
                    f.write(data)
                ins = nonconst_inputs(mt, op)
                outs = [int(o) for o in op.outputs]
                tin = [tensor_desc(mt, i) for i in ins]
                tout = [tensor_desc(mt, o) for o in outs]
                xs = [values[i].reshape(t["shape"]).astype(t["dtype"]) for i, t in zip(ins, tin)]
                ys = run_op(arm, S, path, data, opname, xs, tin, tout, "%s op %d" % (model, k))
                for j, (i, t, x) in enumerate(zip(ins, tin, xs)):
                    name = "%s/%d.input%d.bin" % (model, k, j)
                    write_checked(os.path.join(layers_dir, name), x, t["dtype"], t["shape"])
                    written[name] = x
                    lines.append(_manifest_line(name, model, k, opname, "input%d" % j, t, x))
                assert len(outs) == 1, (model, k, "several outputs")
                for o, t, y in zip(outs, tout, ys):
                    name = "%s/%d.output.bin" % (model, k)
                    y = y.reshape(t["shape"])
                    write_checked(os.path.join(layers_dir, name), y, t["dtype"], t["shape"])
                    written[name] = y
                    lines.append(_manifest_line(name, model, k, opname, "output", t, y))
                    values[o] = y
            # The chain ends where the model ends: the last op's output is the model's output.
            assert [int(o) for o in sg.outputs] == outs, model
            size = sum(os.path.getsize(os.path.join(layers_dir, model, f))
                       for f in os.listdir(os.path.join(layers_dir, model)))
            summary.append("%-24s %2d single-op models, %7d bytes; dropped: %s" % (
                model, len(sg.operators), size,
                ", ".join("%s (%d)" % kv for kv in sorted(dropped.items())) or "nothing"))
    finally:
        S.close()
    with open(os.path.join(layers_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    back = read_manifest(layers_dir)
    assert sorted(f["file"] for f, _ in back) == sorted(written)
    for f, a in back:
        assert a.dtype == written[f["file"]].dtype and np.array_equal(a, written[f["file"]]), f["file"]
    return summary
