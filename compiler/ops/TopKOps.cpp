//===- TopKOps.cpp - TopKIndices: the k first elements along an axis ------===//
//
// TopKIndices gives, along `axis`, the indices of the k elements that come
// first: the greatest (largest = 1) or the least (largest = 0), in that
// order; equal elements keep their index order, as ONNX TopK specifies, and
// NaN counts as greater than every number, as in PyTorch. The ONNX importer
// makes TopK of it and a GatherElements of the values.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/TopKOrder.h"

#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace kiln {
namespace {

llvm::Expected<TypeList> inferTopKIndices(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32, DType::I32, DType::I64}))
    return std::move(e);
  const TensorType &x = inputType(n, 0);
  TopKIndicesView v(n);
  int64_t rank = x.rank(), axis = v.axis(), k = v.k();
  if (axis < 0 || axis >= rank)
    return nodeError(n, llvm::formatv("axis {0} is not in [0, {1})", axis, rank).str());
  if (k < 0 || k > x.shape[axis])
    return nodeError(
        n, llvm::formatv("k = {0} is not in [0, {1}], the axis length", k, x.shape[axis]).str());
  Shape shape = x.shape;
  shape[axis] = k;
  return TypeList{TensorType(DType::I64, shape)};
}

llvm::Error evalTopKIndices(const Node &n, llvm::ArrayRef<const Tensor *> in,
                            llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  TopKIndicesView v(n);
  int64_t axis = v.axis(), k = v.k();
  bool largest = v.largest() != 0;
  llvm::ArrayRef<int64_t> shape = x.getShape();
  auto [outer, len, inner] = splitAtAxis(shape, axis);
  bool isFloat = isFloatDType(x.getDType());
  std::vector<int64_t> order(len);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * len + j) * inner + i; };
      auto beats = [&](int64_t a, int64_t b) {
        return isFloat ? topKBeats(readFloat(x, at(a)), readFloat(x, at(b)), largest)
                       : topKBeats(readInt(x, at(a)), readInt(x, at(b)), largest);
      };
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), beats);
      for (int64_t p = 0; p < k; ++p)
        y.data<int64_t>()[(o * k + p) * inner + i] = order[p];
    }
  return llvm::Error::success();
}

} // namespace

void registerTopKOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::TopKIndices,
                  "TopKIndices",
                  1,
                  1,
                  1,
                  1,
                  {{"axis", AttrKind::Int, std::nullopt, /*required=*/true},
                   {"k", AttrKind::Int, std::nullopt, /*required=*/true},
                   flagAttr("largest", 1)},
                  inferTopKIndices,
                  evalTopKIndices});
  defs.back().kernel = KernelFamily::TopK;
}

} // namespace kiln
