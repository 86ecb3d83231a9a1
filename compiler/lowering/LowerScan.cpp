//===- LowerScan.cpp - CumSum -> MatMul by a triangular matrix ------------===//
//
// A running sum along the last axis is a product with a constant 0/1
// matrix M[n, n]: y[j] = sum_i x[i] * M[i][j], with M[i][j] = 1 for i <= j
// (i < j exclusive; i >= j, i > j reversed). Another axis is transposed to
// the end and back. The matrix has n^2 elements, fine for the axis lengths
// of embedded models; the MatMul kernel does the summing.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {

llvm::Expected<bool> lowerCumSum(Graph &g, Node *n) {
  CumSumView cumSum(*n);
  Value *x = cumSum.input();
  const TensorType &xt = x->getType();
  int64_t rank = xt.rank();
  int64_t axis = *normalizeAxis(cumSum.axis(), rank);
  int64_t len = xt.shape[axis];
  bool exclusive = cumSum.exclusive(), reverse = cumSum.reverse();
  Tensor m(TensorType(DType::F32, {len, len}));
  for (int64_t i = 0; i < len; ++i)
    for (int64_t j = 0; j < len; ++j) {
      bool in =
          reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      m.data<float>()[i * len + j] = in ? 1.0f : 0.0f;
    }
  HelperNodeBuilder b(g, *n);
  Value *matrix = b.constant("sums", std::move(m));
  Shape perm = movedAxisPerm(rank, axis, rank - 1);
  bool moved = axis != rank - 1;
  Value *in = x;
  // MatMul wants a matrix on the left: a vector is one row.
  if (rank == 1)
    in =
        b.add("row", OpKind::Reshape, {x}, {{"shape", Attr::ofInts({1, len})}});
  if (moved)
    in = b.add("to_last", OpKind::Transpose, {x},
               {{"perm", Attr::ofInts(perm)}});
  Value *y = b.add("sums", OpKind::MatMul, {in, matrix});
  if (rank == 1)
    y = b.add("vector", OpKind::Reshape, {y}, {{"shape", Attr::ofInts({len})}});
  if (moved)
    y = b.add("from_last", OpKind::Transpose, {y},
              {{"perm", Attr::ofInts(inversePerm(perm))}});
  return b.replaceOrigin({y});
}

} // namespace kiln
