//===- TopK.cpp - TopK as TopKIndices and a gather of the values --------===//
//
// TopK with a constant k: the indices of the k first elements along the
// axis (TopKIndices, ops/TopKOps.cpp: equal values keep the lower index
// first, as ONNX specifies; sorted = 0 allows any order, so the sorted one
// always does), then the values at those indices (GatherElements).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "llvm/Support/FormatVariadic.h"

namespace kiln {

llvm::Expected<ValueList> emitTopK(NodeEmitter &e, PendingNode &n) {
  // TopK-10's K input is the attribute k by now (OpsetInputs.cpp).
  if (auto err = checkMaxInputs(n, 1))
    return std::move(err);
  auto kAttr = intAttr(n, "k", -1);
  if (!kAttr)
    return kAttr.takeError();
  int64_t k = *kAttr;
  if (n.inputs.empty() || !n.inputs[0])
    return n.error("needs an input X");
  auto largest = intAttr(n, "largest", 1);
  if (!largest)
    return largest.takeError();
  Value *x = n.inputs[0];
  const TensorType &xt = x->getType();
  if (xt.dtype != DType::F32 && xt.dtype != DType::I32 &&
      xt.dtype != DType::I64)
    return n.error("supports f32, i32 and i64 inputs, got " + xt.str());
  int64_t rank = xt.rank();
  auto axis = axisAttr(n, "axis", -1, rank);
  if (!axis)
    return axis.takeError();
  int64_t len = xt.shape[*axis];
  if (k < 0 || k > len)
    return n.error(
        llvm::formatv("k = {0} is not in [0, {1}], the axis length", k, len));

  Formula f(e, n);
  Value *indices = f.add("indices", OpKind::TopKIndices, {x},
                         {{"axis", Attr::ofInt(*axis)},
                          {"k", Attr::ofInt(k)},
                          {"largest", Attr::ofInt(*largest ? 1 : 0)}},
                         n.getOutputName(1));
  Value *values = f.add("values", OpKind::GatherElements, {x, indices},
                        {{"axis", Attr::ofInt(*axis)}}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{values, indices};
}

} // namespace kiln
