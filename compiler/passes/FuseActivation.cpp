//===- FuseActivation.cpp - Fold activations into Conv / MatMul -----------===//
//
// An activation after a Conv or MatMul costs a full pass over the result;
// applied inside the producer's kernel as each output is written it is
// nearly free. Every record of compiler/ops/Activations.def fuses; SiLU and
// GELU have no ONNX op before opset 20: exporters write x * Sigmoid(x),
// x * 0.5 * (1 + Erf(x / sqrt(2))) and GELU's tanh form, which are matched as
// one activation. The fused form is the typed kiln.activation attribute.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace kiln {
namespace {

/// For Mul(x, Sigmoid(x)) (either order): the Sigmoid node.
Node *siluSigmoid(const Node &mul) {
  if (!mul.is(OpKind::Mul))
    return nullptr;
  for (unsigned i = 0; i < 2; ++i) {
    Value *s = mul.getInput(i), *x = mul.getInput(1 - i);
    if (s->isResult() && s->getProducer()->is(OpKind::Sigmoid) &&
        s->getProducer()->getInput(0) == x)
      return s->getProducer();
  }
  return nullptr;
}

/// The activation `act` computes from its first input (the value it would
/// fuse into): a single-node activation, or a pattern of nodes.
struct Match {
  Value *in;
  Activation activation;
  /// Nodes the activation consists of besides `act`, each read only by
  /// `act` or by a node before it here.
  llvm::SmallVector<Node *, 8> inner;
};

/// Whether `v` is a float constant of one element within f32 rounding of `k`.
bool isScalarConstant(const Value *v, double k) {
  const Tensor *t = constantData(v);
  return t && isFloatDType(t->getDType()) && t->numElements() == 1 &&
         std::abs(t->getAsDouble(0) - k) <= 1e-6 * std::abs(k);
}

/// The operand of binary node `n` other than one for which `is` holds, if
/// one does (either order).
Value *otherOperand(const Node &n, llvm::function_ref<bool(const Value *)> is) {
  if (n.getNumInputs() != 2)
    return nullptr;
  for (unsigned i = 0; i < 2; ++i)
    if (is(n.getInput(i)))
      return n.getInput(1 - i);
  return nullptr;
}

/// The producer of `v` if it is of `kind` and `v` feeds only `user`.
Node *soleProducer(const Graph &g, Value *v, OpKind kind, const Node *user) {
  if (!v->isResult() || !v->getProducer()->is(kind) || !hasSingleUser(g, v, user))
    return nullptr;
  return v->getProducer();
}

/// GELU's curve plus one, 1 + Erf(...) or 1 + Tanh(...), as a value that
/// only the pattern reads: its x, its kind and its nodes.
struct OnePlusCurve {
  Value *x;
  ActivationKind kind;
  llvm::SmallVector<Node *, 8> nodes;
};

/// 1 + Erf(x / sqrt(2)) (PyTorch's Div, or a Mul by 1 / sqrt(2)) as `s`,
/// which only `user` reads: x, and the Add, Erf and Div or Mul.
std::optional<OnePlusCurve> erfOnePlus(const Graph &g, Value *s, const Node *user) {
  Node *add = soleProducer(g, s, OpKind::Add, user);
  Value *erfOut =
      add ? otherOperand(*add, [](const Value *v) { return isScalarConstant(v, 1); }) : nullptr;
  Node *erf = erfOut ? soleProducer(g, erfOut, OpKind::Erf, add) : nullptr;
  if (!erf)
    return std::nullopt;
  Value *scaled = erf->getInput(0);
  if (Node *div = soleProducer(g, scaled, OpKind::Div, erf))
    if (isScalarConstant(div->getInput(1), M_SQRT2))
      return OnePlusCurve{div->getInput(0), ActivationKind::Gelu, {add, erf, div}};
  if (Node *mul = soleProducer(g, scaled, OpKind::Mul, erf))
    if (Value *x = otherOperand(*mul, [](const Value *v) { return isScalarConstant(v, M_SQRT1_2); }))
      return OnePlusCurve{x, ActivationKind::Gelu, {add, erf, mul}};
  return std::nullopt;
}

/// 1 + Tanh(sqrt(2 / pi) * (x + 0.044715 * x * (x * x))) as `s` (how
/// PyTorch exports GELU's tanh form, any operand order), which only `user`
/// reads: x, and the nine nodes but x's final product and halving.
std::optional<OnePlusCurve> tanhOnePlus(const Graph &g, Value *s, const Node *user) {
  auto constant = [](double k) { return [k](const Value *v) { return isScalarConstant(v, k); }; };
  Node *add = soleProducer(g, s, OpKind::Add, user);
  Value *tanhOut = add ? otherOperand(*add, constant(1)) : nullptr;
  Node *tanh = tanhOut ? soleProducer(g, tanhOut, OpKind::Tanh, add) : nullptr;
  Node *scaled = tanh ? soleProducer(g, tanh->getInput(0), OpKind::Mul, tanh) : nullptr;
  Value *innerOut = scaled ? otherOperand(*scaled, constant(0.79788456080286536)) : nullptr;
  Node *inner = innerOut ? soleProducer(g, innerOut, OpKind::Add, scaled) : nullptr;
  for (unsigned i = 0; inner && i < 2; ++i) {
    Value *x = inner->getInput(i);
    Node *cubic = soleProducer(g, inner->getInput(1 - i), OpKind::Mul, inner);
    Value *cubeOut = cubic ? otherOperand(*cubic, constant(0.044715)) : nullptr;
    Node *cube = cubeOut ? soleProducer(g, cubeOut, OpKind::Mul, cubic) : nullptr;
    Value *squareOut = cube ? otherOperand(*cube, [x](const Value *v) { return v == x; }) : nullptr;
    Node *square = squareOut ? soleProducer(g, squareOut, OpKind::Mul, cube) : nullptr;
    if (square && square->getInput(0) == x && square->getInput(1) == x)
      return OnePlusCurve{x, ActivationKind::GeluTanh,
                          {add, tanh, scaled, inner, cubic, cube, square}};
  }
  return std::nullopt;
}

/// Either GELU curve plus one as `s`.
std::optional<OnePlusCurve> onePlusCurve(const Graph &g, Value *s, const Node *user) {
  if (auto e = erfOnePlus(g, s, user))
    return e;
  return tanhOnePlus(g, s, user);
}

/// Whether pattern input `x` is read by the pattern's nodes (`act` and
/// `inner`) only, and is no graph output.
bool readByPatternOnly(const Graph &g, const Value *x, const Node &act,
                       llvm::ArrayRef<Node *> inner) {
  return llvm::all_of(g.getUsers(x),
                      [&](const Node *u) { return u == &act || llvm::is_contained(inner, u); }) &&
         llvm::none_of(g.getOutputs(), [&](const GraphOutput &o) { return o.value == x; });
}

/// GELU as `act`: (x * (1 + curve)) * 0.5 or (x * 0.5) * (1 + curve), any
/// operand order, the curve Erf's or Tanh's (onePlusCurve); x feeds the
/// pattern only.
std::optional<Match> matchGelu(const Graph &g, Node &act) {
  if (!act.is(OpKind::Mul))
    return std::nullopt;
  auto half = [](const Value *v) { return isScalarConstant(v, 0.5); };
  std::optional<Match> m;
  for (unsigned i = 0; i < 2 && !m; ++i) {
    if (Node *product = soleProducer(g, act.getInput(i), OpKind::Mul, &act);
        product && half(act.getInput(1 - i))) {
      for (unsigned j = 0; j < 2 && !m; ++j)
        if (auto e = onePlusCurve(g, product->getInput(j), product);
            e && e->x == product->getInput(1 - j)) {
          m = Match{e->x, *Activation::make(e->kind), {product}};
          m->inner.append(e->nodes.begin(), e->nodes.end());
        }
    } else if (auto e = onePlusCurve(g, act.getInput(i), &act)) {
      Node *halved = soleProducer(g, act.getInput(1 - i), OpKind::Mul, &act);
      if (halved && otherOperand(*halved, half) == e->x) {
        m = Match{e->x, *Activation::make(e->kind), e->nodes};
        m->inner.push_back(halved);
      }
    }
  }
  if (!m || act.getOutput()->getType() != m->in->getType() ||
      !readByPatternOnly(g, m->in, act, m->inner))
    return std::nullopt;
  return m;
}

std::optional<Match> matchActivation(const Graph &g, Node &act) {
  if (std::optional<Activation> a = activationOf(act))
    return Match{act.getInput(0), *a, {}};
  if (std::optional<Match> gelu = matchGelu(g, act))
    return gelu;
  Node *sigmoid = siluSigmoid(act);
  if (!sigmoid || !hasSingleUser(g, sigmoid->getOutput(), &act))
    return std::nullopt;
  Value *x = sigmoid->getInput(0);
  if (!readByPatternOnly(g, x, act, {sigmoid}))
    return std::nullopt;
  return Match{x, *Activation::make(ActivationKind::SiLU), {sigmoid}};
}

/// The bounds [lo, hi] of Relu (hi infinite) or Clip, as min(max(x, lo), hi).
std::optional<std::pair<float, float>> clampBounds(const Activation &a) {
  if (a.getKind() == ActivationKind::Relu)
    return std::pair(0.0f, std::numeric_limits<float>::infinity());
  if (a.getKind() == ActivationKind::Clip)
    return std::pair(a.getParams()[0], a.getParams()[1]);
  return std::nullopt;
}

/// `second` applied after `first` as one activation, where both are clamps
/// (Relu or Clip) and the first's upper bound is not below the second's
/// lower one: max commutes with min then, so the two are one clamp to the
/// tighter bounds. PyTorch exports F.relu6 as a Relu and then a Clip.
std::optional<Activation> composed(const Activation &first, const Activation &second) {
  auto a = clampBounds(first), b = clampBounds(second);
  if (!a || !b || std::isnan(a->first) || std::isnan(a->second) || std::isnan(b->first) ||
      std::isnan(b->second) || b->first > a->second)
    return std::nullopt;
  const float lo = std::max(a->first, b->first), hi = std::min(a->second, b->second);
  if (lo == 0 && std::isinf(hi))
    return Activation::make(ActivationKind::Relu);
  return Activation::make(ActivationKind::Clip, {lo, hi});
}

/// The Conv or MatMul whose kernel can apply an activation of `in`: its
/// producer, or the producer of a Reshape's input that the Reshape alone
/// reads. A 1-D Conv is a 2-D one between Reshapes (LowerWindow), and an
/// activation, elementwise, commutes with a Reshape.
Node *fusionTarget(const Graph &g, Value *in) {
  Node *p = in->getProducer();
  if (p->is(OpKind::Reshape)) {
    Value *x = p->getInput(0);
    if (!x->isResult() || !hasSingleUser(g, x, p))
      return nullptr;
    p = x->getProducer();
  }
  return p->is(OpKind::Conv) || p->is(OpKind::MatMul) ? p : nullptr;
}

class FuseActivationPass : public Pass {
public:
  llvm::StringRef getName() const override { return "fuse-activation"; }

  llvm::Expected<bool> run(Graph &g) override {
    bool changed = false;
    for (Node *act : g.getNodes()) {
      auto m = matchActivation(g, *act);
      if (!m)
        continue;
      Value *in = m->in;
      // An int8 activation requantizes to its own result parameters; the
      // int8 producer's fused clamp cannot stand in for it.
      if (!in->isResult() || in->getType().quant.isQuantized())
        continue;
      Node *p = fusionTarget(g, in);
      if (!p)
        continue;
      if (m->inner.empty() && !hasSingleUser(g, in, act))
        continue;
      std::optional<Activation> fused = m->activation;
      if (const Activation &before = fusedActivation(*p); !before.isNone())
        fused = composed(before, m->activation);
      if (!fused)
        continue;
      p->setAttr(kActivationAttr, Attr::ofActivation(*fused));
      if (auto err = replaceValue(g, *act, act->getOutput(), in))
        return std::move(err);
      g.eraseNode(act);
      // Each inner node's user goes before it.
      for (Node *inner : m->inner)
        g.eraseNode(inner);
      changed = true;
    }
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFuseActivationPass() {
  return std::make_unique<FuseActivationPass>();
}

} // namespace kiln
