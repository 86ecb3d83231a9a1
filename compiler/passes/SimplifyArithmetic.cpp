//===- SimplifyArithmetic.cpp - Exact cheaper forms of arithmetic ---------===//
//
// Exporters write some arithmetic in a general form whose kernel is far
// slower than the case at hand: a LayerNorm's variance squares by Pow(x, 2),
// GPT-2's tanh GELU cubes by Pow(x, 3), which the Pow kernel computes as
// exp(k log|x|) with its sign and integer cases. x * x is x^2 correctly
// rounded, as pow is; (x * x) * x rounds twice, within about an ulp of
// x^3, where the Pow kernel's exp and log are not exact either. Other
// exponents stay.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/passes/Passes.h"

namespace kiln {
namespace {

/// Whether `v` is a float constant all of whose elements are `k`.
bool isConstantSplat(const Value *v, double k) {
  const Tensor *t = constantData(v);
  if (!t || !isFloatDType(t->getDType()) || t->numElements() == 0)
    return false;
  for (int64_t i = 0, e = t->numElements(); i < e; ++i)
    if (t->getAsDouble(i) != k)
      return false;
  return true;
}

/// Pow(x, 2) -> Mul(x, x) and Pow(x, 3) -> Mul(Mul(x, x), x), where the
/// exponent does not broadcast x.
llvm::Expected<bool> powerByMul(Graph &g, Node *pow) {
  Value *x = pow->getInput(0);
  const bool cube = isConstantSplat(pow->getInput(1), 3);
  if (!isFloatDType(x->getType().dtype) ||
      !(cube || isConstantSplat(pow->getInput(1), 2)) ||
      pow->getOutput()->getType() != x->getType())
    return false;
  // The cube multiplies the square by x again.
  Value *factor = x;
  if (cube) {
    auto square = addHelperNode(g, *pow, "square", OpKind::Mul, {x, x});
    if (!square)
      return square.takeError();
    factor = (*square)->getOutput();
  }
  auto mul = addReplacementNode(g, *pow, OpKind::Mul, {factor, x});
  if (!mul)
    return mul.takeError();
  return replaceNode(g, pow, (*mul)->getOutput());
}

} // namespace

std::unique_ptr<Pass> createSimplifyArithmeticPass() {
  return std::make_unique<NodeRewritePass>("simplify-arithmetic", OpKind::Pow,
                                           powerByMul);
}

} // namespace kiln
