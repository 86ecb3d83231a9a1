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

/// The [N] bias `c` stands for when it is a constant [N], [1,N], [1,1,N],
/// ... vector of the product's dtype, no higher in rank than the product,
/// else nullptr.
const Tensor *asBiasVector(const Value *c, const TensorType &product) {
  const Tensor *t = constantData(c);
  if (!t || product.dtype != DType::F32 || t->getDType() != DType::F32)
    return nullptr;
  llvm::ArrayRef<int64_t> s = t->getShape();
  bool isRow = !s.empty() && s.size() <= product.rank() &&
               s.back() == product.shape.back() &&
               llvm::all_of(s.drop_back(), [](int64_t d) { return d == 1; });
  return isRow ? t : nullptr;
}

/// Whether `mm` is a MatMul of matrices (or of batches of them: a
/// transformer's [1,T,K] x [K,N] projections) with no bias or activation yet.
bool isPlainMatMul(const Node &mm) {
  return mm.is(OpKind::MatMul) && mm.getNumInputs() == 2 &&
         fusedActivation(mm).isNone() &&
         mm.getInput(0)->getType().rank() >= 2 &&
         mm.getInput(1)->getType().rank() >= 2;
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
                             bias->reshaped({product->getType().shape.back()}));
    auto fused =
        rebuildNode(g, mm, {mm->getInput(0), mm->getInput(1), bias1D}, {});
    if (!fused)
      return fused.takeError();
    return replaceNode(g, add, (*fused)->getOutput());
  }
  return false;
}

} // namespace

std::unique_ptr<Pass> createFuseMatMulBiasPass() {
  return std::make_unique<NodeRewritePass>("fuse-matmul-bias", OpKind::Add, fuseBias);
}

} // namespace kiln
