//===- LowerGemm.cpp - Gemm -> MatMul and elementwise ops -----------------===//
//
// Y = alpha * op(A) * op(B) + beta * C. The code generator has one matrix
// product, MatMul; everything else Gemm does is a transpose, a scaling or a
// broadcast add. In a model B and C are weights, so the transposes and
// scalings land on constants here and the usual result is MatMul + Add of a
// constant row, which fuse-matmul-bias turns into a biased MatMul.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpViews.h"

#include <cassert>

namespace kiln {
namespace {

/// op(v) * factor as a value: computed on the data when `v` is constant,
/// else a Transpose node when needed (`factor` must then be 1: the caller
/// scales non-constant operands with a Mul).
llvm::Expected<Value *> prepareOperand(Graph &g, Node &gemm, Value *v,
                                       bool transpose, double factor,
                                       llvm::StringRef role) {
  if (const Tensor *t = constantData(v)) {
    if (!transpose && factor == 1.0)
      return v;
    Tensor data = transpose ? transpose2D(*t) : *t;
    if (factor != 1.0)
      data = scaleTensor(data, factor);
    return g.addConstant(gemm.getName().str() + "/" + role.str(),
                         std::move(data));
  }
  assert(factor == 1.0 && "only constant operands are scaled here");
  if (!transpose)
    return v;
  auto node =
      addHelperNode(g, gemm, role.str() + "_transpose", OpKind::Transpose, {v},
                    {{"perm", Attr::ofInts({1, 0})}});
  if (!node)
    return node.takeError();
  return (*node)->getOutput();
}

/// `v` * factor, as a Mul by a scalar constant.
llvm::Expected<Value *> scaleByNode(Graph &g, Node &gemm, Value *v,
                                    float factor, llvm::StringRef role) {
  Value *scalar =
      g.addConstant(gemm.getName().str() + "/" + role.str(), scalarF32(factor));
  auto mul = addHelperNode(g, gemm, role, OpKind::Mul, {v, scalar});
  if (!mul)
    return mul.takeError();
  return (*mul)->getOutput();
}

} // namespace

llvm::Expected<bool> lowerGemm(Graph &g, Node *gemm) {
  GemmView view(*gemm);
  float alpha = view.alpha(), beta = view.beta();
  bool transA = view.transA() != 0;
  bool transB = view.transB() != 0;
  Value *c = beta != 0.0f ? view.c() : nullptr;

  auto a = prepareOperand(g, *gemm, view.a(), transA, 1.0, "a");
  if (!a)
    return a.takeError();
  // alpha goes into B when B is constant (the weights), else after the
  // product.
  bool alphaInB = alpha != 1.0f && constantData(view.b());
  auto b =
      prepareOperand(g, *gemm, view.b(), transB, alphaInB ? alpha : 1.0, "b");
  if (!b)
    return b.takeError();

  auto mm = addReplacementNode(g, *gemm, OpKind::MatMul, {*a, *b});
  if (!mm)
    return mm.takeError();
  Value *y = (*mm)->getOutput();
  if (alpha != 1.0f && !alphaInB) {
    auto scaled = scaleByNode(g, *gemm, y, alpha, "alpha");
    if (!scaled)
      return scaled.takeError();
    y = *scaled;
  }
  if (c) {
    Value *term = c;
    if (beta != 1.0f) {
      auto scaled = constantData(c)
                        ? prepareOperand(g, *gemm, c, false, beta, "c")
                        : scaleByNode(g, *gemm, c, beta, "beta");
      if (!scaled)
        return scaled.takeError();
      term = *scaled;
    }
    auto add = addHelperNode(g, *gemm, "bias", OpKind::Add, {y, term});
    if (!add)
      return add.takeError();
    y = (*add)->getOutput();
  }
  return replaceNode(g, gemm, y);
}

} // namespace kiln
