//===- FuseLayerNorm.cpp - A written-out LayerNorm -> LayerNormalization --===//
//
// Exporters before opset 17 (PyTorch's nn.LayerNorm among them) write a
// LayerNorm out as its formula over the trailing axes:
//
//   d = x - ReduceMean(x)
//   y = d / Sqrt(ReduceMean(d * d) + epsilon) * gamma + beta
//
// with the square as Pow(d, 2) or Mul(d, d), and gamma and beta optional.
// As one LayerNormalization it runs as one row kernel instead of six.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/passes/Passes.h"


namespace kiln {
namespace {

/// `v`'s producer when it is a `kind` node, else nullptr.
Node *producerOf(const Value *v, OpKind kind) {
  return v && v->isResult() && v->getProducer()->is(kind) ? v->getProducer() : nullptr;
}

/// The first reduced axis of a ReduceMean that keeps its dimensions and
/// reduces exactly the trailing axes from it on, else nullopt.
std::optional<int64_t> trailingMeanAxis(const Node *mean) {
  if (!mean || !mean->is(OpKind::ReduceMean) || ReduceView(*mean).keepdims() == 0)
    return std::nullopt;
  auto reduced = reducedAxes(*mean);
  if (!reduced) {
    llvm::consumeError(reduced.takeError());
    return std::nullopt;
  }
  int64_t rank = reduced->size(), axis = rank;
  while (axis > 0 && (*reduced)[axis - 1])
    --axis;
  if (axis == rank || llvm::is_contained(llvm::ArrayRef(*reduced).take_front(axis), true))
    return std::nullopt;
  return axis;
}

/// The single f32 value of a constant with one element, else nullopt.
std::optional<float> scalarConstant(const Value *v) {
  const Tensor *t = constantF32(v);
  if (!t || t->numElements() != 1)
    return std::nullopt;
  return t->data<float>()[0];
}

/// The operand of the binary `n` other than `v` (either side).
Value *otherOperand(const Node &n, const Value *v) {
  return n.getInput(0) == v ? n.getInput(1) : n.getInput(0);
}

struct LayerNormMatch {
  Value *x;
  int64_t axis;
  float epsilon;
  /// The matched nodes, in graph order; the last one's result is the
  /// LayerNorm's.
  llvm::SmallVector<Node *, 9> nodes;
  Value *scale = nullptr;
  Value *bias = nullptr;
};

/// Matches the normalization itself, Div(d, Sqrt(Add(ReduceMean(d * d),
/// epsilon))) with d = Sub(x, ReduceMean(x)), at its Div.
std::optional<LayerNormMatch> matchNormalization(const Graph &g, Node *div) {
  if (!div->is(OpKind::Div) || div->getOutput()->getType().dtype != DType::F32)
    return std::nullopt;
  Value *d = div->getInput(0);
  Node *sub = producerOf(d, OpKind::Sub);
  Node *sqrt = producerOf(div->getInput(1), OpKind::Sqrt);
  Node *addEps = sqrt ? producerOf(sqrt->getInput(0), OpKind::Add) : nullptr;
  if (!sub || !addEps || !hasSingleUser(g, sqrt->getOutput(), div) ||
      !hasSingleUser(g, addEps->getOutput(), sqrt))
    return std::nullopt;
  Node *meanX = producerOf(sub->getInput(1), OpKind::ReduceMean);
  Value *x = sub->getInput(0);
  if (!meanX || meanX->getInput(0) != x || !hasSingleUser(g, meanX->getOutput(), sub) ||
      d->getType() != x->getType())
    return std::nullopt;
  // Variance = ReduceMean(d * d) + epsilon, the epsilon on either side.
  Node *variance = nullptr;
  std::optional<float> epsilon;
  for (unsigned side = 0; side < 2 && !variance; ++side) {
    variance = producerOf(addEps->getInput(side), OpKind::ReduceMean);
    epsilon = scalarConstant(addEps->getInput(1 - side));
    if (!epsilon)
      variance = nullptr;
  }
  if (!variance || !hasSingleUser(g, variance->getOutput(), addEps) ||
      addEps->getOutput()->getType() != variance->getOutput()->getType())
    return std::nullopt;
  Node *square = variance->getInput(0)->isResult() ? variance->getInput(0)->getProducer()
                                                   : nullptr;
  bool isSquare =
      square && ((square->is(OpKind::Mul) && square->getInput(0) == d &&
                  square->getInput(1) == d) ||
                 (square->is(OpKind::Pow) && square->getInput(0) == d &&
                  scalarConstant(square->getInput(1)) == 2.0f &&
                  square->getOutput()->getType() == d->getType()));
  if (!isSquare || !hasSingleUser(g, square->getOutput(), variance))
    return std::nullopt;
  // d feeds the square and the Div, nothing else.
  if (g.isGraphOutput(d) ||
      !llvm::all_of(g.getUsers(d), [&](Node *u) { return u == square || u == div; }))
    return std::nullopt;
  std::optional<int64_t> axis = trailingMeanAxis(meanX);
  if (!axis || trailingMeanAxis(variance) != axis)
    return std::nullopt;
  return LayerNormMatch{x, *axis, *epsilon, {meanX, sub, square, variance, addEps, sqrt, div}};
}

/// The parameter an elementwise `op` (Mul for gamma, Add for beta) applies
/// to the sole use of `y`, as LayerNormalization's Scale or B: one value
/// per row element, or one for all, in the normalized axes' shape. Extends
/// `m` and returns true where it does.
bool absorbParameter(Graph &g, LayerNormMatch &m, OpKind op, Value *&param) {
  Value *y = m.nodes.back()->getOutput();
  Node *user = g.getSoleUser(y);
  if (!user || !user->is(op) || user->getOutput()->getType() != y->getType())
    return false;
  Value *p = otherOperand(*user, y);
  const TensorType &xt = m.x->getType();
  llvm::ArrayRef<int64_t> normalized = llvm::ArrayRef(xt.shape).drop_front(m.axis);
  int64_t count = p->getType().numElements();
  if (count != 1 && count != TensorType(DType::F32, Shape(normalized)).numElements())
    return false;
  // Broadcast against x it may not vary across rows: size 1 on every axis
  // before the normalized ones.
  llvm::ArrayRef<int64_t> ps = p->getType().shape;
  int64_t lead = int64_t(ps.size()) - int64_t(normalized.size());
  if (llvm::any_of(ps.take_front(std::max<int64_t>(lead, 0)), [](int64_t s) { return s != 1; }))
    return false;
  if (!isUnidirectionalBroadcastable(ps, normalized)) {
    const Tensor *t = constantF32(p);
    if (!t)
      return false;
    p = g.addConstant(p->getName(), t->reshaped(count == 1 ? Shape{} : Shape(normalized)));
  }
  param = p;
  m.nodes.push_back(user);
  return true;
}

llvm::Expected<bool> fuseLayerNorm(Graph &g, Node *div) {
  std::optional<LayerNormMatch> m = matchNormalization(g, div);
  if (!m)
    return false;
  absorbParameter(g, *m, OpKind::Mul, m->scale);
  absorbParameter(g, *m, OpKind::Add, m->bias);
  Node *last = m->nodes.back();
  Value *scale = m->scale;
  if (!scale)
    scale = g.addConstant(last->getName().str() + "/scale", scalarF32(1.0f));
  llvm::SmallVector<Value *, 3> inputs{m->x, scale};
  if (m->bias)
    inputs.push_back(m->bias);
  auto ln = addReplacementNode(
      g, *last, OpKind::LayerNormalization, inputs,
      {{"axis", Attr::ofInt(m->axis)}, {"epsilon", Attr::ofFloat(m->epsilon)}});
  if (!ln)
    return ln.takeError();
  if (auto err = replaceValue(g, *last, last->getOutput(), (*ln)->getOutput(0)))
    return std::move(err);
  for (Node *n : llvm::reverse(m->nodes))
    g.eraseNode(n);
  return true;
}

} // namespace

std::unique_ptr<Pass> createFuseLayerNormPass() {
  // A fusion erases nodes after its Div (gamma's Mul, beta's Add).
  return std::make_unique<NodeRewritePass>("fuse-layer-norm", OpKind::Div, fuseLayerNorm);
}

} // namespace kiln
