//===- RowVectorMatMul.cpp - A matrix times a column as a row times it ----===//
//
// A constant matrix A [..., M, K] times a column b [..., K, 1] (CapsNet's
// prediction vectors, W @ u) has one column to put on the vector lanes; as
// b^T A^T, the row [..., 1, K] times A transposed at compile time, it is the
// one-row MatMul over A^T's packed strips, M outputs on the lanes. The
// column and the result change shape only, not layout.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/ActivationOps.h"
#include "compiler/passes/Passes.h"

namespace kiln {
namespace {

/// `t` [..., M, K] as [..., K, M]: each matrix of the batch transposed.
Tensor transposeMatrices(const Tensor &t) {
  Shape shape(t.getShape());
  const int64_t m = shape[shape.size() - 2], k = shape.back();
  std::swap(shape[shape.size() - 2], shape.back());
  Tensor out(TensorType(t.getDType(), shape));
  const float *in = t.data<float>();
  float *o = out.data<float>();
  for (int64_t base = 0, n = t.numElements(); base < n; base += m * k)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j)
        o[base + j * m + i] = in[base + i * k + j];
  return out;
}

llvm::Expected<bool> matmulByRow(Graph &g, Node *mm) {
  Value *a = mm->getInput(0), *b = mm->getInput(1);
  const Tensor *matrix = constantData(a);
  const TensorType &bt = b->getType(), &yt = mm->getOutput()->getType();
  if (mm->getNumInputs() != 2 || !fusedActivation(*mm).isNone() || !matrix ||
      a->getType().dtype != DType::F32 || a->getType().quant.isQuantized() ||
      a->getType().rank() < 2 || bt.rank() < 2 || bt.shape.back() != 1 ||
      a->getType().shape[a->getType().rank() - 2] == 1)
    return false;
  Shape rowShape(bt.shape);
  std::swap(rowShape[rowShape.size() - 2], rowShape.back());
  HelperNodeBuilder f(g, *mm);
  Value *row = f.add("row", OpKind::Reshape, {b}, reshapeAttrs(rowShape));
  Value *transposed = f.constant("transposed", transposeMatrices(*matrix));
  Value *product = f.add("by_row", OpKind::MatMul, {row, transposed});
  Value *y = f.add("column", OpKind::Reshape, {product}, reshapeAttrs(yt.shape));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return replaceNode(g, mm, y);
}

} // namespace

std::unique_ptr<Pass> createRowVectorMatMulPass() {
  return std::make_unique<NodeRewritePass>("row-vector-matmul", OpKind::MatMul, matmulByRow);
}

} // namespace kiln
