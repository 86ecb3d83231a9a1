//===- FuseMatMulBias.cpp - MatMul + constant row vector -> biased MatMul -===//
//
// A fully-connected layer arrives as MatMul + Add (from Gemm lowering or
// straight from the model). kiln's MatMul takes the bias as a third input so
// the kernel adds it while the result is still in registers, and so that
// fuse-activation can then fold the activation after it.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/ActivationOps.h"
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {
namespace {

/// The [N] bias `c` stands for when it is a constant [N] or [1,N] vector of
/// the product's dtype, else nullptr.
const Tensor *asBiasVector(const Value *c, const TensorType &product) {
  const Tensor *t = constantData(c);
  if (!t || t->getDType() != product.dtype)
    return nullptr;
  int64_t n = product.shape[1];
  llvm::ArrayRef<int64_t> s = t->getShape();
  bool isRow =
      (s.size() == 1 && s[0] == n) || (s.size() == 2 && s[0] == 1 && s[1] == n);
  return isRow ? t : nullptr;
}

/// Whether `mm` is a 2-D MatMul that has no bias or activation yet.
bool isPlainMatMul(const Node &mm) {
  return mm.is(OpKind::MatMul) && mm.getNumInputs() == 2 &&
         fusedActivation(mm).isNone() &&
         mm.getInput(0)->getType().rank() == 2 &&
         mm.getInput(1)->getType().rank() == 2;
}

llvm::Expected<bool> fuseBias(Graph &g, Node *add) {
  for (unsigned side = 0; side < 2; ++side) {
    Value *product = add->getInput(side);
    Value *c = add->getInput(1 - side);
    if (!product->isResult() || !isPlainMatMul(*product->getProducer()))
      continue;
    const Tensor *bias = asBiasVector(c, product->getType());
    if (!bias || !hasSingleUser(g, product, add) ||
        add->getOutput()->getType() != product->getType())
      continue;
    Node *mm = product->getProducer();
    Value *bias1D = c;
    if (bias->getShape().size() != 1)
      bias1D = g.addConstant(c->getName(),
                             bias->reshaped({product->getType().shape[1]}));
    auto fused =
        rebuildNode(g, mm, {mm->getInput(0), mm->getInput(1), bias1D}, {});
    if (!fused)
      return fused.takeError();
    if (auto err =
            replaceValue(g, *add, add->getOutput(), (*fused)->getOutput()))
      return std::move(err);
    g.eraseNode(add);
    return true;
  }
  return false;
}

} // namespace

std::unique_ptr<Pass> createFuseMatMulBiasPass() {
  return std::make_unique<NodeRewritePass>("fuse-matmul-bias", OpKind::Add, fuseBias);
}

} // namespace kiln
