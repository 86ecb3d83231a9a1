//===- LowerConvTranspose.cpp - ConvTranspose -> sub-pixel Conv -----------===//
//
// A transposed convolution of stride s is s^2 ordinary convolutions, one
// per output phase, interleaved (sub-pixel decomposition). Per spatial
// dimension, with q = o + pad = s*m + r, output o receives the taps
// k = r + s*t (t = 0..T-1, T = ceil(K/s)) from inputs i = m - t:
//
//   y[s*m + r - pad] = sum_t x[m - t] * w[r + s*t]
//
// which is a correlation of x with the reversed taps of phase r, padded by
// T-1. All phases read the same input window, so they are one Conv whose
// output channels are (channel, phase) pairs, with the phases' kernels
// zero-filled to T taps; a Reshape, Transpose and Reshape interleave the
// phases into the output grid and a Slice crops it. The Conv then runs on
// the convolution kernels (register-tiled GEMM; a 2x2 stride-2 kernel
// becomes a 1x1 Conv) instead of the scattering ConvTranspose kernel,
// which stays for what this does not cover: run-time weights and pads that
// reach beyond a kernel.
//
// A 1-D ConvTranspose is the 2-D one of height 1. A 3-D one decomposes its
// depth axis the same way into a 2-D ConvTranspose: the padded input's
// depth windows of T taps as channels (c, j) and their positions m as
// batch rows, the depth phases r as output channels (o, r), interleaved
// back into depths s * m + r and cropped.
//
// A dilated kernel (dilation d) spans d * (K - 1) + 1 positions. Along an
// axis of stride 1 the Conv keeps the dilation and the K reversed taps;
// along a strided axis the phases take their taps from the span, zero
// between the kernel's taps.
//
// The one Conv computes every phase over the same window and grid, so a
// phase with fewer taps than T (a 3x3 kernel of stride 2: 2x2, 2x1, 1x2 and
// 1x1 taps, 16 computed for 9) and the grid's row and column beyond the
// output (a 4x4 kernel of stride 2, pad 1) cost products of zeros. Where
// each phase's own Conv does less (an undilated kernel, an output a
// multiple of the stride), the phases are separate Convs, each with its own
// taps, pads and exact grid, concatenated and interleaved.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/graph/Rewrite.h"
#include "compiler/ops/OpViews.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <optional>

namespace kiln {

namespace {

/// The decomposition along one spatial dimension.
struct SubPixelAxis {
  int64_t stride, taps;
  /// The Conv's dilation; the ConvTranspose's kernel size and dilation.
  int64_t dilation, kernel, kernelDilation;
  /// The Conv's pads and the Slice's start in the interleaved grid.
  int64_t padBegin, padEnd, cropStart;

  /// Positions the Conv's window spans.
  int64_t extent() const { return dilation * (taps - 1) + 1; }
  /// The ConvTranspose tap that phase `r`'s Conv tap `j` holds, or -1 for a
  /// zero (a strided axis's span between a dilated kernel's taps).
  int64_t sourceTap(int64_t r, int64_t j) const {
    if (stride == 1)
      return taps - 1 - j;
    int64_t at = r + stride * (taps - 1 - j);
    int64_t span = kernelDilation * (kernel - 1) + 1;
    return at < span && at % kernelDilation == 0 ? at / kernelDilation : -1;
  }
};

/// The decomposition of a dimension of input size `in`, kernel `k` of
/// dilation `d`, stride `s`, begin pad `pad` and output size `out`, or
/// nothing when its Conv would need negative pads.
std::optional<SubPixelAxis> subPixelAxis(int64_t in, int64_t k, int64_t d, int64_t s,
                                         int64_t pad, int64_t out) {
  int64_t span = d * (k - 1) + 1;
  SubPixelAxis a{s, s == 1 ? k : (span + s - 1) / s, s == 1 ? d : 1, k, d, 0, 0, 0};
  // The phase-grid rows m the output needs: [mLo, mHi).
  int64_t mLo = llvm::divideFloorSigned(pad, s),
          mHi = llvm::divideFloorSigned(pad + out + s - 1, s);
  a.padBegin = a.extent() - 1 - mLo;
  a.padEnd = mHi - in;
  a.cropStart = pad - s * mLo;
  if (a.padBegin < 0 || a.padEnd < 0)
    return std::nullopt;
  return a;
}

/// The Conv weights: [group * perGroupOut * s0 * s1, perGroupIn, T0, T1],
/// output channel (c, r0, r1) holding phase (r0, r1)'s reversed taps of
/// ConvTranspose filter c.
Tensor subPixelWeights(const Tensor &w, int64_t group, const SubPixelAxis &a0,
                       const SubPixelAxis &a1) {
  llvm::ArrayRef<int64_t> ws = w.getShape(); // [Cin, Cout/group, K0, K1]
  int64_t perGroupIn = ws[0] / group, perGroupOut = ws[1], k0 = ws[2], k1 = ws[3];
  int64_t s0 = a0.stride, s1 = a1.stride, t0 = a0.taps, t1 = a1.taps;
  Tensor v(TensorType(DType::F32, {group * perGroupOut * s0 * s1, perGroupIn, t0, t1}));
  const float *src = w.data<float>();
  float *dst = v.data<float>();
  for (int64_t oc = 0; oc < v.getShape()[0]; ++oc) {
    int64_t r1 = oc % s1, r0 = oc / s1 % s0, c = oc / (s0 * s1);
    int64_t grp = c / perGroupOut, j = c % perGroupOut;
    for (int64_t ci = 0; ci < perGroupIn; ++ci)
      for (int64_t j0 = 0; j0 < t0; ++j0)
        for (int64_t j1 = 0; j1 < t1; ++j1) {
          int64_t kk0 = a0.sourceTap(r0, j0), kk1 = a1.sourceTap(r1, j1);
          if (kk0 < 0 || kk1 < 0)
            continue;
          int64_t cin = grp * perGroupIn + ci;
          dst[((oc * perGroupIn + ci) * t0 + j0) * t1 + j1] =
              src[((cin * perGroupOut + j) * k0 + kk0) * k1 + kk1];
        }
  }
  return v;
}

/// Each filter's bias repeated for its s0 * s1 phases.
Tensor subPixelBias(const Tensor &b, int64_t phases) {
  Tensor v(TensorType(DType::F32, {b.numElements() * phases}));
  for (int64_t i = 0; i < v.numElements(); ++i)
    v.data<float>()[i] = b.data<float>()[i / phases];
  return v;
}

/// Phase r's own correlation along one undilated axis: output m of the
/// phase (output s * m + r of the ConvTranspose) is sum_j x[m - padBegin +
/// j] * w[tap(j)], j < taps.
struct PhaseAxis {
  int64_t stride, pad, taps, padBegin, padEnd, r;
  /// The ConvTranspose tap that Conv tap `j` holds.
  int64_t tap(int64_t j) const { return r + pad - stride * (j - padBegin); }
};

/// Phase r's axis of a dimension of input size `in`, kernel `k`, stride
/// `s`, begin pad `pad` and output size `out` (a multiple of s), or nothing
/// when the phase has no taps or its Conv would need negative pads.
std::optional<PhaseAxis> phaseAxis(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t out,
                                   int64_t r) {
  // Taps k = r + pad - s e for the input offsets e, consecutive from eMin.
  llvm::SmallVector<int64_t, 8> offsets;
  for (int64_t kk = 0; kk < k; ++kk)
    if ((r + pad - kk) % s == 0)
      offsets.push_back((r + pad - kk) / s);
  if (offsets.empty())
    return std::nullopt;
  int64_t eMin = *llvm::min_element(offsets), eMax = *llvm::max_element(offsets);
  PhaseAxis a{s, pad, eMax - eMin + 1, -eMin, out / s + eMax - in, r};
  if (a.padBegin < 0 || a.padEnd < 0)
    return std::nullopt;
  return a;
}

/// The weights of phase (a0.r, a1.r)'s Conv: [group * perGroupOut,
/// perGroupIn, a0.taps, a1.taps].
Tensor phaseWeights(const Tensor &w, int64_t group, const PhaseAxis &a0, const PhaseAxis &a1) {
  llvm::ArrayRef<int64_t> ws = w.getShape(); // [Cin, Cout/group, K0, K1]
  int64_t perGroupIn = ws[0] / group, perGroupOut = ws[1], k0 = ws[2], k1 = ws[3];
  Tensor v(TensorType(DType::F32, {group * perGroupOut, perGroupIn, a0.taps, a1.taps}));
  const float *src = w.data<float>();
  float *dst = v.data<float>();
  for (int64_t oc = 0; oc < group * perGroupOut; ++oc)
    for (int64_t ci = 0; ci < perGroupIn; ++ci)
      for (int64_t j0 = 0; j0 < a0.taps; ++j0)
        for (int64_t j1 = 0; j1 < a1.taps; ++j1) {
          int64_t cin = oc / perGroupOut * perGroupIn + ci;
          dst[((oc * perGroupIn + ci) * a0.taps + j0) * a1.taps + j1] =
              src[((cin * perGroupOut + oc % perGroupOut) * k0 + a0.tap(j0)) * k1 + a1.tap(j1)];
        }
  return v;
}

/// Separate phase Convs need this many filters to fill a register tile of
/// output channels; with fewer (FSRCNN's one) the one Conv's phases as
/// channels ran 2.5x faster than nine one-channel Convs.
constexpr int64_t kMinPhaseFilters = 8;

/// The phases of an undilated 2-D ConvTranspose as one Conv each, where
/// their products are at most 0.9 of the one Conv's (`sharedProducts` per
/// output channel and input channel); nothing otherwise.
std::optional<llvm::SmallVector<std::pair<PhaseAxis, PhaseAxis>, 4>>
phaseConvs(const TensorType &xt, const TensorType &yt, const Tensor &w,
           llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> pads,
           llvm::ArrayRef<int64_t> dilations, int64_t sharedProducts) {
  if (dilations[0] != 1 || dilations[1] != 1 || yt.shape[2] % strides[0] ||
      yt.shape[3] % strides[1] || yt.shape[1] < kMinPhaseFilters)
    return std::nullopt;
  // Each axis's phases, then every pair of them.
  std::array<llvm::SmallVector<PhaseAxis, 4>, 2> axes;
  for (size_t d = 0; d < 2; ++d)
    for (int64_t r = 0; r < strides[d]; ++r) {
      auto a = phaseAxis(xt.shape[2 + d], w.getShape()[2 + d], strides[d], pads[d],
                         yt.shape[2 + d], r);
      if (!a)
        return std::nullopt;
      axes[d].push_back(*a);
    }
  llvm::SmallVector<std::pair<PhaseAxis, PhaseAxis>, 4> phases;
  int64_t products = 0;
  for (const PhaseAxis &a0 : axes[0])
    for (const PhaseAxis &a1 : axes[1]) {
      products += a0.taps * a1.taps * (yt.shape[2] / strides[0]) * (yt.shape[3] / strides[1]);
      phases.push_back({a0, a1});
    }
  if (10 * products > 9 * sharedProducts)
    return std::nullopt;
  return phases;
}

/// The explicit attributes of a 2-D ConvTranspose.
AttrMap convTranspose2DAttrs(int64_t group, llvm::ArrayRef<int64_t> kernel,
                             llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations,
                             llvm::ArrayRef<int64_t> pads) {
  return AttrMap{{"auto_pad", Attr::ofString("NOTSET")},
                 {"group", Attr::ofInt(group)},
                 {"kernel_shape", Attr::ofInts(kernel)},
                 {"strides", Attr::ofInts(strides)},
                 {"dilations", Attr::ofInts(dilations)},
                 {"pads", Attr::ofInts(pads)},
                 {"output_padding", Attr::ofInts({0, 0})}};
}

/// A 2-D ConvTranspose in explicit form with constant weights `w` and bias
/// `b` (or none) as the sub-pixel Conv or the phases' Convs; false where
/// it stays.
llvm::Expected<bool> lowerConvTranspose2D(Graph &g, Node *n, const Tensor &w, const Tensor *b) {
  ConvTransposeView convT(*n);
  const TensorType &xt = convT.input()->getType();
  const TensorType &yt = n->getOutput()->getType();
  llvm::ArrayRef<int64_t> strides = convT.strides(), pads = convT.pads(),
                          dilations = convT.dilations();
  llvm::SmallVector<SubPixelAxis, 2> axes;
  for (size_t i = 0; i < 2; ++i) {
    auto a = subPixelAxis(xt.shape[2 + i], w.getShape()[2 + i], dilations[i], strides[i],
                          pads[i], yt.shape[2 + i]);
    if (!a)
      return false;
    axes.push_back(*a);
  }
  const SubPixelAxis &a0 = axes[0], &a1 = axes[1];
  int64_t group = convT.group(), phases = a0.stride * a1.stride;
  int64_t filters = yt.shape[1], batch = xt.shape[0];
  int64_t m0 = xt.shape[2] + a0.padBegin + a0.padEnd - a0.extent() + 1;
  int64_t m1 = xt.shape[3] + a1.padBegin + a1.padEnd - a1.extent() + 1;
  HelperNodeBuilder c(g, *n);
  if (auto own = phaseConvs(xt, yt, w, strides, pads, dilations,
                            phases * a0.taps * a1.taps * m0 * m1)) {
    // Phase (r0, r1)'s Conv gives outputs (s0 m0 + r0, s1 m1 + r1): the
    // phases concatenated over the channels, then interleaved.
    llvm::SmallVector<Value *, 4> outs;
    for (const auto &[p0, p1] : *own) {
      llvm::SmallVector<Value *, 3> in{
          convT.input(), c.constant("phase_weights", phaseWeights(w, group, p0, p1))};
      if (b)
        in.push_back(convT.bias());
      outs.push_back(c.add("phase_conv", OpKind::Conv, in,
                           {{"auto_pad", Attr::ofString("NOTSET")},
                            {"group", Attr::ofInt(group)},
                            {"kernel_shape", Attr::ofInts({p0.taps, p1.taps})},
                            {"strides", Attr::ofInts({1, 1})},
                            {"dilations", Attr::ofInts({1, 1})},
                            {"pads", Attr::ofInts({p0.padBegin, p1.padBegin, p0.padEnd,
                                                   p1.padEnd})}}));
    }
    int64_t q0 = yt.shape[2] / a0.stride, q1 = yt.shape[3] / a1.stride;
    Value *v = c.add("phases", OpKind::Concat, outs, {{"axis", Attr::ofInt(1)}});
    v = c.add("phase_grid", OpKind::Reshape, {v},
              reshapeAttrs({batch, a0.stride, a1.stride, filters, q0, q1}));
    v = c.add("interleave", OpKind::Transpose, {v},
              {{"perm", Attr::ofInts({0, 3, 4, 1, 5, 2})}});
    v = c.add("grid", OpKind::Reshape, {v}, reshapeAttrs(yt.shape));
    return c.replaceOrigin({v});
  }
  llvm::SmallVector<Value *, 3> convInputs{
      convT.input(), c.constant("subpixel_weights", subPixelWeights(w, group, a0, a1))};
  if (b)
    convInputs.push_back(c.constant("subpixel_bias", subPixelBias(*b, phases)));
  Value *v = c.add("subpixel_conv", OpKind::Conv, convInputs,
                   {{"auto_pad", Attr::ofString("NOTSET")},
                    {"group", Attr::ofInt(group)},
                    {"kernel_shape", Attr::ofInts({a0.taps, a1.taps})},
                    {"strides", Attr::ofInts({1, 1})},
                    {"dilations", Attr::ofInts({a0.dilation, a1.dilation})},
                    {"pads", Attr::ofInts({a0.padBegin, a1.padBegin, a0.padEnd,
                                           a1.padEnd})}});
  if (phases > 1) {
    v = c.add("phases", OpKind::Reshape, {v},
              reshapeAttrs({batch, filters, a0.stride, a1.stride, m0, m1}));
    v = c.add("interleave", OpKind::Transpose, {v},
              {{"perm", Attr::ofInts({0, 1, 4, 2, 5, 3})}});
    v = c.add("grid", OpKind::Reshape, {v},
              reshapeAttrs({batch, filters, m0 * a0.stride, m1 * a1.stride}));
  }
  if (m0 * a0.stride != yt.shape[2] || m1 * a1.stride != yt.shape[3])
    v = c.add("crop", OpKind::Slice, {v},
              sliceAttrs({0, 0, a0.cropStart, a1.cropStart},
                         {batch, filters, a0.cropStart + yt.shape[2],
                          a1.cropStart + yt.shape[3]}));
  return c.replaceOrigin({v});
}

/// Ends a 1-D or 3-D rewrite around the 2-D ConvTranspose `inner`: the
/// origin replaced by `result`, then `inner` lowered.
llvm::Expected<bool> replaceAndLowerInner(Graph &g, HelperNodeBuilder &c, Value *inner,
                                          Value *result) {
  Node *convT = inner ? inner->getProducer() : nullptr;
  auto replaced = c.replaceOrigin({result});
  if (!replaced)
    return replaced.takeError();
  ConvTransposeView view(*convT);
  auto lowered = lowerConvTranspose2D(g, convT, *constantF32(view.weights()),
                                      view.bias() ? constantF32(view.bias()) : nullptr);
  if (!lowered)
    return lowered.takeError();
  return true;
}

/// A 1-D ConvTranspose (explicit form, constant weights) as the 2-D one of
/// height 1 between Reshapes.
llvm::Expected<bool> lowerConvTranspose1D(Graph &g, Node *n, const Tensor &w) {
  ConvTransposeView convT(*n);
  const TensorType &xt = convT.input()->getType();
  llvm::ArrayRef<int64_t> ws = w.getShape();
  HelperNodeBuilder c(g, *n);
  llvm::SmallVector<Value *, 3> in{
      c.add("x2d", OpKind::Reshape, {convT.input()},
            reshapeAttrs({xt.shape[0], xt.shape[1], 1, xt.shape[2]})),
      c.constant("w2d", Tensor(TensorType(DType::F32, {ws[0], ws[1], 1, ws[2]}), w.raw()))};
  if (convT.bias())
    in.push_back(convT.bias());
  Value *y2d = c.add("convtranspose2d", OpKind::ConvTranspose, in,
                     convTranspose2DAttrs(convT.group(), {1, ws[2]}, {1, convT.strides()[0]},
                                          {1, convT.dilations()[0]},
                                          {0, convT.pads()[0], 0, convT.pads()[1]}));
  Value *y = c.add("y1d", OpKind::Reshape, {y2d}, reshapeAttrs(n->getOutput()->getType().shape));
  return replaceAndLowerInner(g, c, y2d, y);
}

/// A 3-D ConvTranspose (explicit form, constant weights `w` [C, O/group,
/// KD, KH, KW] and bias `b` or none) as a 2-D one over depth windows:
///   x[N, C, D, H, W] -> the padded depth's M windows of T taps as
///   channels (depthWindowsAsChannels) [N*M, C*T, H, W],
///   ConvTranspose 2-D to [N*M, O*s, OH, OW] (output channel (o, r) holding
///   depth phase r's reversed taps of filter o)
///   -> Reshape [N, M, O, s, OH, OW] -> Transpose [N, O, M, s, OH, OW]
///   -> Reshape [N, O, M*s, OH, OW] -> Slice the output's depths.
/// False where the depth axis's windows would need negative pads.
llvm::Expected<bool> lowerConvTranspose3D(Graph &g, Node *n, const Tensor &w, const Tensor *b) {
  ConvTransposeView convT(*n);
  const TensorType &xt = convT.input()->getType();
  const TensorType &yt = n->getOutput()->getType();
  llvm::ArrayRef<int64_t> strides = convT.strides(), pads = convT.pads(),
                          dilations = convT.dilations(), ws = w.getShape();
  auto depth = subPixelAxis(xt.shape[2], ws[2], dilations[0], strides[0], pads[0], yt.shape[2]);
  if (!depth)
    return false;
  const int64_t N = xt.shape[0], C = xt.shape[1];
  const int64_t T = depth->taps, s = depth->stride, O = yt.shape[1], perGroupOut = ws[1];
  const int64_t M = xt.shape[2] + depth->padBegin + depth->padEnd - depth->extent() + 1;
  HelperNodeBuilder c(g, *n);
  Value *x2d = depthWindowsAsChannels(c, convT.input(), depth->padBegin, depth->padEnd, M, T, 1,
                                      depth->dilation);
  // w2[(ci, j), (o, r), kh, kw] = w[ci, o, the tap of phase r at j, kh, kw].
  const int64_t plane = ws[3] * ws[4];
  Tensor w2(TensorType(DType::F32, {C * T, perGroupOut * s, ws[3], ws[4]}));
  const float *src = w.data<float>();
  float *dst = w2.data<float>();
  for (int64_t ci = 0; ci < C; ++ci)
    for (int64_t j = 0; j < T; ++j)
      for (int64_t o = 0; o < perGroupOut; ++o)
        for (int64_t r = 0; r < s; ++r) {
          int64_t tap = depth->sourceTap(r, j);
          if (tap < 0)
            continue;
          std::copy_n(src + ((ci * perGroupOut + o) * ws[2] + tap) * plane, plane,
                      dst + ((ci * T + j) * perGroupOut * s + o * s + r) * plane);
        }
  llvm::SmallVector<Value *, 3> in{x2d, c.constant("w2d", std::move(w2))};
  if (b)
    in.push_back(c.constant("b2d", subPixelBias(*b, s)));
  Value *y2d = c.add("convtranspose2d", OpKind::ConvTranspose, in,
                     convTranspose2DAttrs(convT.group(), {ws[3], ws[4]}, strides.drop_front(),
                                          dilations.drop_front(),
                                          {pads[1], pads[2], pads[4], pads[5]}));
  Value *y = c.add("phases", OpKind::Reshape, {y2d},
                   reshapeAttrs({N, M, O, s, yt.shape[3], yt.shape[4]}));
  y = c.add("interleave", OpKind::Transpose, {y}, {{"perm", Attr::ofInts({0, 2, 1, 3, 4, 5})}});
  y = c.add("depths", OpKind::Reshape, {y}, reshapeAttrs({N, O, M * s, yt.shape[3], yt.shape[4]}));
  if (M * s != yt.shape[2])
    y = c.add("crop", OpKind::Slice, {y},
              sliceAttrs({0, 0, depth->cropStart, 0, 0},
                         {N, O, depth->cropStart + yt.shape[2], yt.shape[3], yt.shape[4]}));
  return replaceAndLowerInner(g, c, y2d, y);
}

} // namespace

llvm::Expected<bool> lowerConvTranspose(Graph &g, Node *n) {
  auto explicitForm = makeConvTransposeExplicit(g, n);
  if (!explicitForm)
    return explicitForm.takeError();
  ConvTransposeView convT(*n);
  const TensorType &xt = convT.input()->getType();
  const Tensor *w = constantF32(convT.weights());
  const Tensor *b = convT.bias() ? constantF32(convT.bias()) : nullptr;
  if (xt.dtype != DType::F32 || !w || (convT.bias() && !b))
    return *explicitForm;
  llvm::Expected<bool> lowered = false;
  switch (xt.rank()) {
  case 3: lowered = lowerConvTranspose1D(g, n, *w); break;
  case 4: lowered = lowerConvTranspose2D(g, n, *w, b); break;
  case 5: lowered = lowerConvTranspose3D(g, n, *w, b); break;
  default: break;
  }
  if (!lowered)
    return lowered.takeError();
  return *lowered || *explicitForm;
}

} // namespace kiln
