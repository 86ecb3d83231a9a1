//===- Int8Conv.cpp - int8 Conv and MatMul (FULLY_CONNECTED) --------------===//
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/Int8Eval.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"

#include <algorithm>
#include <array>

namespace kiln {

llvm::SmallVector<tfl::QuantizedMultiplier, 16>
channelMultipliers(const QuantParams &x, const QuantParams &w,
                   const QuantParams &y, int64_t channels, bool fullyConnected) {
  llvm::SmallVector<tfl::QuantizedMultiplier, 16> m;
  for (int64_t c = 0; c < channels; ++c) {
    float ws = w.scales[w.isPerChannel() ? c : 0];
    m.push_back(fullyConnected && !w.isPerChannel()
                    ? tfl::fullyConnectedMultiplier(x.scales[0], ws, y.scales[0])
                    : tfl::convMultiplier(x.scales[0], ws, y.scales[0]));
  }
  return m;
}

namespace {

int8_t requantize(int32_t acc, tfl::QuantizedMultiplier m, int32_t outZp,
                  tfl::ActivationRange r) {
  int32_t v = tfl::multiplyByQuantizedMultiplier(acc, m) + outZp;
  return int8_t(std::clamp(v, r.min, r.max));
}

} // namespace

llvm::Expected<tfl::ActivationRange> int8ActivationRange(const Node &n,
                                                         const QuantParams &out) {
  const Activation &a = fusedActivation(n);
  tfl::FusedActivation f;
  llvm::ArrayRef<float> p = a.getParams();
  if (a.isNone())
    f = tfl::FusedActivation::None;
  else if (a.getKind() == ActivationKind::Relu)
    f = tfl::FusedActivation::Relu;
  else if (a.getKind() == ActivationKind::Clip && p[0] == 0 && p[1] == 6)
    f = tfl::FusedActivation::Relu6;
  else if (a.getKind() == ActivationKind::Clip && p[0] == -1 && p[1] == 1)
    f = tfl::FusedActivation::ReluN1To1;
  else
    return nodeError(n, "an int8 op fuses Relu, Relu6 or ReluN1To1, not " +
                            a.str());
  return tfl::quantizedActivationRange(f, out.scales[0], out.zeroPoints[0]);
}

/// `v` (one entry per spatial axis of a 1-, 2- or 3-D Conv) as three axes,
/// depth, height and width, `fill` for the axes the Conv lacks.
static std::array<int64_t, 3> asThreeAxes(llvm::ArrayRef<int64_t> v, int64_t fill) {
  std::array<int64_t, 3> a{fill, fill, fill};
  std::copy(v.begin(), v.end(), a.end() - v.size());
  return a;
}

llvm::Error evalConvInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0], &w = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  Tensor &y = out[0];
  const size_t rank = x.getShape().size();
  if (rank < 3 || rank > 5)
    return nodeError(n, "int8 Conv is 1-, 2- or 3-D (N x C x spatial axes), got " +
                            x.getType().str());
  auto range = int8ActivationRange(n, y.getType().quant);
  if (!range)
    return range.takeError();
  auto geom = resolveConvGeometry(n, x.getShape().drop_front(2),
                                  w.getShape().drop_front(2));
  if (!geom)
    return geom.takeError();
  // Every Conv as a 3-D one: an axis it lacks has size 1, no padding.
  const auto [D, H, W] = asThreeAxes(x.getShape().drop_front(2), 1);
  const auto [KD, KH, KW] = asThreeAxes(w.getShape().drop_front(2), 1);
  const auto [OD, OH, OW] = asThreeAxes(geom->outSizes, 1);
  const auto stride = asThreeAxes(geom->strides, 1);
  const auto dilation = asThreeAxes(geom->dilations, 1);
  const auto pad = asThreeAxes(geom->padsBegin, 0);
  const int64_t N = x.getShape()[0], C = x.getShape()[1];
  const int64_t O = w.getShape()[0], CG = w.getShape()[1];
  const int64_t outPerGroup = O / ConvView(n).group();
  const int32_t inOffset = -x.getType().quant.zeroPoints[0];
  const int32_t outZp = y.getType().quant.zeroPoints[0];
  auto mult = channelMultipliers(x.getType().quant, w.getType().quant,
                                 y.getType().quant, O, false);
  const int8_t *xs = x.data<int8_t>(), *ws = w.data<int8_t>();
  int8_t *ys = y.data<int8_t>();
  for (int64_t b = 0; b < N; ++b)
    for (int64_t o = 0; o < O; ++o) {
      int64_t c0 = (o / outPerGroup) * CG;
      for (int64_t od = 0; od < OD; ++od)
        for (int64_t oh = 0; oh < OH; ++oh)
          for (int64_t ow = 0; ow < OW; ++ow) {
            int32_t acc = 0;
            for (int64_t c = 0; c < CG; ++c)
              for (int64_t kd = 0; kd < KD; ++kd) {
                int64_t id = od * stride[0] - pad[0] + kd * dilation[0];
                if (id < 0 || id >= D)
                  continue;
                for (int64_t kh = 0; kh < KH; ++kh) {
                  int64_t ih = oh * stride[1] - pad[1] + kh * dilation[1];
                  if (ih < 0 || ih >= H)
                    continue;
                  for (int64_t kw = 0; kw < KW; ++kw) {
                    int64_t iw = ow * stride[2] - pad[2] + kw * dilation[2];
                    if (iw < 0 || iw >= W)
                      continue;
                    int32_t xv = xs[(((b * C + c0 + c) * D + id) * H + ih) * W + iw];
                    int32_t wv = ws[(((o * CG + c) * KD + kd) * KH + kh) * KW + kw];
                    acc += wv * (xv + inOffset);
                  }
                }
              }
            if (bias)
              acc += bias->data<int32_t>()[o];
            ys[(((b * O + o) * OD + od) * OH + oh) * OW + ow] =
                requantize(acc, mult[o], outZp, *range);
          }
    }
  return llvm::Error::success();
}

llvm::Error evalMatMulInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                           llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0], &w = *in[1];
  const Tensor *bias = in.size() > 2 ? in[2] : nullptr;
  Tensor &y = out[0];
  if (x.getShape().size() != 2 || w.getShape().size() != 2)
    return nodeError(n, "int8 MatMul is [M,K] x [K,N], got " +
                            x.getType().str() + " and " + w.getType().str());
  auto range = int8ActivationRange(n, y.getType().quant);
  if (!range)
    return range.takeError();
  const int64_t M = x.getShape()[0], K = x.getShape()[1], N = w.getShape()[1];
  const int32_t inOffset = -x.getType().quant.zeroPoints[0];
  const int32_t outZp = y.getType().quant.zeroPoints[0];
  auto mult = channelMultipliers(x.getType().quant, w.getType().quant,
                                 y.getType().quant, N, true);
  const int8_t *xs = x.data<int8_t>(), *ws = w.data<int8_t>();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t j = 0; j < N; ++j) {
      int32_t acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += int32_t(ws[k * N + j]) * (int32_t(xs[m * K + k]) + inOffset);
      if (bias)
        acc += bias->data<int32_t>()[j];
      y.data<int8_t>()[m * N + j] = requantize(acc, mult[j], outZp, *range);
    }
  return llvm::Error::success();
}

} // namespace kiln
