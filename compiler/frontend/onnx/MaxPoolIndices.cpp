//===- MaxPoolIndices.cpp - MaxPool's Indices output as an ArgMax ---------===//
//
// MaxPool's optional second result holds, for each output, the flat index
// into X (N x C x spatial, padding not counted) of the value it took. kiln
// computes it from ops it has: every window tap is a strided Slice of X
// padded with -inf, the taps stack along a new axis, ArgMax picks the tap
// (the first of equal maxima, as the scan in window order does), and
// constant tables turn (output position, tap) into the input coordinate and
// the flat index, in row-major order (storage_order 0) or with the spatial
// axes reversed (storage_order 1, column-major). MaxUnpool takes these
// indices back.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include <limits>

namespace kiln {
namespace {

Tensor i64Tensor(llvm::ArrayRef<int64_t> shape) {
  return Tensor(TensorType(DType::I64, shape));
}

} // namespace

llvm::Expected<ValueList> emitMaxPoolWithIndices(NodeEmitter &e,
                                                 PendingNode &n) {
  auto storageOrder = intAttr(n, "storage_order", 0);
  if (!storageOrder)
    return storageOrder.takeError();
  PendingNode valuesOnly = n;
  valuesOnly.outputs.resize(1);
  auto pooled = e.emit(valuesOnly);
  if (!pooled)
    return pooled.takeError();
  Value *y = (*pooled)[0];
  Node *pool = y->getProducer();
  Value *x = n.inputs[0];
  const TensorType &xt = x->getType();
  if (!pool || xt.dtype != DType::F32)
    return n.error("the Indices output needs an f32 input computed at run "
                   "time");
  Shape spatial(llvm::ArrayRef(xt.shape).drop_front(2));
  auto geom =
      resolveConvGeometry(*pool, spatial, PoolView(*pool).kernelShape());
  if (!geom)
    return geom.takeError();
  size_t rank = spatial.size();
  int64_t batch = xt.shape[0], channels = xt.shape[1];

  Formula f(e, n);
  // Pad with -inf, plus whatever end a ceil_mode window reaches beyond.
  Shape pads(2 * (rank + 2), 0);
  for (size_t i = 0; i < rank; ++i) {
    int64_t reach =
        (geom->outSizes[i] - 1) * geom->strides[i] + geom->effectiveKernel(i);
    pads[2 + i] = geom->padsBegin[i];
    pads[rank + 4 + i] =
        std::max(geom->padsEnd[i], reach - spatial[i] - geom->padsBegin[i]);
  }
  Value *padded = f.add(
      "indices_padded", OpKind::Pad, {x},
      {{"mode", Attr::ofString("constant")},
       {"pads", Attr::ofInts(pads)},
       {"value", Attr::ofFloat(-std::numeric_limits<float>::infinity())}});
  // One strided slice per tap, stacked on a new leading axis.
  Shape tapCounts(geom->kernel);
  int64_t taps = 1;
  for (int64_t k : tapCounts)
    taps *= k;
  Shape outShape = y->getType().shape, stackedTap{1};
  stackedTap.append(outShape.begin(), outShape.end());
  llvm::SmallVector<Value *, 16> windows;
  // Per tap and spatial axis, the tap's offset from the window start.
  std::vector<Shape> tapOffset(rank, Shape(taps));
  for (int64_t t = 0; t < taps; ++t) {
    Shape starts(rank + 2, 0), ends(outShape), steps(rank + 2, 1), axes;
    for (size_t a = 0; a < rank + 2; ++a)
      axes.push_back(a);
    for (int64_t rest = t, i = rank - 1; i >= 0; --i) {
      int64_t k = rest % geom->kernel[i];
      rest /= geom->kernel[i];
      tapOffset[i][t] = k * geom->dilations[i];
      starts[2 + i] = tapOffset[i][t];
      steps[2 + i] = geom->strides[i];
      ends[2 + i] = starts[2 + i] + (outShape[2 + i] - 1) * steps[2 + i] + 1;
    }
    Value *slice = f.add("indices_tap", OpKind::Slice, {padded},
                         {{"starts", Attr::ofInts(starts)},
                          {"ends", Attr::ofInts(ends)},
                          {"axes", Attr::ofInts(axes)},
                          {"steps", Attr::ofInts(steps)}});
    windows.push_back(f.add("indices_tap_row", OpKind::Reshape, {slice},
                            {{"shape", Attr::ofInts(stackedTap)}}));
  }
  Value *stacked = windows.size() == 1
                       ? windows[0]
                       : f.add("indices_taps", OpKind::Concat, windows,
                               {{"axis", Attr::ofInt(0)}});
  Value *tap = f.add("indices_argmax", OpKind::ArgMax, {stacked},
                     {{"axis", Attr::ofInt(0)},
                      {"keepdims", Attr::ofInt(0)},
                      {"select_last_index", Attr::ofInt(0)}});

  // flat = plane * plane_size + sum_i coord_i * stride_i, with coord_i =
  // out_i * s_i - pad_i + tap_offset_i. Row-major strides by default;
  // storage_order 1 reverses the spatial axes' strides.
  Shape axisStride(rank, 1);
  int64_t planeSize = 1;
  for (size_t j = 0; j < rank; ++j) {
    size_t i = *storageOrder ? j : rank - 1 - j;
    axisStride[i] = planeSize;
    planeSize *= spatial[i];
  }
  Tensor planes = i64Tensor({batch, channels});
  for (int64_t p = 0; p < batch * channels; ++p)
    planes.data<int64_t>()[p] = p * planeSize;
  Shape planeShape{batch, channels};
  planeShape.append(rank, 1);
  Value *flat = f.constant("indices_planes", planes.reshaped(planeShape));
  for (size_t i = 0; i < rank; ++i) {
    Tensor offsets = i64Tensor({taps});
    for (int64_t t = 0; t < taps; ++t)
      offsets.data<int64_t>()[t] = tapOffset[i][t] * axisStride[i];
    Value *tapPart =
        f.add("indices_tap_offset", OpKind::Gather,
              {f.constant("indices_offsets", std::move(offsets)), tap},
              {{"axis", Attr::ofInt(0)}});
    Shape baseShape(rank + 2, 1);
    baseShape[2 + i] = outShape[2 + i];
    Tensor base = i64Tensor(baseShape);
    for (int64_t o = 0; o < outShape[2 + i]; ++o)
      base.data<int64_t>()[o] =
          (o * geom->strides[i] - geom->padsBegin[i]) * axisStride[i];
    flat = f.add(
        "indices_sum", OpKind::Add,
        {flat, f.add("indices_axis", OpKind::Add,
                     {f.constant("indices_base", std::move(base)), tapPart})});
  }
  Value *indices = f.add("indices", OpKind::Identity, {flat}, {}, n.getOutputName(1));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y, indices};
}

} // namespace kiln
