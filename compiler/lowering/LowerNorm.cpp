//===- LowerNorm.cpp - Normalizations -> reductions and elementwise ops ----===//
//
// LayerNormalization, InstanceNormalization and MeanVarianceNormalization
// are their formulas over the normalized axes: mean = ReduceMean(x), d = x -
// mean, var = ReduceMean(d * d), then d / sqrt(var + epsilon) (for
// MeanVarianceNormalization d / (sqrt(var) + 1e-9)), scaled and shifted.
// LayerNormalization's Mean and InvStdDev results are the intermediate
// values themselves. A LayerNormalization whose Scale and B the layer-norm
// kernel reads (layerNormRows) stays one node. LRN sums the squares over a
// window of channels as shifted Slices of the zero-padded squares.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {

llvm::Expected<bool> lowerNormalization(Graph &g, Node *n) {
  if (n->is(OpKind::LayerNormalization) && layerNormRows(*n))
    return false;
  NormalizedAxes na = normalizedAxes(*n);
  HelperNodeBuilder c(g, *n);
  AttrMap reduce{{"axes", Attr::ofInts(na.axes)},
                 {"keepdims", Attr::ofInt(1)},
                 {"noop_with_empty_axes", Attr::ofInt(0)}};
  Value *x = n->getInput(0);
  Value *mean = c.add("mean", OpKind::ReduceMean, {x}, reduce);
  Value *d = c.add("centered", OpKind::Sub, {x, mean});
  Value *var =
      c.add("variance", OpKind::ReduceMean, {c.add("sq", OpKind::Mul, {d, d})},
            reduce);
  Value *y, *inv = nullptr;
  if (n->is(OpKind::MeanVarianceNormalization)) {
    Value *stddev = c.add("stddev", OpKind::Sqrt, {var});
    y = c.add("normalized", OpKind::Div,
              {d, c.add("stddev_eps", OpKind::Add,
                        {stddev, c.scalar("epsilon", na.epsilon)})});
  } else {
    Value *stddev = c.add("stddev", OpKind::Sqrt,
                          {c.add("var_eps", OpKind::Add,
                                 {var, c.scalar("epsilon", na.epsilon)})});
    inv = c.add("inv_stddev", OpKind::Reciprocal, {stddev});
    y = c.add("normalized", OpKind::Mul, {d, inv});
  }
  Value *scale = n->getInput(1), *bias = n->getInput(2);
  if (n->is(OpKind::InstanceNormalization)) {
    // [C] parameters broadcast over the spatial axes as [C, 1, ..., 1].
    Shape shape(x->getType().rank() - 1, 1);
    shape[0] = x->getType().shape[1];
    AttrMap r{{"shape", Attr::ofInts(shape)}};
    scale = c.add("scale", OpKind::Reshape, {scale}, r);
    bias = c.add("bias", OpKind::Reshape, {bias}, r);
  }
  if (scale)
    y = c.add("scaled", OpKind::Mul, {y, scale});
  if (bias)
    y = c.add("shifted", OpKind::Add, {y, bias});
  return c.replaceOrigin({y, mean, inv});
}

llvm::Expected<bool> lowerLRN(Graph &g, Node *n) {
  HelperNodeBuilder c(g, *n);
  LRNView lrn(*n);
  Value *x = lrn.input();
  const TensorType &xt = x->getType();
  int64_t rank = xt.rank(), channels = xt.shape[1];
  int64_t size = lrn.size();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  Value *sq = c.add("sq", OpKind::Mul, {x, x});
  Shape pads(2 * rank, 0);
  pads[1] = before;
  pads[rank + 1] = after;
  Value *padded = c.add("padded", OpKind::Pad, {sq},
                        {{"mode", Attr::ofString("constant")},
                         {"pads", Attr::ofInts(pads)},
                         {"value", Attr::ofFloat(0.0f)}});
  Shape starts(rank, 0), ends(xt.shape.begin(), xt.shape.end());
  Value *sum = nullptr;
  for (int64_t k = 0; k < size; ++k) {
    starts[1] = k;
    ends[1] = k + channels;
    Value *window = c.add("window", OpKind::Slice, {padded}, sliceAttrs(starts, ends));
    sum = sum ? c.add("sum", OpKind::Add, {sum, window}) : window;
  }
  float alpha = lrn.alpha(), beta = lrn.beta();
  Value *scaled = c.add("scaled", OpKind::Mul,
                        {sum, c.scalar("alpha", alpha / float(size))});
  Value *base = c.add("base", OpKind::Add,
                      {scaled, c.scalar("bias", lrn.bias())});
  Value *denom = c.add("denom", OpKind::Pow, {base, c.scalar("beta", beta)});
  Value *y = c.add("normalized", OpKind::Div, {x, denom});
  return c.replaceOrigin({y});
}

llvm::Expected<bool> lowerOneHot(Graph &g, Node *n) {
  HelperNodeBuilder c(g, *n);
  OneHotView oneHot(*n);
  Value *indices = oneHot.indices(), *values = oneHot.values();
  const TensorType &it = indices->getType();
  int64_t depth = oneHot.depth();
  int64_t outRank = it.rank() + 1;
  int64_t axis = *normalizeAxis(oneHot.axis(), outRank);
  auto constant = [&](llvm::StringRef role, Shape shape, auto fill) {
    Tensor t(TensorType(it.dtype, shape));
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setFromDouble(i, fill(i));
    return g.addConstant(n->getName().str() + "/" + role.str(), std::move(t));
  };
  // Negative indices count from the end of the depth.
  Value *negative = c.add("negative", OpKind::Less,
                          {indices, constant("zero", {}, [](int64_t) { return 0; })});
  Value *shifted = c.add("shifted", OpKind::Add,
                         {indices, constant("depth", {}, [&](int64_t) {
                            return double(depth);
                          })});
  Value *resolved = c.add("resolved", OpKind::Where, {negative, shifted, indices});
  Shape expanded = it.shape;
  expanded.insert(expanded.begin() + axis, 1);
  Value *column = c.add("column", OpKind::Reshape, {resolved},
                        {{"shape", Attr::ofInts(expanded)}});
  Shape iotaShape(outRank - axis, 1);
  iotaShape[0] = depth;
  Value *iota = constant("classes", iotaShape, [](int64_t i) { return double(i); });
  Value *hit = c.add("hit", OpKind::Equal, {column, iota});
  auto pick = [&](llvm::StringRef role, int64_t which) {
    Value *at = g.addConstant(n->getName().str() + "/" + role.str() + "_at",
                              Tensor::fromValues<int64_t>(DType::I64, {}, which));
    return c.add(role, OpKind::Gather, {values, at});
  };
  Value *off = pick("off", 0), *on = pick("on", 1);
  Value *y = c.add("select", OpKind::Where, {hit, on, off});
  return c.replaceOrigin({y});
}

} // namespace kiln
