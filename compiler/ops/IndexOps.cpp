//===- IndexOps.cpp - Gathers and scatters by index tensors -----------------===//
//
// GatherElements (opset 13), GatherND (opset 13, batch_dims), ScatterElements
// and ScatterND (opset 18: reduction none, add, mul, max or min), and OneHot (opset
// 11; depth is an attribute in kiln). Indices are i32 or i64 (OneHot's also
// f32), negative ones count from the end; an index out of range is an error
// in the reference (compiled code clamps it, so it never reads or writes
// outside the tensor), except for OneHot, where it selects no class.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln {
namespace {

llvm::Error checkIndices(const Node &n, unsigned i) {
  return expectDType(n, i, {DType::I32, DType::I64});
}

/// `idx` made non-negative for a dimension of `size`, or an error.
llvm::Expected<int64_t> resolveIndex(const Node &n, int64_t idx,
                                     int64_t size) {
  if (idx < -size || idx >= size)
    return nodeError(n, llvm::formatv("index {0} is out of range for a "
                                      "dimension of size {1}",
                                      idx, size));
  return idx < 0 ? idx + size : idx;
}

int64_t axisOf(const Node &n, size_t rank) {
  return *normalizeAxis(IndexAxisView(n).axis(), rank);
}

llvm::Error checkAxis(const Node &n, size_t rank) {
  int64_t axis = IndexAxisView(n).axis();
  if (normalizeAxis(axis, rank))
    return llvm::Error::success();
  return nodeError(n, llvm::formatv("axis {0} is out of range for rank {1}",
                                    axis, rank));
}

//===----------------------------------------------------------------------===//
// GatherElements, ScatterElements
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferElements(const Node &n) {
  if (llvm::Error e = checkIndices(n, 1))
    return e;
  const TensorType &data = inputType(n, 0), &indices = inputType(n, 1);
  if (llvm::Error e = checkAxis(n, data.rank()))
    return e;
  if (indices.rank() != data.rank())
    return nodeError(n, "indices " + indices.str() +
                            " must have the rank of data " + data.str());
  if (n.is(OpKind::GatherElements))
    return TypeList{TensorType(data.dtype, indices.shape)};
  const TensorType &updates = inputType(n, 2);
  if (updates.shape != indices.shape || updates.dtype != data.dtype)
    return nodeError(n, "updates " + updates.str() +
                            " must have the shape of indices " +
                            indices.str() + " and the dtype of data");
  return TypeList{TensorType(data.dtype, data.shape)};
}

/// Combines an update into an element for ScatterElements/ScatterND.
void scatterInto(Tensor &out, int64_t at, const Tensor &updates, int64_t from,
                 llvm::StringRef reduction) {
  size_t elem = dtypeSize(out.getDType());
  if (reduction == "none") {
    std::memcpy(out.rawData() + at * elem, updates.rawData() + from * elem,
                elem);
    return;
  }
  bool add = reduction == "add", mul = reduction == "mul", max = reduction == "max";
  if (isFloatDType(out.getDType())) {
    double a = readFloat(out, at), u = readFloat(updates, from);
    // max and min propagate NaN, as numpy's maximum and minimum.
    double extreme = std::isnan(a) || std::isnan(u) ? std::nan("")
                     : max                          ? std::max(a, u)
                                                    : std::min(a, u);
    writeFloat(out, at, add ? a + u : mul ? a * u : extreme);
  } else {
    int64_t a = readInt(out, at), u = readInt(updates, from);
    // U64 compares unsigned; every other integer type fits int64.
    bool less = out.getDType() == DType::U64 ? uint64_t(a) < uint64_t(u) : a < u;
    int64_t extreme = max == less ? u : a;
    writeInt(out, at, add   ? int64_t(uint64_t(a) + uint64_t(u))
                      : mul ? int64_t(uint64_t(a) * uint64_t(u))
                            : extreme);
  }
}

llvm::Error evalElements(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1];
  Tensor &y = out[0];
  llvm::ArrayRef<int64_t> dataShape = data.getShape();
  int64_t axis = axisOf(n, dataShape.size());
  Shape dataStrides = rowMajorStrides(dataShape);
  bool gather = n.is(OpKind::GatherElements);
  size_t elem = dtypeSize(data.getDType());
  if (!gather)
    llvm::copy(data.raw(), y.rawData());
  StridedIndex it(indices.getShape(), {});
  for (int64_t i = 0, e = indices.numElements(); i < e; ++i, it.next()) {
    auto idx = resolveIndex(n, indices.getAsInt(i), dataShape[axis]);
    if (!idx)
      return idx.takeError();
    int64_t at = 0;
    for (size_t d = 0; d < dataShape.size(); ++d)
      at += (int64_t(d) == axis ? *idx : it.index()[d]) * dataStrides[d];
    if (gather)
      std::memcpy(y.rawData() + i * elem, data.rawData() + at * elem, elem);
    else
      scatterInto(y, at, *in[2], i, ScatterView(n).reduction());
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// GatherND, ScatterND
//===----------------------------------------------------------------------===//

/// GatherND's and ScatterND's view: indices [B..., M..., K] address slices
/// of data [B..., X (K dims)..., S...] of `sliceSize` elements.
struct NDView {
  int64_t batchDims, k, batches, perBatch, sliceSize;
};

llvm::Expected<NDView> ndView(const Node &n) {
  const TensorType &data = inputType(n, 0), &indices = inputType(n, 1);
  int64_t b = n.is(OpKind::GatherND) ? GatherNDView(n).batchDims() : 0;
  if (indices.rank() < 1 || b < 0 || b >= int64_t(indices.rank()) ||
      b >= int64_t(data.rank()))
    return nodeError(n, "batch_dims " + std::to_string(b) +
                            " does not fit indices " + indices.str() +
                            " and data " + data.str());
  int64_t k = indices.shape.back();
  if (k < 1 || b + k > int64_t(data.rank()))
    return nodeError(n, "index tuples of " + std::to_string(k) +
                            " elements do not fit data " + data.str());
  NDView v{b, k, 1, 1, 1};
  for (int64_t d = 0; d < b; ++d) {
    if (indices.shape[d] != data.shape[d])
      return nodeError(n, "batch dimensions of indices " + indices.str() +
                              " and data " + data.str() + " differ");
    v.batches *= data.shape[d];
  }
  for (size_t d = b; d + 1 < indices.rank(); ++d)
    v.perBatch *= indices.shape[d];
  for (size_t d = b + k; d < data.rank(); ++d)
    v.sliceSize *= data.shape[d];
  return v;
}

llvm::Expected<TypeList> inferND(const Node &n) {
  if (llvm::Error e = checkIndices(n, 1))
    return e;
  auto v = ndView(n);
  if (!v)
    return v.takeError();
  const TensorType &data = inputType(n, 0), &indices = inputType(n, 1);
  Shape gathered(indices.shape.begin(), indices.shape.end() - 1);
  gathered.append(data.shape.begin() + v->batchDims + v->k, data.shape.end());
  if (n.is(OpKind::GatherND))
    return TypeList{TensorType(data.dtype, gathered)};
  const TensorType &updates = inputType(n, 2);
  if (updates.shape != gathered || updates.dtype != data.dtype)
    return nodeError(n, "updates " + updates.str() + " must be " +
                            TensorType(data.dtype, gathered).str());
  return TypeList{TensorType(data.dtype, data.shape)};
}

llvm::Error evalND(const Node &n, llvm::ArrayRef<const Tensor *> in,
                   llvm::MutableArrayRef<Tensor> out) {
  const Tensor &data = *in[0], &indices = *in[1];
  Tensor &y = out[0];
  NDView v = *ndView(n);
  llvm::ArrayRef<int64_t> dataShape = data.getShape();
  Shape dataStrides = rowMajorStrides(dataShape);
  bool gather = n.is(OpKind::GatherND);
  size_t elem = dtypeSize(data.getDType());
  if (!gather)
    llvm::copy(data.raw(), y.rawData());
  int64_t batchStride = v.batchDims ? dataStrides[v.batchDims - 1] : 0;
  for (int64_t b = 0; b < v.batches; ++b)
    for (int64_t j = 0; j < v.perBatch; ++j) {
      int64_t tuple = (b * v.perBatch + j) * v.k, at = b * batchStride;
      for (int64_t q = 0; q < v.k; ++q) {
        int64_t d = v.batchDims + q;
        auto idx = resolveIndex(n, indices.getAsInt(tuple + q), dataShape[d]);
        if (!idx)
          return idx.takeError();
        at += *idx * dataStrides[d];
      }
      int64_t slice = (b * v.perBatch + j) * v.sliceSize;
      if (gather) {
        std::memcpy(y.rawData() + slice * elem, data.rawData() + at * elem,
                    v.sliceSize * elem);
        continue;
      }
      for (int64_t s = 0; s < v.sliceSize; ++s)
        scatterInto(y, at + s, *in[2], slice + s, ScatterView(n).reduction());
    }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// OneHot
//===----------------------------------------------------------------------===//

llvm::Expected<TypeList> inferOneHot(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32, DType::I32, DType::I64}))
    return e;
  const TensorType &indices = inputType(n, 0), &values = inputType(n, 1);
  if (values.numElements() != 2)
    return nodeError(n, "values must hold [off, on], got " + values.str());
  OneHotView oneHot(n);
  int64_t depth = oneHot.depth();
  if (depth < 1)
    return nodeError(n, "depth must be positive, got " + std::to_string(depth));
  std::optional<int64_t> axis =
      normalizeAxis(oneHot.axis(), indices.rank() + 1);
  if (!axis)
    return nodeError(n, llvm::formatv("axis {0} is out of range for {1}",
                                      oneHot.axis(), indices.str()));
  Shape out = indices.shape;
  out.insert(out.begin() + *axis, depth);
  return TypeList{TensorType(values.dtype, out)};
}

llvm::Error evalOneHot(const Node &n, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  const Tensor &indices = *in[0], &values = *in[1];
  Tensor &y = out[0];
  OneHotView oneHot(n);
  int64_t depth = oneHot.depth();
  int64_t axis = *normalizeAxis(oneHot.axis(), indices.getShape().size() + 1);
  // y viewed as [outer, depth, inner], indices as [outer, inner].
  AxisSplit split = splitAtAxis(y.getShape(), axis);
  int64_t outer = split.outer, inner = split.inner;
  size_t elem = dtypeSize(y.getDType());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < depth; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t idx = int64_t(readFloat(indices, o * inner + i));
        if (idx < 0)
          idx += depth;
        int64_t at = (o * depth + j) * inner + i;
        std::memcpy(y.rawData() + at * elem,
                    values.rawData() + (idx == j ? elem : 0), elem);
      }
  return llvm::Error::success();
}

AttrSpec reductionAttr() {
  return enumAttr("reduction", "none", {"none", "add", "mul", "max", "min"});
}

} // namespace

void registerIndexOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::GatherElements,
                  "GatherElements",
                  2,
                  2,
                  1,
                  1,
                  {{"axis", AttrKind::Int, Attr::ofInt(0)}},
                  inferElements,
                  evalElements});
  defs.back().kernel = KernelFamily::Gather;
  defs.push_back({OpKind::ScatterElements,
                  "ScatterElements",
                  3,
                  3,
                  1,
                  1,
                  {{"axis", AttrKind::Int, Attr::ofInt(0)}, reductionAttr()},
                  inferElements,
                  evalElements});
  defs.back().kernel = KernelFamily::Scatter;
  defs.push_back({OpKind::GatherND,
                  "GatherND",
                  2,
                  2,
                  1,
                  1,
                  {{"batch_dims", AttrKind::Int, Attr::ofInt(0)}},
                  inferND,
                  evalND});
  defs.back().kernel = KernelFamily::Gather;
  defs.push_back({OpKind::OneHot,
                  "OneHot",
                  2,
                  2,
                  1,
                  1,
                  {{"axis", AttrKind::Int, Attr::ofInt(-1)},
                   {"depth", AttrKind::Int, std::nullopt, /*required=*/true}},
                  inferOneHot,
                  evalOneHot});
  defs.push_back({OpKind::ScatterND,
                  "ScatterND",
                  3,
                  3,
                  1,
                  1,
                  {reductionAttr()},
                  inferND,
                  evalND});
  defs.back().kernel = KernelFamily::Scatter;
}

} // namespace kiln
