//===- LowerBatchNorm.cpp - BatchNormalization -> Mul + Add ---------------===//
//
// A BatchNorm that fold-batchnorm could not fold (its input comes from an
// Add, a pool, a graph input, ...) is still a per-channel affine map:
// x * scale + shift with [C, 1, ..., 1] constants that broadcast over the
// spatial axes.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/passes/BatchNormAffine.h"
#include "compiler/passes/RewriteUtils.h"

namespace kiln {

llvm::Expected<bool> lowerBatchNorm(Graph &g, Node *bn) {
  std::optional<ChannelAffine> affine = getBatchNormAffine(g, *bn);
  if (!affine)
    return nodeError(*bn, "only inference-mode BatchNormalization with "
                          "constant f32 parameters (and unused statistics "
                          "outputs) is supported");
  Shape shape(bn->getInput(0)->getType().rank() - 1, 1);
  shape[0] = affine->scale.size();
  Value *scale = g.addConstant(
      bn->getName().str() + "/scale",
      Tensor::fromValues<float>(DType::F32, shape,
                                llvm::ArrayRef<float>(affine->scale)));
  Value *shift = g.addConstant(
      bn->getName().str() + "/shift",
      Tensor::fromValues<float>(DType::F32, shape,
                                llvm::ArrayRef<float>(affine->shift)));
  auto mul = addReplacementNode(g, *bn, OpKind::Mul, {bn->getInput(0), scale});
  if (!mul)
    return mul.takeError();
  auto add =
      addHelperNode(g, *bn, "shift", OpKind::Add, {(*mul)->getOutput(), shift});
  if (!add)
    return add.takeError();
  if (auto err = replaceValue(g, *bn, bn->getOutput(), (*add)->getOutput()))
    return std::move(err);
  g.eraseNode(bn);
  return true;
}

} // namespace kiln
