//===- SimplifyLayout.cpp - Transposes and reshapes that cancel or merge --===//
//
// Exporters and lowering leave layout changes in chains: a Transpose to
// NHWC and one back, a Flatten after a Reshape, a Reshape to the shape the
// tensor already has. Each Transpose is a pass over memory (a Reshape of a
// graph output a copy), so chains become one node, and no-ops none. A
// Transpose also sinks through elementwise ops toward its consumers, where
// it can meet its inverse (NHWC -> Relu -> NCHW) and cancel, through a Pad
// that only Transposes read, and through a reduction, after which it moves
// less. A Transpose that moves only dimensions of extent 1 is a Reshape.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpViews.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {
namespace {

/// The permutation of a Transpose (ONNX's default: the dimensions reversed).
llvm::SmallVector<int64_t, 6> permOf(const Node &t) {
  TransposeView transpose(t);
  if (auto p = transpose.perm(); p && !p->empty())
    return llvm::SmallVector<int64_t, 6>(p->begin(), p->end());
  llvm::SmallVector<int64_t, 6> perm;
  for (int64_t i = transpose.input()->getType().rank() - 1; i >= 0; --i)
    perm.push_back(i);
  return perm;
}

bool isIdentity(llvm::ArrayRef<int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i))
      return false;
  return true;
}

/// Whether `perm` of a tensor of `shape` keeps the order of its dimensions
/// of extent other than 1: the bytes do not move, and the Transpose is a
/// Reshape (a view; a global pool's [N, C, 1, 1] to [N, 1, 1, C]).
bool movesOnlyUnitDims(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

/// Transpose(Transpose(x, p), q) = Transpose(x, p[q[i]]); an identity
/// permutation is no Transpose at all, and one that moves only dimensions of
/// extent 1 a Reshape.
llvm::Expected<bool> simplifyTranspose(Graph &g, Node *t) {
  llvm::SmallVector<int64_t, 6> perm = permOf(*t);
  Value *x = TransposeView(*t).input();
  bool merged = false;
  if (x->isResult() && x->getProducer()->is(OpKind::Transpose)) {
    Node *inner = x->getProducer();
    llvm::SmallVector<int64_t, 6> innerPerm = permOf(*inner);
    for (int64_t &p : perm)
      p = innerPerm[p];
    x = TransposeView(*inner).input();
    merged = true;
  }
  if (isIdentity(perm))
    return replaceNode(g, t, x);
  if (movesOnlyUnitDims(x->getType().shape, perm)) {
    const Shape &out = t->getOutput()->getType().shape;
    auto reshape = addReplacementNode(
        g, *t, OpKind::Reshape, {x},
        {{"shape", Attr::ofInts(out)}, {"allowzero", Attr::ofInt(0)}});
    if (!reshape)
      return reshape.takeError();
    return replaceNode(g, t, (*reshape)->getOutput());
  }
  if (!merged)
    return false;
  auto rebuilt = rebuildNode(g, t, {x}, {{"perm", Attr::ofInts(perm)}});
  if (!rebuilt)
    return rebuilt.takeError();
  return true;
}

/// Replaces `n` by its op moved before the Transposes `sunk` (result
/// `moved`, laid out as their input) and the layout change back, `perm`:
/// a Transpose, a Reshape where it moves only dimensions of extent 1, none
/// where it is the identity. Erases `n` and `sunk`.
llvm::Expected<bool> replaceBySunkOp(Graph &g, Node *n, Value *moved,
                                     llvm::ArrayRef<int64_t> perm,
                                     llvm::ArrayRef<Node *> sunk) {
  Value *result = moved;
  if (!isIdentity(perm)) {
    auto back = movesOnlyUnitDims(moved->getType().shape, perm)
                    ? addHelperNode(g, *n, "reshape", OpKind::Reshape, {moved},
                                    {{"shape", Attr::ofInts(n->getOutput()->getType().shape)},
                                     {"allowzero", Attr::ofInt(0)}})
                    : addHelperNode(g, *n, "transpose", OpKind::Transpose, {moved},
                                    {{"perm", Attr::ofInts(perm)}});
    if (!back)
      return back.takeError();
    result = (*back)->getOutput();
  }
  if (auto err = replaceValue(g, *n, n->getOutput(), result))
    return std::move(err);
  g.eraseNode(n);
  for (Node *s : sunk)
    g.eraseNode(s);
  return true;
}

/// Whether `v` broadcasts the same in every layout: a single element, of no
/// higher rank than `rank`.
bool layoutFree(const Value *v, size_t rank) {
  return v->getType().numElements() == 1 && v->getType().rank() <= rank;
}

/// Elementwise(Transpose(x, p), ...) = Transpose(Elementwise(x, ...), p)
/// when every other operand is a single element or also Transpose(., p) of
/// x's shape, and each such Transpose is read by this op alone (so the
/// rewrite never adds one; several become one).
llvm::Expected<bool> sinkTranspose(Graph &g, Node *n) {
  auto transposed = [&](const Value *v) {
    return v && v->isResult() && v->getProducer()->is(OpKind::Transpose) &&
           hasSingleUser(g, v, n);
  };
  auto first = llvm::find_if(n->getInputs(), transposed);
  if (first == n->getInputs().end())
    return false;
  const Node *t = (*first)->getProducer();
  llvm::SmallVector<int64_t, 6> perm = permOf(*t);
  const TensorType &xt = TransposeView(*t).input()->getType();
  llvm::SmallVector<Value *, 3> inputs;
  llvm::SmallVector<Node *, 3> sunk;
  for (Value *v : n->getInputs()) {
    if (transposed(v) && permOf(*v->getProducer()) == perm &&
        v->getProducer()->getInput(0)->getType().shape == xt.shape) {
      inputs.push_back(v->getProducer()->getInput(0));
      if (!llvm::is_contained(sunk, v->getProducer()))
        sunk.push_back(v->getProducer());
    } else if (v && layoutFree(v, xt.rank())) {
      inputs.push_back(v);
    } else {
      return false;
    }
  }
  auto moved = addReplacementNode(g, *n, n->getKind(), inputs, n->getAttrs());
  if (!moved)
    return moved.takeError();
  return replaceBySunkOp(g, n, (*moved)->getOutput(), perm, sunk);
}

/// Pad(Transpose(x, p)) = Transpose(Pad(x, pads'), p), pads' each pad on
/// the dimension of x it pads, where the Transpose is read by the Pad alone
/// and only Transposes read the Pad (the moved Transpose merges into them,
/// so nothing is added). A model converted from PyTorch to TFLite pads in
/// NHWC between NCHW Convs: NCHW -> NHWC -> Pad -> NCHW then cancels, and
/// fold-pad-into-conv makes the Pad the next Conv's own padding.
llvm::Expected<bool> sinkTransposeThroughPad(Graph &g, Node *pad) {
  Value *v = pad->getInput(0);
  if (!v->isResult() || !v->getProducer()->is(OpKind::Transpose) ||
      !hasSingleUser(g, v, pad) || g.getUsers(pad->getOutput()).empty() ||
      !llvm::all_of(g.getUsers(pad->getOutput()),
                    [](const Node *u) { return u->is(OpKind::Transpose); }))
    return false;
  Node *t = v->getProducer();
  llvm::SmallVector<int64_t, 6> perm = permOf(*t);
  llvm::ArrayRef<int64_t> pads = PadView(*pad).pads();
  const size_t rank = perm.size();
  if (pads.size() != 2 * rank)
    return false;
  llvm::SmallVector<int64_t, 12> moved(2 * rank);
  for (size_t i = 0; i < rank; ++i) {
    moved[perm[i]] = pads[i];
    moved[rank + perm[i]] = pads[rank + i];
  }
  AttrMap attrs = pad->getAttrs();
  attrs.insert_or_assign("pads", Attr::ofInts(moved));
  auto padded = addReplacementNode(g, *pad, OpKind::Pad, {TransposeView(*t).input()}, attrs);
  if (!padded)
    return padded.takeError();
  return replaceBySunkOp(g, pad, (*padded)->getOutput(), perm, {t});
}

/// Reduce(Transpose(x, p), axes) = Transpose'(Reduce(x, p[axes])), where
/// the Transpose is read by the Reduce alone: it then moves the smaller
/// result, and a global pool's (TFLite's MEAN over NHWC's H and W) moves only
/// dimensions of extent 1, a Reshape. With keepdims the reduced dimensions
/// stay, so Transpose' is p; without, it orders x's remaining dimensions as
/// the Transpose had them (none where they keep their order).
llvm::Expected<bool> sinkTransposeThroughReduce(Graph &g, Node *reduce) {
  ReduceView view(*reduce);
  Value *v = view.input();
  std::optional<llvm::ArrayRef<int64_t>> axes = view.axes();
  if (!v->isResult() || !v->getProducer()->is(OpKind::Transpose) ||
      !hasSingleUser(g, v, reduce) || !axes || axes->empty())
    return false;
  Node *t = v->getProducer();
  llvm::SmallVector<int64_t, 6> perm = permOf(*t);
  const int64_t rank = perm.size();
  llvm::SmallVector<bool, 6> reduced(rank, false);
  llvm::SmallVector<int64_t, 6> moved;
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank)
      return false;
    a = a < 0 ? a + rank : a;
    reduced[a] = true;
    moved.push_back(perm[a]);
  }
  llvm::sort(moved);
  llvm::SmallVector<int64_t, 6> backPerm(perm);
  if (!view.keepdims()) {
    // x's remaining dimensions in the Transpose's order, numbered in x's.
    llvm::SmallVector<int64_t, 6> kept;
    for (int64_t i = 0; i < rank; ++i)
      if (!reduced[i])
        kept.push_back(perm[i]);
    backPerm.clear();
    for (int64_t d : kept)
      backPerm.push_back(llvm::count_if(kept, [&](int64_t e) { return e < d; }));
  }
  AttrMap attrs = reduce->getAttrs();
  attrs.insert_or_assign("axes", Attr::ofInts(moved));
  auto sunk = addReplacementNode(g, *reduce, reduce->getKind(), {TransposeView(*t).input()},
                                 attrs);
  if (!sunk)
    return sunk.takeError();
  return replaceBySunkOp(g, reduce, (*sunk)->getOutput(), backPerm, {t});
}

/// Reshape(Reshape(x)) = Reshape(x); a Reshape to x's own shape is x.
llvm::Expected<bool> simplifyReshape(Graph &g, Node *r) {
  Value *x = r->getInput(0);
  bool merged = false;
  while (x->isResult() && x->getProducer()->is(OpKind::Reshape)) {
    x = x->getProducer()->getInput(0);
    merged = true;
  }
  const TensorType &out = r->getOutput()->getType();
  if (x->getType() == out)
    return replaceNode(g, r, x);
  if (!merged)
    return false;
  auto rebuilt = rebuildNode(g, r, {x},
                             {{"shape", Attr::ofInts(out.shape)}, {"allowzero", Attr::ofInt(0)}});
  if (!rebuilt)
    return rebuilt.takeError();
  return true;
}

class SimplifyLayoutPass : public Pass {
public:
  llvm::StringRef getName() const override { return "simplify-layout"; }

  llvm::Expected<bool> run(Graph &g) override {
    bool changed = false;
    for (Node *n : g.getNodes()) {
      llvm::Expected<bool> simplified = n->is(OpKind::Transpose) ? simplifyTranspose(g, n)
                                        : n->is(OpKind::Reshape) ? simplifyReshape(g, n)
                                        : n->is(OpKind::Pad)     ? sinkTransposeThroughPad(g, n)
                                        : ReduceView::accepts(*n) ? sinkTransposeThroughReduce(g, n)
                                        : isElementwise(n->getKind()) ? sinkTranspose(g, n)
                                                                      : false;
      if (!simplified)
        return simplified.takeError();
      changed |= *simplified;
    }
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createSimplifyLayoutPass() {
  return std::make_unique<SimplifyLayoutPass>();
}

} // namespace kiln
