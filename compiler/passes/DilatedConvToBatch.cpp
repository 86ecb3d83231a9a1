//===- DilatedConvToBatch.cpp - A dilated 3x3 Conv over its sub-grids -----===//
//
// A 3x3 Conv of dilation d reads, for the outputs whose row and column are
// (a, b) modulo d, only the inputs of the same residues: it is d^2 undilated
// Convs over the padded input's sub-grids (space-to-batch). The direct
// kernel runs a dilated Conv at the FMA peak; undilated, the Conv takes
// Winograd's fewer products. Pad, split into a batch of sub-grids, the
// Conv without dilation or pads, and interleave back (and crop), where each
// sub-grid has at least kMinSubGridPixels outputs: a dilation of 2 on 28x28
// (14x14 sub-grids) and on 64x64 ran 1.6-2.3x faster so, a dilation of 6 on
// 64x64 (11x11) no faster, a dilation of 12 on 28x28 (3x3) 1.5x slower.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/passes/Passes.h"

#include "llvm/Support/MathExtras.h"

namespace kiln {
namespace {

constexpr int64_t kMinSubGridPixels = 14 * 14;
/// Winograd's own least input channels (lir/Winograd.cpp).
constexpr int64_t kMinChannels = 8;

llvm::Expected<bool> convOverSubGrids(Graph &g, Node *conv) {
  ConvView view(*conv);
  const TensorType &xt = view.input()->getType();
  const TensorType &wt = view.weights()->getType();
  if (xt.dtype != DType::F32 || xt.rank() != 4 || view.group() != 1 || wt.shape[2] != 3 ||
      wt.shape[3] != 3 || xt.shape[1] < kMinChannels)
    return false;
  auto geom = resolveConvGeometry(*conv, llvm::ArrayRef(xt.shape).drop_front(2),
                                  llvm::ArrayRef(wt.shape).drop_front(2));
  if (!geom) {
    llvm::consumeError(geom.takeError());
    return false;
  }
  const int64_t dh = geom->dilations[0], dw = geom->dilations[1];
  const int64_t oh = geom->outSizes[0], ow = geom->outSizes[1];
  if (geom->strides[0] != 1 || geom->strides[1] != 1 || (dh == 1 && dw == 1))
    return false;
  // Each sub-grid's outputs, and its inputs with the padding (two more
  // rows and columns for the window).
  const int64_t qh = llvm::divideCeil(oh, dh), qw = llvm::divideCeil(ow, dw);
  if (qh * qw < kMinSubGridPixels)
    return false;
  const int64_t n = xt.shape[0], c = xt.shape[1], h = xt.shape[2], w = xt.shape[3];
  const int64_t o = wt.shape[0], rows = qh + 2, cols = qw + 2;
  HelperNodeBuilder b(g, *conv);
  Value *x = b.add("padded", OpKind::Pad, {view.input()},
                   {{"mode", Attr::ofString("constant")},
                    {"pads", Attr::ofInts({0, 0, geom->padsBegin[0], geom->padsBegin[1], 0, 0,
                                           dh * rows - h - geom->padsBegin[0],
                                           dw * cols - w - geom->padsBegin[1]})},
                    {"value", Attr::ofFloat(0.0f)}});
  x = b.add("residues", OpKind::Reshape, {x}, reshapeAttrs({n, c, rows, dh, cols, dw}));
  x = b.add("sub_grids", OpKind::Transpose, {x}, {{"perm", Attr::ofInts({0, 3, 5, 1, 2, 4})}});
  x = b.add("batch", OpKind::Reshape, {x}, reshapeAttrs({n * dh * dw, c, rows, cols}));
  llvm::SmallVector<Value *, 3> inputs(conv->getInputs().begin(), conv->getInputs().end());
  inputs[0] = x;
  AttrMap attrs = conv->getAttrs();
  attrs["auto_pad"] = Attr::ofString("NOTSET");
  attrs["dilations"] = Attr::ofInts({1, 1});
  attrs["pads"] = Attr::ofInts({0, 0, 0, 0});
  Value *y = b.add("undilated", OpKind::Conv, inputs, std::move(attrs));
  y = b.add("grid_residues", OpKind::Reshape, {y}, reshapeAttrs({n, dh, dw, o, qh, qw}));
  y = b.add("interleave", OpKind::Transpose, {y}, {{"perm", Attr::ofInts({0, 3, 4, 1, 5, 2})}});
  y = b.add("grid", OpKind::Reshape, {y}, reshapeAttrs({n, o, qh * dh, qw * dw}));
  if (qh * dh != oh || qw * dw != ow)
    y = b.add("crop", OpKind::Slice, {y}, sliceAttrs({0, 0, 0, 0}, {n, o, oh, ow}));
  return b.replaceOrigin({y});
}

} // namespace

std::unique_ptr<Pass> createDilatedConvToBatchPass() {
  return std::make_unique<NodeRewritePass>("dilated-conv-to-batch", OpKind::Conv,
                                           convOverSubGrids);
}

} // namespace kiln
