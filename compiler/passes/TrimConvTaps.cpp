//===- TrimConvTaps.cpp - Kernel taps that only ever read padding go ------===//
//
// A dilated Conv on a small image reads only padding with its outer taps:
// DeepLab's ASPP branches (3x3, dilation 24 and 36, on a 14x14 map) read an
// input element with the centre tap alone, for every output. Every product
// of the other taps is 0 * w, so a kernel without the rows and columns of
// such taps gives the same sums: there a 1x1 Conv, without the FLOPs and
// without the padded copy of the input.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/passes/Passes.h"

#include "llvm/ADT/SmallVector.h"

#include <cmath>

namespace kiln {
namespace {

/// The taps of spatial dimension `d` that read an input element for at
/// least one output, as [first, last]; none if every tap reads padding.
std::optional<std::pair<int64_t, int64_t>> liveTaps(const ConvGeometry &geom, size_t d) {
  std::optional<std::pair<int64_t, int64_t>> live;
  for (int64_t t = 0; t < geom.kernel[d]; ++t)
    for (int64_t o = 0; o < geom.outSizes[d]; ++o)
      if (tapReadsInput(o, t, geom.strides[d], geom.padsBegin[d], geom.dilations[d],
                        geom.inSizes[d])) {
        live = {live ? live->first : t, t};
        break;
      }
  return live;
}

llvm::Expected<bool> trimTaps(Graph &g, Node *conv) {
  ConvView view(*conv);
  const TensorType &xt = view.input()->getType();
  const Tensor *w = constantData(view.weights());
  if (!w || w->getDType() != DType::F32 || xt.rank() < 3)
    return false;
  llvm::ArrayRef<int64_t> wShape = w->getShape();
  auto geom = resolveConvGeometry(*conv, llvm::ArrayRef(xt.shape).drop_front(2),
                                  wShape.drop_front(2));
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return false;
  }
  const size_t R = geom->spatialRank();
  llvm::SmallVector<int64_t, 3> first(R), kernel(R);
  llvm::SmallVector<int64_t, 6> pads(2 * R);
  bool trimmed = false;
  for (size_t d = 0; d < R; ++d) {
    auto live = liveTaps(*geom, d);
    // No tap reads the input: the output is the bias, a case left as it is.
    if (!live)
      return false;
    first[d] = live->first;
    kernel[d] = live->second - live->first + 1;
    trimmed |= kernel[d] < geom->kernel[d];
    const int64_t s = geom->strides[d], dl = geom->dilations[d], in = geom->inSizes[d],
                  out = geom->outSizes[d];
    // The trimmed window starts at tap `first`; ONNX pads cannot crop.
    const int64_t begin = geom->padsBegin[d] - first[d] * dl;
    const int64_t lastRead = (out - 1) * s - begin + (kernel[d] - 1) * dl;
    const int64_t end = std::max<int64_t>(0, lastRead - (in - 1));
    if (begin < 0 || (in + begin + end - (kernel[d] - 1) * dl - 1) / s + 1 != out)
      return false;
    pads[d] = begin;
    pads[R + d] = end;
  }
  if (!trimmed)
    return false;

  llvm::SmallVector<int64_t, 5> shape(wShape.begin(), wShape.begin() + 2);
  shape.append(kernel.begin(), kernel.end());
  Tensor trimmedWeights(TensorType(w->getDType(), shape));
  // Both tensors' elements in order, each index as its digits.
  llvm::SmallVector<int64_t, 5> at(wShape.size(), 0);
  for (int64_t i = 0, n = w->numElements(), j = 0; i < n; ++i) {
    bool kept = true;
    for (size_t d = 0; d < R; ++d)
      kept &= at[2 + d] >= first[d] && at[2 + d] < first[d] + kernel[d];
    // 0 * inf is NaN: a dropped non-finite weight would change the sums.
    if (!kept && !std::isfinite(w->getAsDouble(i)))
      return false;
    if (kept)
      trimmedWeights.setFromDouble(j++, w->getAsDouble(i));
    for (size_t d = at.size(); d-- > 0 && ++at[d] == wShape[d];)
      at[d] = 0;
  }
  llvm::SmallVector<Value *, 3> inputs(conv->getInputs().begin(), conv->getInputs().end());
  inputs[1] = g.addConstant(conv->getName().str() + "/trimmed_weight", std::move(trimmedWeights));
  auto rebuilt = rebuildNode(g, conv, inputs,
                             {{"pads", Attr::ofInts(pads)},
                              {"kernel_shape", Attr::ofInts(kernel)},
                              {"auto_pad", Attr::ofString("NOTSET")}});
  if (!rebuilt)
    return rebuilt.takeError();
  return true;
}

} // namespace

std::unique_ptr<Pass> createTrimConvTapsPass() {
  return std::make_unique<NodeRewritePass>("trim-conv-taps", OpKind::Conv, trimTaps);
}

} // namespace kiln
