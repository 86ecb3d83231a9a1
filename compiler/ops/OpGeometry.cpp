//===- OpGeometry.cpp - Convolution and pooling windows -------------------===//

#include "compiler/ops/OpGeometry.h"
#include "compiler/graph/CheckedMath.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace kiln {

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

AttrSpec autoPadAttrSpec() {
  return enumAttr("auto_pad", "NOTSET", {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"});
}

/// Window attributes come from the model; bounding them keeps every
/// extent computed from them (d * (k - 1) + 1, s * (in - 1) + ...) far from
/// overflow. Pads may be negative (ConvTranspose's), not huge.
static llvm::Error checkWindowExtents(const Node &n,
                                      llvm::ArrayRef<int64_t> kernel,
                                      llvm::ArrayRef<int64_t> strides,
                                      llvm::ArrayRef<int64_t> dilations,
                                      llvm::ArrayRef<int64_t> pads) {
  constexpr int64_t kMaxWindowExtent = int64_t(1) << 24;
  for (llvm::ArrayRef<int64_t> positive : {kernel, strides, dilations})
    for (int64_t v : positive)
      if (v < 1 || v > kMaxWindowExtent)
        return nodeError(n, llvm::formatv("kernel sizes, strides and "
                                          "dilations must be in [1, {0}]",
                                          kMaxWindowExtent));
  for (int64_t p : pads)
    if (p < -kMaxWindowExtent || p > kMaxWindowExtent)
      return nodeError(n, llvm::formatv("pads must be within +-{0}",
                                        kMaxWindowExtent));
  return llvm::Error::success();
}

llvm::Expected<ConvGeometry>
resolveConvGeometry(const Node &n, llvm::ArrayRef<int64_t> inSizes,
                    llvm::ArrayRef<int64_t> kernel) {
  size_t rank = inSizes.size();
  ConvGeometry g;
  g.inSizes.assign(inSizes.begin(), inSizes.end());
  g.kernel.assign(kernel.begin(), kernel.end());
  if (kernel.size() != rank)
    return nodeError(n, llvm::formatv("kernel has {0} dimensions, input has {1} "
                                      "spatial dimensions",
                                      kernel.size(), rank));
  WindowView window(n);
  Shape ones(rank, 1), zeros(2 * rank, 0);
  g.strides = intsOr(window.stridesIfGiven(), ones);
  g.dilations = intsOr(window.dilationsIfGiven(), ones);
  Shape pads = intsOr(window.padsIfGiven(), zeros);
  if (g.strides.size() != rank || g.dilations.size() != rank ||
      pads.size() != 2 * rank)
    return nodeError(
        n, llvm::formatv("strides, dilations and pads must have {0}, {0} and "
                         "{1} entries for {0} spatial dimensions",
                         rank, 2 * rank));
  if (auto err = checkWindowExtents(n, kernel, g.strides, g.dilations, pads))
    return std::move(err);
  for (size_t i = 0; i < rank; ++i)
    if (pads[i] < 0 || pads[rank + i] < 0)
      return nodeError(n, "pads must not be negative");
  llvm::StringRef autoPad = window.autoPad();
  bool ceilMode = PoolView::accepts(n) && PoolView(n).ceilMode() != 0;
  g.padsBegin.resize(rank);
  g.padsEnd.resize(rank);
  g.outSizes.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = inSizes[i], s = g.strides[i], k = g.effectiveKernel(i);
    if (autoPad == "NOTSET") {
      g.padsBegin[i] = pads[i];
      g.padsEnd[i] = pads[rank + i];
      int64_t span = in + g.padsBegin[i] + g.padsEnd[i] - k;
      if (span < 0)
        return nodeError(
            n, llvm::formatv("kernel extent {0} exceeds padded input size {1} "
                             "in spatial dimension {2}",
                             k, span + k, i));
      int64_t out = (ceilMode ? ceilDiv(span, s) : span / s) + 1;
      // A ceil_mode window that would start in the trailing pad is dropped.
      if (ceilMode && (out - 1) * s >= in + g.padsBegin[i])
        --out;
      g.outSizes[i] = out;
    } else if (autoPad == "VALID") {
      if (in < k)
        return nodeError(
            n, llvm::formatv("kernel extent {0} exceeds input size {1} in "
                             "spatial dimension {2}",
                             k, in, i));
      g.padsBegin[i] = g.padsEnd[i] = 0;
      g.outSizes[i] = (in - k) / s + 1;
    } else { // SAME_UPPER or SAME_LOWER (autoPadAttrSpec)
      int64_t out = ceilDiv(in, s);
      int64_t total = std::max<int64_t>(0, (out - 1) * s + k - in);
      // The odd pad goes at the end for SAME_UPPER, at the start for LOWER.
      int64_t small = total / 2;
      g.padsBegin[i] = autoPad == "SAME_UPPER" ? small : total - small;
      g.padsEnd[i] = total - g.padsBegin[i];
      g.outSizes[i] = out;
    }
  }
  return g;
}

llvm::Expected<ConvGeometry>
resolveConvTransposeGeometry(const Node &n, llvm::ArrayRef<int64_t> inSizes,
                             llvm::ArrayRef<int64_t> kernel) {
  size_t rank = inSizes.size();
  ConvGeometry g;
  g.inSizes.assign(inSizes.begin(), inSizes.end());
  g.kernel.assign(kernel.begin(), kernel.end());
  ConvTransposeView convTranspose(n);
  Shape ones(rank, 1), zeros(rank, 0), zeros2(2 * rank, 0);
  g.strides = intsOr(convTranspose.stridesIfGiven(), ones);
  g.dilations = intsOr(convTranspose.dilationsIfGiven(), ones);
  Shape pads = intsOr(convTranspose.padsIfGiven(), zeros2);
  Shape outputPadding = intsOr(convTranspose.outputPaddingIfGiven(), zeros);
  Shape outputShape = intsOr(convTranspose.outputShape(), {});
  if (kernel.size() != rank || g.strides.size() != rank ||
      g.dilations.size() != rank || pads.size() != 2 * rank ||
      outputPadding.size() != rank ||
      (!outputShape.empty() && outputShape.size() != rank))
    return nodeError(n, llvm::formatv("kernel, strides, dilations, pads, "
                                      "output_padding and output_shape must "
                                      "fit {0} spatial dimensions",
                                      rank));
  llvm::StringRef autoPad = convTranspose.autoPad();
  g.padsBegin.resize(rank);
  g.padsEnd.resize(rank);
  g.outSizes.resize(rank);
  if (auto err = checkWindowExtents(n, kernel, g.strides, g.dilations, pads))
    return std::move(err);
  if (auto err = checkWindowExtents(n, {}, {}, {}, outputPadding))
    return std::move(err);
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = inSizes[i], s = g.strides[i], k = g.effectiveKernel(i);
    int64_t full = s * (in - 1) + outputPadding[i] + k;
    if (!outputShape.empty() || autoPad.starts_with("SAME")) {
      int64_t target = outputShape.empty() ? in * s : outputShape[i];
      int64_t total = full - target;
      // Python's floor division, as ONNX's formula means it.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      g.padsBegin[i] = autoPad == "SAME_UPPER" ? half : total - half;
      g.padsEnd[i] = total - g.padsBegin[i];
    } else if (autoPad == "NOTSET") {
      g.padsBegin[i] = pads[i];
      g.padsEnd[i] = pads[rank + i];
    }
    g.outSizes[i] = full - g.padsBegin[i] - g.padsEnd[i];
    if (g.outSizes[i] < 1)
      return nodeError(n, llvm::formatv("output size {0} in spatial dimension "
                                        "{1} is not positive",
                                        g.outSizes[i], i));
  }
  return g;
}

Window3 toWindow3(const ConvGeometry &g) {
  size_t rank = g.spatialRank();
  assert(rank >= 1 && rank <= 3 && "window rank must be 1..3");
  Window3 w;
  for (size_t j = 0; j < 3; ++j) {
    if (j + rank < 3) {
      w.in[j] = w.out[j] = w.k[j] = w.s[j] = w.d[j] = 1;
      w.pb[j] = w.pe[j] = 0;
      continue;
    }
    size_t i = j + rank - 3;
    w.in[j] = g.inSizes[i];
    w.out[j] = g.outSizes[i];
    w.k[j] = g.kernel[i];
    w.s[j] = g.strides[i];
    w.d[j] = g.dilations[i];
    w.pb[j] = g.padsBegin[i];
    w.pe[j] = g.padsEnd[i];
  }
  return w;
}

std::optional<MatMulDims> matMulDims(llvm::ArrayRef<int64_t> a,
                                     llvm::ArrayRef<int64_t> b) {
  MatMulDims d;
  Shape a2(a.begin(), a.end()), b2(b.begin(), b.end());
  if (a.size() == 1)
    a2.insert(a2.begin(), 1);
  if (b.size() == 1)
    b2.push_back(1);
  d.m = a2[a2.size() - 2];
  d.k = a2.back();
  d.n = b2.back();
  if (b2[b2.size() - 2] != d.k)
    return std::nullopt;
  d.aBatch.assign(a2.begin(), a2.end() - 2);
  d.bBatch.assign(b2.begin(), b2.end() - 2);
  std::optional<Shape> batch = broadcastShapes(d.aBatch, d.bBatch);
  if (!batch)
    return std::nullopt;
  d.batch = *batch;
  d.outShape = d.batch;
  if (a.size() > 1)
    d.outShape.push_back(d.m);
  if (b.size() > 1)
    d.outShape.push_back(d.n);
  return d;
}

int64_t matMulGemmRows(const MatMulDims &d) {
  auto count = [](const Shape &s) { return TensorType(DType::F32, s).numElements(); };
  return count(d.bBatch) == 1 ? count(d.batch) * d.m : d.m;
}


} // namespace kiln
