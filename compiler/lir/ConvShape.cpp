//===- ConvShape.cpp - A 2-D convolution, as its kernels walk it ----------===//

#include "compiler/lir/ConvShape.h"
#include "compiler/ops/OpViews.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <numeric>

namespace kiln {
namespace lir {

ConvShape ConvShape::of(const Node &conv) {
  ConvView v(conv);
  const TensorType &xt = v.input()->getType();
  const TensorType &wt = v.weights()->getType();
  const TensorType &yt = conv.getOutput()->getType();
  ConvShape s;
  s.N = xt.shape[0], s.C = xt.shape[1], s.H = xt.shape[2], s.W = xt.shape[3];
  s.OC = yt.shape[1], s.OH = yt.shape[2], s.OW = yt.shape[3];
  s.KH = wt.shape[2], s.KW = wt.shape[3];
  s.G = v.group();
  s.ICg = s.C / s.G, s.OCg = s.OC / s.G;
  s.sh = v.strides(0), s.sw = v.strides(1);
  s.dh = v.dilations(0), s.dw = v.dilations(1);
  s.pt = v.pads(0), s.pl = v.pads(1);
  s.pb = v.pads(2), s.pr = v.pads(3);
  return s;
}

ConvRows convRows(const ConvShape &s, const PaddedInput *layout, const KernelStrategy &strategy) {
  using Kind = KernelStrategy::Kind;
  ConvRows r;
  r.rowStride = layout ? layout->rowStride() : s.W;
  r.pixelStep = layout ? 1 : s.sw;
  r.panels = (strategy.is(Kind::Pointwise) || strategy.is(Kind::Direct)) && strategy.tile;
  // In place, a padded Conv's rows end where its padding starts.
  const bool padded = s.pt || s.pl || s.pb || s.pr;
  bool flat = r.panels || (s.sh * r.rowStride == s.OW && r.pixelStep == 1 && (layout || !padded));
  r.rowLen = flat ? s.OH * s.OW : s.OW;
  r.numRows = flat ? 1 : s.OH;
  return r;
}

bool flatPlaneFits(const ConvShape &s) {
  return s.G == s.C && s.OC == s.C && s.sh == 1 && s.sw == 1 && s.OW == s.W;
}

FlatPlane flatPlane(const ConvShape &s, int64_t lanes) {
  auto roundUp = [&](int64_t a) { return (a + lanes - 1) / lanes * lanes; };
  FlatPlane p;
  p.vectors = (s.OH * s.OW + lanes - 1) / lanes;
  p.period = s.W / std::gcd(s.W, lanes);
  // A column's sums at output lane l come from vector floor((l + shift) /
  // lanes) and the next.
  p.sumsBefore = -std::min<int64_t>(0, llvm::divideFloorSigned(-s.pl, lanes));
  p.sumsAfter = llvm::divideFloorSigned((s.KW - 1) * s.dw - s.pl, lanes) + 1;
  p.front = roundUp(s.pt * s.W) + p.sumsBefore * lanes;
  // The last column sums' rows reach below the plane, each a window of two
  // aligned vectors.
  int64_t below = std::max<int64_t>(0, ((s.KH - 1) * s.dh - s.pt) * s.W);
  int64_t reach = p.front + (p.vectors + p.sumsAfter + 1) * lanes + below;
  p.floats = roundUp(std::max(reach, p.front + s.H * s.W));
  return p;
}

} // namespace lir
} // namespace kiln
