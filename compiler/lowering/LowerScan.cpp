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
#include "compiler/ops/OpHelpers.h"
#include "compiler/passes/RewriteUtils.h"

#include <numeric>

namespace kiln {

llvm::Expected<bool> lowerCumSum(Graph &g, Node *n) {
  Value *x = n->getInput(0);
  const TensorType &xt = x->getType();
  int64_t rank = xt.rank();
  int64_t axis = *normalizeAxis(n->getInt("axis"), rank);
  int64_t len = xt.shape[axis];
  bool exclusive = n->getInt("exclusive"), reverse = n->getInt("reverse");
  Tensor m(TensorType(DType::F32, {len, len}));
  for (int64_t i = 0; i < len; ++i)
    for (int64_t j = 0; j < len; ++j) {
      bool in = reverse ? (exclusive ? i > j : i >= j)
                        : (exclusive ? i < j : i <= j);
      m.data<float>()[i * len + j] = in ? 1.0f : 0.0f;
    }
  Value *matrix = g.addConstant(g.uniqueName(n->getName().str() + "/sums"),
                                std::move(m));
  Shape perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + axis);
  perm.push_back(axis);
  bool moved = axis != rank - 1;
  Shape inverse(rank);
  for (int64_t d = 0; d < rank; ++d)
    inverse[perm[d]] = d;
  Value *in = x;
  // MatMul wants a matrix on the left: a vector is one row.
  if (rank == 1) {
    auto r = addHelperNode(g, *n, "row", OpKind::Reshape, {x},
                           {{"shape", Attr::ofInts({1, len})}});
    if (!r)
      return r.takeError();
    in = (*r)->getOutput();
  }
  if (moved) {
    auto t = addHelperNode(g, *n, "to_last", OpKind::Transpose, {x},
                           {{"perm", Attr::ofInts(perm)}});
    if (!t)
      return t.takeError();
    in = (*t)->getOutput();
  }
  auto sums = addHelperNode(g, *n, "sums", OpKind::MatMul, {in, matrix});
  if (!sums)
    return sums.takeError();
  Value *y = (*sums)->getOutput();
  if (rank == 1) {
    auto r = addHelperNode(g, *n, "vector", OpKind::Reshape, {y},
                           {{"shape", Attr::ofInts({len})}});
    if (!r)
      return r.takeError();
    y = (*r)->getOutput();
  }
  if (moved) {
    auto t = addHelperNode(g, *n, "from_last", OpKind::Transpose, {y},
                           {{"perm", Attr::ofInts(inverse)}});
    if (!t)
      return t.takeError();
    y = (*t)->getOutput();
  }
  if (auto err = replaceValue(g, *n, n->getOutput(), y))
    return std::move(err);
  g.eraseNode(n);
  return true;
}

} // namespace kiln
