//===- FoldPadIntoConv.cpp - Zero Pad + Conv -> Conv with pads ------------===//
//
// Models exported from TensorFlow (and some from PyTorch) pad explicitly:
// a constant-zero Pad of the spatial dimensions, then an unpadded Conv. As
// the Conv's own pads the padding costs nothing extra: the kernel already
// makes its padded input copy, and the Pad's whole intermediate tensor (and
// its pass over memory) disappears. An int8 Pad (TFLite's) pads with the
// zero point, as an int8 Conv's padding does.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpViews.h"

#include "llvm/ADT/SmallVector.h"

namespace kiln {
namespace {

/// Whether `pad` fills with the real value 0: the value 0, or for a
/// quantized tensor its zero point (TFLite's PAD), which is what an int8
/// Conv's own padding reads (each padded tap's x - zeroPoint is 0).
bool padsWithZero(const PadView &pad) {
  const QuantParams &q = pad.input()->getType().quant;
  if (!q.isQuantized())
    return pad.value() == 0.0f;
  return q.zeroPoints.size() == 1 && pad.value() == float(q.zeroPoints[0]);
}

/// The Pad's spatial pads [h_begin, w_begin, h_end, w_end] when `pad` is a
/// constant-zero Pad (padsWithZero) of only the last two dimensions of a 4-D
/// tensor, with no cropping (negative pads), else empty.
llvm::SmallVector<int64_t, 4> spatialZeroPads(const Node &pad) {
  if (!PadView::accepts(pad))
    return {};
  PadView view(pad);
  if (view.mode() != "constant" || !padsWithZero(view) || view.input()->getType().rank() != 4)
    return {};
  llvm::ArrayRef<int64_t> p = view.pads();
  if (p.size() != 8 || p[0] || p[1] || p[4] || p[5] ||
      llvm::any_of(p, [](int64_t v) { return v < 0; }))
    return {};
  return {p[2], p[3], p[6], p[7]};
}

llvm::Expected<bool> foldPad(Graph &g, Node *conv) {
  ConvView view(*conv);
  Value *x = view.input();
  if (!x->isResult())
    return false;
  llvm::SmallVector<int64_t, 4> extra = spatialZeroPads(*x->getProducer());
  if (extra.empty() || x->getType().rank() != 4 || view.autoPad() != "NOTSET")
    return false;
  llvm::SmallVector<int64_t, 4> pads;
  for (size_t i = 0; i < 4; ++i)
    pads.push_back(view.pads(i) + extra[i]);
  llvm::SmallVector<Value *, 3> inputs(conv->getInputs().begin(),
                                       conv->getInputs().end());
  inputs[0] = PadView(*x->getProducer()).input();
  // The Pad stays for any other user; dce removes it otherwise.
  auto rebuilt = rebuildNode(g, conv, inputs, {{"pads", Attr::ofInts(pads)}});
  if (!rebuilt)
    return rebuilt.takeError();
  return true;
}

} // namespace

std::unique_ptr<Pass> createFoldPadIntoConvPass() {
  return std::make_unique<NodeRewritePass>("fold-pad-into-conv", OpKind::Conv, foldPad);
}

} // namespace kiln
