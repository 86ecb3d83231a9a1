//===- FoldQDQ.cpp - QDQ groups -> int8 ops -------------------------------===//
//
// Quantized ONNX models (ONNX Runtime's quantizer, PyTorch's export, and
// QLinearConv / QLinearMatMul as imported) say "this op is int8" by
// surrounding a float op with DequantizeLinear on its inputs and
// QuantizeLinear on its result. Such a group becomes the op's int8 form,
// the one the TFLite frontend builds, so it gets the int8 kernels and
// TFLite's requantization (a Q31 multiplier and shift; ONNX Runtime
// requantizes in float, so a result may differ from it by one step where
// the exact value lies on a rounding tie or close to one).
//
// uint8 tensors become int8 ones with the zero point 128 lower: the same
// real values, the integers shifted. A group's int8 result goes back to the
// model's raw integers through kiln.Dequantize and the group's own
// QuantizeLinear (exact: the dequantized value is a multiple of the scale);
// the next group reads the int8 value directly, a DequantizeLinear of the
// raw integers reads the kiln.Dequantize, and int8 graph inputs and outputs
// are the int8 values (uint8 ones a kiln.Quantize from or to them, an exact
// shift), so inside a chain of groups only int8 tensors remain. A group whose op has no int8 form (or whose parameters do not fit
// it: non-constant or asymmetric weights, an int8 op that needs per-tensor
// activations) stays in float between its DQ and Q.
//
// It runs before constant folding, which would turn the dequantized weights
// into floats (the importer keeps DequantizeLinear of constants for it).
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/QuantizedTypes.h"
#include "compiler/passes/Passes.h"
#include "compiler/passes/QDQGroups.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace kiln {
namespace {

/// The constant parameters of a QuantizeLinear or DequantizeLinear node in
/// int8 terms (zero points of uint8 shifted by -128), and the dtype of its
/// integers (int8, uint8, or a bias' int32).
struct LinearQuant {
  QuantParams params;
  DType raw = DType::I8;

  bool isInt8() const { return raw == DType::I8 || raw == DType::U8; }
};

std::optional<LinearQuant> linearQuant(const Node &n) {
  LinearQuantView view(n);
  const Tensor *scale = constantData(view.scale());
  const Value *zpValue = view.zeroPoint();
  const Tensor *zp = constantData(zpValue);
  if (!scale || scale->getDType() != DType::F32 || (zpValue && !zp))
    return std::nullopt;
  const Value *raw =
      n.is(OpKind::QuantizeLinear) ? n.getOutput() : view.input();
  LinearQuant q;
  q.raw = raw->getType().dtype;
  int32_t shift = q.raw == DType::U8 ? -128 : 0;
  for (int64_t k = 0, e = scale->numElements(); k < e; ++k) {
    float s = scale->data<float>()[k];
    if (!(s > 0) || !std::isfinite(s))
      return std::nullopt;
    q.params.scales.push_back(s);
    q.params.zeroPoints.push_back(int32_t(zp ? zp->getAsInt(k) : 0) + shift);
  }
  if (q.params.isPerChannel())
    q.params.axis = *normalizeAxis(view.axis(), raw->getType().rank());
  return q;
}

/// `v`'s producer when it is a `kind` node, else nullptr.
Node *producerOf(const Value *v, OpKind kind) {
  return v && v->isResult() && v->getProducer()->is(kind) ? v->getProducer()
                                                          : nullptr;
}

/// The int8 value a group's QuantizeLinear `q` re-encodes, when `q`
/// quantizes kiln.Dequantize of an int8 value with parameters `want`.
Value *int8Behind(const Node &q, const QuantParams &want) {
  Node *dq = producerOf(LinearQuantView(q).input(), OpKind::Dequantize);
  if (!dq || !(dq->getInput(0)->getType().quant == want))
    return nullptr;
  auto params = linearQuant(q);
  return params && params->params == want ? dq->getInput(0) : nullptr;
}

/// Raw integer constant data as int8 with the quantization `q` (uint8
/// shifted by -128).
Tensor int8Data(const Tensor &raw, const LinearQuant &q) {
  TensorType t(DType::I8, raw.getShape());
  t.quant = q.params;
  Tensor out(t);
  for (int64_t i = 0, e = raw.numElements(); i < e; ++i)
    out.data<int8_t>()[i] =
        int8_t(raw.getAsInt(i) + (q.raw == DType::U8 ? -128 : 0));
  return out;
}

/// Builds one group's int8 nodes before its QuantizeLinear. A node whose
/// type rule refuses it (an op or a parameter without int8 form) fails the
/// group; discard() then removes what was built, and the group stays float.
class GroupBuilder {
public:
  GroupBuilder(Graph &g, Node &root, QuantParams out)
      : g(g), root(root), out(std::move(out)) {}

  bool failed() const { return failed_; }

  Value *add(llvm::StringRef role, OpKind kind, llvm::ArrayRef<Value *> in,
             AttrMap attrs) {
    if (failed_ || llvm::is_contained(in, nullptr))
      return fail();
    auto n = addHelperNode(g, root, role, kind, in, std::move(attrs));
    if (!n) {
      llvm::consumeError(n.takeError());
      return fail();
    }
    added.push_back(*n);
    return (*n)->getOutput();
  }

  /// The group's result: `op` with the result quantization (and `extra`).
  Value *addResult(const Node &op, llvm::ArrayRef<Value *> in,
                   AttrMap extra = {}) {
    AttrMap attrs = op.getAttrs();
    for (auto &kv : extra)
      attrs[kv.first] = kv.second;
    attrs[kQuantAttr.str()] = Attr::ofQuant(out);
    return add("int8", op.getKind(), in, std::move(attrs));
  }

  /// `v8` requantized to the result's parameters where they differ.
  Value *requantized(Value *v8, const QuantParams &to) {
    if (!v8 || v8->getType().quant == to)
      return v8;
    return add("requantized", OpKind::Quantize, {v8},
               {{kQuantAttr.str(), Attr::ofQuant(to)}});
  }

  /// The int8 activation a DequantizeLinear result `f` stands for, also
  /// through moves of it.
  Value *activation(Value *f) {
    if (f && f->isResult() && isQuantMove(*f->getProducer()))
      return moved(*f->getProducer(), activation(f->getProducer()->getInput(0)));
    if (Node *d = producerOf(f, OpKind::Dequantize))
      return d->getInput(0);
    Node *dq = producerOf(f, OpKind::DequantizeLinear);
    auto q = dq ? linearQuant(*dq) : std::nullopt;
    if (!q || !q->isInt8() || q->params.isPerChannel())
      return fail();
    Value *raw = LinearQuantView(*dq).input();
    if (Value *v8 = int8Source(raw, q->params))
      return v8;
    if (raw->isConstant())
      return constant("int8", int8Data(raw->getConstant(), *q));
    return add("int8_input", OpKind::Quantize, {f},
               {{kQuantAttr.str(), Attr::ofQuant(q->params)}});
  }

  /// The int8 value that the raw integers `raw` re-encode with parameters
  /// `q`: a group's result, also through moves of its integers.
  Value *int8Source(Value *raw, const QuantParams &q) {
    if (Node *prev = producerOf(raw, OpKind::QuantizeLinear))
      return int8Behind(*prev, q);
    if (!raw->isResult() || !isQuantMove(*raw->getProducer()))
      return nullptr;
    Node *move = raw->getProducer();
    Value *in = int8Source(move->getInput(0), q);
    return in ? moved(*move, in) : nullptr;
  }

  /// `move` applied to the int8 value `v8`.
  Value *moved(const Node &move, Value *v8) {
    return add("int8_" + move.getOpName().str(), move.getKind(),
               {v8}, move.getAttrs());
  }

  /// Constant symmetric int8 weights behind `f`, per tensor or per channel
  /// along `axis` (of the [K, N] result when `transpose`, a Gemm's transB).
  Value *weights(Value *f, int64_t axis, bool transpose = false) {
    Node *dq = producerOf(f, OpKind::DequantizeLinear);
    auto q = dq ? linearQuant(*dq) : std::nullopt;
    if (!q || !q->isInt8() || !LinearQuantView(*dq).input()->isConstant() ||
        llvm::any_of(q->params.zeroPoints, [](int32_t z) { return z != 0; }))
      return fail();
    Tensor w = int8Data(LinearQuantView(*dq).input()->getConstant(), *q);
    if (transpose) {
      QuantParams p = w.getType().quant;
      if (p.isPerChannel())
        p.axis = 1 - p.axis;
      w = transpose2D(w);
      TensorType t = w.getType();
      t.quant = p;
      w = Tensor(t, w.raw());
    }
    if (w.getType().quant.isPerChannel() && w.getType().quant.axis != axis)
      return fail();
    return constant("weights", std::move(w));
  }

  /// The int32 bias of an int8 Conv or MatMul (`channels` outputs, input
  /// scale `xScale`, weights `w`) from the float bias `f`: a dequantized
  /// int32 constant, taken as it is when its scale is the product of the
  /// input and weight scales (as ONNX's quantizers write it), else
  /// requantized to that product; or an f32 constant, quantized to it.
  /// nullptr (and no failure) without a bias.
  Value *bias(Value *f, float xScale, const QuantParams &w, int64_t channels) {
    if (!f || failed_)
      return nullptr;
    Node *dq = producerOf(f, OpKind::DequantizeLinear);
    const Tensor *raw =
        dq ? constantData(LinearQuantView(*dq).input()) : constantF32(f);
    std::optional<LinearQuant> q;
    if (dq && (!(q = linearQuant(*dq)) || q->raw != DType::I32))
      raw = nullptr;
    if (dq && raw && LinearQuantView(*dq).zeroPoint())
      if (const Tensor *zp = constantData(LinearQuantView(*dq).zeroPoint()))
        for (int64_t k = 0; k < zp->numElements(); ++k)
          if (zp->getAsInt(k) != 0)
            raw = nullptr;
    if (!raw || raw->numElements() != channels)
      return fail();
    Tensor b(TensorType(DType::I32, {channels}));
    for (int64_t c = 0; c < channels; ++c) {
      double target = double(xScale) * w.scales[w.isPerChannel() ? c : 0];
      double value = raw->getAsDouble(c);
      if (dq) {
        double scale = q->params.scales[q->params.isPerChannel() ? c : 0];
        if (std::abs(scale / target - 1) < 1e-6) {
          b.data<int32_t>()[c] = int32_t(raw->getAsInt(c));
          continue;
        }
        value *= scale;
      }
      double v = std::nearbyint(value / target);
      if (!(std::abs(v) <= std::numeric_limits<int32_t>::max()))
        return fail();
      b.data<int32_t>()[c] = int32_t(v);
    }
    return constant("bias", std::move(b));
  }

  /// Removes the nodes built so far (constants go with dce).
  void discard() {
    for (auto it = added.rbegin(); it != added.rend(); ++it)
      g.eraseNode(*it);
    added.clear();
  }

private:
  Value *fail() {
    failed_ = true;
    return nullptr;
  }
  Value *constant(llvm::StringRef role, Tensor t) {
    return g.addConstant(g.uniqueName(root.getName().str() + "/" + role.str()),
                         std::move(t));
  }

  Graph &g;
  Node &root;
  QuantParams out;
  std::vector<Node *> added;
  bool failed_ = false;
};

/// The int8 form of `op` (with `clamp` fused) computed by `b`, or nullptr.
Value *buildInt8(GroupBuilder &b, const Node &op, const QuantParams &out,
                 const Activation &clamp) {
  AttrMap fused;
  if (!clamp.isNone())
    fused[kActivationAttr.str()] = Attr::ofActivation(clamp);
  auto inputs = [&](llvm::ArrayRef<Value *> in) {
    llvm::SmallVector<Value *, 4> out8;
    for (Value *v : in)
      out8.push_back(b.activation(v));
    return out8;
  };
  switch (op.getKind()) {
  case OpKind::Conv: {
    ConvView conv(op);
    Value *x = b.activation(conv.input());
    Value *w = b.weights(conv.weights(), 0);
    if (!x || !w)
      return nullptr;
    const TensorType &wt = w->getType();
    llvm::SmallVector<Value *, 3> in{x, w};
    if (Value *bias = b.bias(conv.bias(), x->getType().quant.scales[0],
                             wt.quant, wt.shape[0]))
      in.push_back(bias);
    return b.addResult(op, in, fused);
  }
  case OpKind::MatMul:
  case OpKind::Gemm: {
    std::optional<GemmView> gemm;
    if (op.is(OpKind::Gemm))
      gemm.emplace(op);
    if (gemm &&
        (gemm->alpha() != 1 || gemm->beta() != 1 || gemm->transA() != 0))
      return nullptr;
    Value *x = b.activation(op.getInput(0));
    Value *w = b.weights(op.getInput(1), 1, gemm && gemm->transB());
    if (!x || !w || w->getType().rank() != 2)
      return nullptr;
    const TensorType &wt = w->getType();
    llvm::SmallVector<Value *, 3> in{x, w};
    if (Value *bias = b.bias(gemm ? gemm->c() : nullptr,
                             x->getType().quant.scales[0], wt.quant,
                             wt.shape[1]))
      in.push_back(bias);
    AttrMap attrs = fused;
    attrs[kQuantAttr.str()] = Attr::ofQuant(out);
    return b.add("int8", OpKind::MatMul, in, std::move(attrs));
  }
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
    return b.addResult(op, inputs(op.getInputs()), fused);
  case OpKind::GlobalAveragePool: {
    // TFLite's MEAN over the spatial axes.
    llvm::SmallVector<int64_t, 3> axes;
    for (size_t d = 2; d < op.getInput(0)->getType().rank(); ++d)
      axes.push_back(d);
    return b.add("int8", OpKind::ReduceMean, inputs(op.getInputs()),
                 {{"axes", Attr::ofInts(axes)},
                  {"keepdims", Attr::ofInt(1)},
                  {kQuantAttr.str(), Attr::ofQuant(out)}});
  }
  case OpKind::Pad: {
    // The fill is a real value: the int8 Pad writes it quantized, as
    // TFLite's PAD writes the zero point for 0.
    Value *x = b.activation(op.getInput(0));
    if (!x)
      return nullptr;
    const QuantParams &q = x->getType().quant;
    double fill = std::nearbyint(PadView(op).value() / q.scales[0]) + q.zeroPoints[0];
    AttrMap attrs = op.getAttrs();
    attrs["value"] = Attr::ofFloat(float(std::clamp(fill, -128.0, 127.0)));
    return b.requantized(b.add("int8", OpKind::Pad, {x}, attrs), out);
  }
  case OpKind::Concat: {
    llvm::SmallVector<Value *, 4> in;
    for (Value *v : inputs(op.getInputs()))
      in.push_back(b.requantized(v, out));
    return b.add("int8", OpKind::Concat, in, op.getAttrs());
  }
  default: break;
  }
  if (std::optional<ActivationKind> k = activationKindOf(op.getKind()))
    return hasInt8Form(*k) ? b.addResult(op, inputs(op.getInputs())) : nullptr;
  // AveragePool's int8 form averages over the taps inside the input only.
  if (op.is(OpKind::AveragePool) && AveragePoolView(op).countIncludePad() != 0)
    return nullptr;
  // Ops that move values (and AveragePool) keep their input's parameters.
  if (op.getDef().hasTrait(kQuantPreservingTrait) && op.getNumInputs() == 1 &&
      op.getNumOutputs() == 1)
    return b.requantized(b.add("int8", op.getKind(), inputs(op.getInputs()),
                               op.getAttrs()),
                         out);
  return nullptr;
}

/// Rewrites the group whose QuantizeLinear is `q`, if it is one.
llvm::Expected<bool> foldGroup(Graph &g, Node *q) {
  auto out = linearQuant(*q);
  Value *y = LinearQuantView(*q).input();
  if (!out || !out->isInt8() || out->params.isPerChannel() || !y->isResult() ||
      !hasSingleUser(g, y, q))
    return false;
  Node *op = y->getProducer();
  Activation clamp;
  if (std::optional<Activation> a = activationOf(*op); a && isFusableClamp(*a)) {
    Value *in = op->getInput(0);
    if (in->isResult() && takesFusedClamp(*in->getProducer()) &&
        hasSingleUser(g, in, op)) {
      clamp = *a;
      op = in->getProducer();
    }
  }
  GroupBuilder b(g, *q, out->params);
  Value *y8 = buildInt8(b, *op, out->params, clamp);
  if (!y8 || b.failed()) {
    b.discard();
    return false;
  }
  auto back = addHelperNode(g, *q, "dequantized", OpKind::Dequantize, {y8});
  if (!back)
    return back.takeError();
  q->setInput(0, (*back)->getOutput());
  return true;
}

/// A DequantizeLinear of a group's re-encoded result reads the group's
/// kiln.Dequantize instead (the same values).
llvm::Expected<bool> shortcutDequantize(Graph &g, Node *dq) {
  Node *q = producerOf(LinearQuantView(*dq).input(), OpKind::QuantizeLinear);
  auto params = linearQuant(*dq);
  if (!q || !params || !int8Behind(*q, params->params))
    return false;
  if (auto err =
          replaceValue(g, *dq, dq->getOutput(), LinearQuantView(*q).input()))
    return std::move(err);
  return true;
}

/// `q` (in int8 terms) as the parameters of its raw dtype: a uint8 zero
/// point is 128 higher.
QuantParams rawParams(const LinearQuant &q) {
  QuantParams p = q.params;
  if (q.raw == DType::U8)
    for (int32_t &z : p.zeroPoints)
      z += 128;
  return p;
}

/// A raw int8 or uint8 graph input that only DequantizeLinear nodes read,
/// all with the same per-tensor parameters, is a quantized value: its type
/// takes them (so the bundle's descriptor carries what the caller quantizes
/// with), and a kiln.Dequantize of it (of a uint8 one, of its int8 form, a
/// kiln.Quantize), which the groups read through, replaces them.
llvm::Error inputsInt8Directly(Graph &g) {
  for (Value *in : g.getInputs()) {
    std::vector<Node *> users = g.getUsers(in);
    DType raw = in->getType().dtype;
    if ((raw != DType::I8 && raw != DType::U8) || in->getType().quant.isQuantized() ||
        users.empty() || g.isGraphOutput(in))
      continue;
    std::optional<QuantParams> q;
    bool uniform = llvm::all_of(users, [&](const Node *n) {
      auto p = n->is(OpKind::DequantizeLinear) ? linearQuant(*n) : std::nullopt;
      if (!p || p->params.isPerChannel() || (q && !(*q == p->params)))
        return false;
      q = p->params;
      return true;
    });
    if (!uniform)
      continue;
    TensorType t = in->getType();
    t.quant = rawParams({*q, raw});
    in->setType(t);
    Value *in8 = in;
    if (raw == DType::U8) {
      auto s = addHelperNode(g, *users.front(), "int8_input", OpKind::Quantize, {in},
                             {{kQuantAttr.str(), Attr::ofQuant(*q)}});
      if (!s)
        return s.takeError();
      in8 = (*s)->getOutput();
    }
    auto d = addHelperNode(g, *users.front(), "int8", OpKind::Dequantize, {in8});
    if (!d)
      return d.takeError();
    for (Node *dq : users) {
      g.replaceAllUsesWith(dq->getOutput(), (*d)->getOutput());
      g.eraseNode(dq);
    }
  }
  return llvm::Error::success();
}

/// A graph output that re-encodes a group's int8 result as int8 with the
/// same parameters is that result itself (as uint8, a kiln.Quantize of it):
/// no float round trip at the edge, and the bundle's descriptor carries the
/// output's scale and zero point.
llvm::Error outputInt8Directly(Graph &g) {
  for (const GraphOutput &o : g.getOutputs()) {
    Node *q = producerOf(o.value, OpKind::QuantizeLinear);
    auto params = q ? linearQuant(*q) : std::nullopt;
    if (!params || !params->isInt8() || !g.getUsers(o.value).empty())
      continue;
    Value *y8 = int8Behind(*q, params->params);
    if (!y8)
      continue;
    if (params->raw == DType::U8) {
      auto u = addHelperNode(g, *q, "uint8", OpKind::Quantize, {y8},
                             {{kQuantAttr.str(), Attr::ofQuant(rawParams(*params))},
                              {"kiln.to", Attr::ofString("u8")}});
      if (!u)
        return u.takeError();
      y8 = (*u)->getOutput();
    }
    g.replaceAllUsesWith(o.value, y8);
  }
  return llvm::Error::success();
}

class FoldQDQPass : public Pass {
public:
  llvm::StringRef getName() const override { return "fold-qdq"; }

  llvm::Expected<bool> run(Graph &g) override {
    if (auto err = inputsInt8Directly(g))
      return std::move(err);
    auto groups =
        NodeRewritePass("", OpKind::QuantizeLinear, foldGroup).run(g);
    if (!groups || !*groups)
      return groups;
    auto shortcuts =
        NodeRewritePass("", OpKind::DequantizeLinear, shortcutDequantize).run(g);
    if (!shortcuts)
      return shortcuts.takeError();
    if (auto err = outputInt8Directly(g))
      return std::move(err);
    // The float ops the groups replaced.
    if (auto dce = createDeadCodeEliminationPass()->run(g); !dce)
      return dce.takeError();
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createFoldQDQPass() {
  return std::make_unique<FoldQDQPass>();
}

} // namespace kiln
