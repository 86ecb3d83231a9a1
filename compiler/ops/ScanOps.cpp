//===- ScanOps.cpp - CumSum -----------------------------------------------===//
//
// CumSum (opset 14): running sums along one axis, optionally exclusive (the
// element itself left out) and reversed (summing from the end). The axis,
// an input in ONNX, is an attribute in kiln.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {
namespace {

llvm::Expected<TypeList> inferCumSum(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return e;
  const TensorType &x = inputType(n, 0);
  int64_t axis = CumSumView(n).axis();
  if (x.rank() == 0 || !normalizeAxis(axis, x.rank()))
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      axis, x.str()));
  return TypeList{x};
}

llvm::Error evalCumSum(const Node &n, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  llvm::ArrayRef<int64_t> shape = x.getShape();
  CumSumView cumSum(n);
  int64_t axis = *normalizeAxis(cumSum.axis(), shape.size());
  bool exclusive = cumSum.exclusive(), reverse = cumSum.reverse();
  auto [outer, extent, inner] = splitAtAxis(shape, axis);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (int64_t s = 0; s < extent; ++s) {
        int64_t k = reverse ? extent - 1 - s : s;
        int64_t at = (o * extent + k) * inner + i;
        double v = readFloat(x, at);
        if (!exclusive)
          sum += v;
        writeFloat(out[0], at, sum);
        if (exclusive)
          sum += v;
      }
    }
  return llvm::Error::success();
}

} // namespace

void registerScanOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::CumSum,
                  "CumSum",
                  1,
                  1,
                  1,
                  1,
                  {{"axis", AttrKind::Int, std::nullopt, true},
                   flagAttr("exclusive", 0),
                   flagAttr("reverse", 0)},
                  inferCumSum,
                  evalCumSum});
}

} // namespace kiln
