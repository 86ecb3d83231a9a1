//===- LowerBatchNorm.cpp - BatchNormalization -> Mul + Add ---------------===//
//
// A BatchNorm that fold-batchnorm could not fold (its input comes from an
// Add, a pool, a graph input, ...) is still a per-channel affine map:
// x * scale + shift with [C, 1, ..., 1] constants that broadcast over the
// spatial axes. With parameters computed at run time it becomes the formula
// itself in elementwise ops.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpViews.h"
#include "compiler/passes/BatchNormAffine.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {

namespace {

/// The BatchNorm formula itself, for parameters computed at run time:
/// (x - mean) * (scale / sqrt(var + epsilon)) + B, each [C] parameter
/// reshaped to [C, 1, ..., 1].
llvm::Expected<bool> lowerRuntimeBatchNorm(Graph &g, Node *bn) {
  BatchNormalizationView view(*bn);
  Shape shape(view.input()->getType().rank() - 1, 1);
  shape[0] = view.input()->getType().shape[1];
  llvm::SmallVector<Value *, 4> params;
  static const char *const roles[] = {"scale", "bias", "mean", "var"};
  for (unsigned i = 1; i < 5; ++i) {
    auto r = addHelperNode(g, *bn, roles[i - 1], OpKind::Reshape,
                           {bn->getInput(i)},
                           {{"shape", Attr::ofInts(shape)}});
    if (!r)
      return r.takeError();
    params.push_back((*r)->getOutput());
  }
  Value *epsilon = g.addConstant(bn->getName().str() + "/epsilon",
                                 scalarF32(view.epsilon()));
  Value *x = view.input();
  auto add = [&](const char *role, OpKind kind,
                 llvm::ArrayRef<Value *> in) -> llvm::Expected<Value *> {
    auto n = addHelperNode(g, *bn, role, kind, in);
    if (!n)
      return n.takeError();
    return (*n)->getOutput();
  };
  auto varEps = add("var_eps", OpKind::Add, {params[3], epsilon});
  if (!varEps)
    return varEps.takeError();
  auto stddev = add("stddev", OpKind::Sqrt, {*varEps});
  if (!stddev)
    return stddev.takeError();
  auto factor = add("factor", OpKind::Div, {params[0], *stddev});
  if (!factor)
    return factor.takeError();
  auto centered = add("centered", OpKind::Sub, {x, params[2]});
  if (!centered)
    return centered.takeError();
  auto scaled = add("scaled", OpKind::Mul, {*centered, *factor});
  if (!scaled)
    return scaled.takeError();
  auto y = add("shift", OpKind::Add, {*scaled, params[1]});
  if (!y)
    return y.takeError();
  return replaceNode(g, bn, *y);
}

} // namespace

llvm::Expected<bool> lowerBatchNorm(Graph &g, Node *bn) {
  std::optional<ChannelAffine> affine = getBatchNormAffine(g, *bn);
  if (!affine)
    return lowerRuntimeBatchNorm(g, bn);
  Value *x = BatchNormalizationView(*bn).input();
  Shape shape(x->getType().rank() - 1, 1);
  shape[0] = affine->scale.size();
  Value *scale = g.addConstant(
      bn->getName().str() + "/scale",
      Tensor::fromValues<float>(DType::F32, shape,
                                llvm::ArrayRef<float>(affine->scale)));
  Value *shift = g.addConstant(
      bn->getName().str() + "/shift",
      Tensor::fromValues<float>(DType::F32, shape,
                                llvm::ArrayRef<float>(affine->shift)));
  auto mul = addReplacementNode(g, *bn, OpKind::Mul, {x, scale});
  if (!mul)
    return mul.takeError();
  auto add =
      addHelperNode(g, *bn, "shift", OpKind::Add, {(*mul)->getOutput(), shift});
  if (!add)
    return add.takeError();
  return replaceNode(g, bn, (*add)->getOutput());
}

} // namespace kiln
