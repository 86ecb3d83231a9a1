//===- Int8Pool.cpp - int8 AveragePool, ReduceMean and Softmax ------------===//
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/QuantizedActivations.h"
#include "compiler/ops/QuantizedTypes.h"

#include <algorithm>

namespace kiln {

llvm::Error evalAveragePoolInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                                llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  if (x.getShape().size() != 4)
    return nodeError(n, "int8 AveragePool is 2-D (N x C x H x W), got " +
                            x.getType().str());
  auto geom = resolveConvGeometry(n, x.getShape().drop_front(2),
                                  PoolView(n).kernelShape());
  if (!geom)
    return geom.takeError();
  const int64_t NC = x.getShape()[0] * x.getShape()[1], H = x.getShape()[2],
                W = x.getShape()[3], OH = geom->outSizes[0],
                OW = geom->outSizes[1];
  const int8_t *xs = x.data<int8_t>();
  int8_t *ys = y.data<int8_t>();
  for (int64_t p = 0; p < NC; ++p)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h0 = oh * geom->strides[0] - geom->padsBegin[0];
        int64_t w0 = ow * geom->strides[1] - geom->padsBegin[1];
        int64_t h1 = std::min(h0 + geom->kernel[0], H), w1 = std::min(w0 + geom->kernel[1], W);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        int32_t sum = 0, count = int32_t((h1 - h0) * (w1 - w0));
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w)
            sum += xs[(p * H + h) * W + w];
        int32_t v = count > 0 ? tfl::averagePoolRound(sum, count) : 0;
        ys[(p * OH + oh) * OW + ow] = int8_t(std::clamp(v, -128, 127));
      }
  return llvm::Error::success();
}

llvm::Error evalMeanInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  llvm::ArrayRef<int64_t> shape = x.getShape();
  llvm::SmallVector<bool, 6> reduced(shape.size(), false);
  std::optional<llvm::ArrayRef<int64_t>> axes = ReduceView(n).axes();
  if (!axes || axes->empty())
    reduced.assign(shape.size(), true);
  else
    for (int64_t a : *axes)
      reduced[normalizeAxis(a, shape.size()).value()] = true;
  // Output strides over the input's index space (0 along reduced axes).
  Shape outStrides(shape.size(), 0);
  int64_t stride = 1, count = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (reduced[d]) {
      count *= shape[d];
      continue;
    }
    outStrides[d] = stride;
    stride *= shape[d];
  }
  const QuantParams &qx = x.getType().quant, &qy = y.getType().quant;
  tfl::MeanParams p = tfl::prepareMeanInt8(qx.scales[0], qx.zeroPoints[0],
                                           qy.scales[0], qy.zeroPoints[0], count);
  std::vector<int64_t> sums(y.numElements(), 0);
  StridedIndex idx(shape, {outStrides});
  const int8_t *xs = x.data<int8_t>();
  for (int64_t i = 0, e = x.numElements(); i < e; ++i, idx.next())
    sums[idx.offset(0)] += xs[i];
  for (size_t i = 0; i < sums.size(); ++i)
    y.data<int8_t>()[i] = tfl::meanInt8(p, sums[i]);
  return llvm::Error::success();
}

llvm::Error evalSoftmaxInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                            llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  float beta = SoftmaxView(n).beta().value_or(1.0f);
  tfl::SoftmaxParams p =
      tfl::prepareSoftmaxInt8(beta, x.getType().quant.scales[0]);
  int64_t depth = x.getShape().empty() ? 1 : x.getShape().back();
  for (int64_t row = 0, e = depth ? x.numElements() / depth : 0; row < e; ++row)
    tfl::softmaxInt8(p, x.data<int8_t>() + row * depth,
                     y.data<int8_t>() + row * depth, depth);
  return llvm::Error::success();
}

} // namespace kiln
