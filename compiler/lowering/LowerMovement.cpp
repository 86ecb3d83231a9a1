//===- LowerMovement.cpp - Slicing and rearranging ops -> primitives -------===//
//
// Split is one Slice per output; Tile is Reshape -> Expand -> Reshape
// (each input dimension d gets a repeat axis of its own before it);
// DepthToSpace and SpaceToDepth are Reshape -> Transpose -> Reshape; Trilu
// is a Where over a constant mask. Slice itself is primitive, in the
// explicit form the code generator reads: starts and steps for every axis.
// All of these are exact.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/graph/Rewrite.h"


namespace kiln {

namespace {

/// Adds a helper node next to `origin` and returns its first result.
llvm::Expected<Value *> helper(Graph &g, Node &origin, llvm::StringRef role,
                               OpKind kind, llvm::ArrayRef<Value *> inputs,
                               AttrMap attrs) {
  auto n = addHelperNode(g, origin, role, kind, inputs, std::move(attrs));
  if (!n)
    return n.takeError();
  return (*n)->getOutput();
}

} // namespace

llvm::Expected<bool> makeSliceExplicit(Graph &g, Node *n) {
  auto geom = resolveSlice(*n);
  if (!geom)
    return geom.takeError();
  size_t rank = geom->starts.size();
  Shape axes, ends;
  for (size_t d = 0; d < rank; ++d) {
    axes.push_back(d);
    int64_t end = geom->starts[d] + geom->outShape[d] * geom->steps[d];
    // A negative end would count from the back: this one means "before 0".
    ends.push_back(end < 0 ? -n->getInput(0)->getType().shape[d] - 1 : end);
  }
  AttrMap attrs{{"starts", Attr::ofInts(geom->starts)},
                {"ends", Attr::ofInts(ends)},
                {"axes", Attr::ofInts(axes)},
                {"steps", Attr::ofInts(geom->steps)}};
  return updateAttrs(g, *n, attrs);
}

llvm::Expected<bool> lowerSplit(Graph &g, Node *n) {
  SplitView split(*n);
  const TensorType &x = split.input()->getType();
  int64_t axis = *normalizeAxis(split.axis(), x.rank());
  int64_t start = 0;
  for (unsigned i = 0; i < n->getNumOutputs(); ++i) {
    Value *out = n->getOutput(i);
    int64_t size = out->getType().shape[axis];
    auto slice = addHelperNode(
        g, *n, "part" + std::to_string(i), OpKind::Slice, {split.input()},
        {{"starts", Attr::ofInts({start})},
         {"ends", Attr::ofInts({start + size})},
         {"axes", Attr::ofInts({axis})}});
    if (!slice)
      return slice.takeError();
    auto explicitForm = makeSliceExplicit(g, *slice);
    if (!explicitForm)
      return explicitForm.takeError();
    if (auto err = replaceValue(g, *n, out, (*slice)->getOutput()))
      return std::move(err);
    start += size;
  }
  g.eraseNode(n);
  return true;
}

llvm::Expected<bool> lowerTile(Graph &g, Node *n) {
  TileView tile(*n);
  const TensorType &x = tile.input()->getType();
  llvm::ArrayRef<int64_t> repeats = tile.repeats();
  Shape split, expanded;
  for (size_t d = 0; d < x.rank(); ++d) {
    split.append({1, x.shape[d]});
    expanded.append({repeats[d], x.shape[d]});
  }
  auto v = helper(g, *n, "split", OpKind::Reshape, {tile.input()},
                  reshapeAttrs(split));
  if (!v)
    return v.takeError();
  v = helper(g, *n, "expand", OpKind::Expand, {*v},
             {{"shape", Attr::ofInts(expanded)}});
  if (!v)
    return v.takeError();
  v = helper(g, *n, "merge", OpKind::Reshape, {*v},
             reshapeAttrs(n->getOutput()->getType().shape));
  if (!v)
    return v.takeError();
  return replaceNode(g, n, *v);
}

llvm::Expected<bool> lowerDepthSpace(Graph &g, Node *n) {
  DepthSpacePlan plan = depthSpacePlan(*n);
  auto v = helper(g, *n, "view", OpKind::Reshape, {n->getInput(0)},
                  reshapeAttrs(plan.view));
  if (!v)
    return v.takeError();
  v = helper(g, *n, "permute", OpKind::Transpose, {*v},
             {{"perm", Attr::ofInts(plan.perm)}});
  if (!v)
    return v.takeError();
  v = helper(g, *n, "merge", OpKind::Reshape, {*v},
             reshapeAttrs(n->getOutput()->getType().shape));
  if (!v)
    return v.takeError();
  return replaceNode(g, n, *v);
}

llvm::Expected<bool> lowerTrilu(Graph &g, Node *n) {
  TriluView trilu(*n);
  const TensorType &x = trilu.input()->getType();
  int64_t rows = x.shape[x.rank() - 2], cols = x.shape.back();
  bool upper = trilu.upper() != 0;
  int64_t k = trilu.k();
  Tensor mask(TensorType(DType::Bool, {rows, cols}));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      mask.data<uint8_t>()[r * cols + c] = upper ? c - r >= k : c - r <= k;
  Value *maskValue = g.addConstant(n->getName().str() + "/mask", std::move(mask));
  Value *zero = g.addConstant(n->getName().str() + "/zero",
                              Tensor(TensorType(x.dtype, {})));
  auto where = addReplacementNode(g, *n, OpKind::Where,
                                  {maskValue, trilu.input(), zero});
  if (!where)
    return where.takeError();
  return replaceNode(g, n, (*where)->getOutput());
}

} // namespace kiln
