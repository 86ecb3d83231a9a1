//===- Spectral.cpp - DFT, STFT and MelWeightMatrix -----------------------===//
//
// The signal-processing ops of opset 17, the front end of keyword-spotting
// models. Shapes and lengths are constant, so a DFT of length L is a
// product with a constant [N*C, K*2] matrix of cosines and sines (C = 1 for
// real, 2 for complex input; K = L, or L/2 + 1 one-sided), which the MatMul
// kernel computes: O(L^2) per signal, fine for the frame lengths embedded
// models use. STFT gathers the frames, applies the window and takes the
// DFT of each; MelWeightMatrix has only constant inputs and becomes a
// constant.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "compiler/ops/OnnxDTypes.h"
#include "compiler/ops/ShapeIndexing.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace kiln {
namespace {

/// The DFT of `x`, whose axis rank-2 holds the signal (N samples) and
/// whose last axis its real (and imaginary) parts, of length `length`
/// (truncated or zero-padded): [..., K, 2].
Value *dftAlongSignal(Formula &f, Value *x, int64_t length, bool inverse,
                      bool onesided) {
  Shape shape = x->getType().shape;
  int64_t rank = shape.size(), n = shape[rank - 2], c = shape[rank - 1];
  int64_t k = onesided ? length / 2 + 1 : length;
  Tensor m(TensorType(DType::F32, {n * c, k * 2}));
  double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / length : 1.0;
  for (int64_t s = 0; s < std::min(n, length); ++s)
    for (int64_t j = 0; j < k; ++j) {
      // theta = 2 pi j s / length, reduced first so large products stay
      // exact.
      double theta = 2.0 * M_PI * double((j * s) % length) / double(length);
      double cosine = std::cos(theta) * scale,
             sine = sign * std::sin(theta) * scale;
      float *row = m.data<float>() + s * c * k * 2;
      row[j * 2] = cosine; // real part from the real input
      row[j * 2 + 1] = sine;
      if (c == 2) {
        row[k * 2 + j * 2] = -sine; // from the imaginary input
        row[k * 2 + j * 2 + 1] = cosine;
      }
    }
  Shape flat(shape.begin(), shape.end() - 2);
  flat.push_back(n * c);
  Value *rows =
      f.add("dft_rows", OpKind::Reshape, {x}, {{"shape", Attr::ofInts(flat)}});
  Value *spectrum = f.add("dft", OpKind::MatMul,
                          {rows, f.constant("dft_matrix", std::move(m))});
  Shape result(shape.begin(), shape.end() - 2);
  result.append({k, 2});
  return f.add("dft_spectrum", OpKind::Reshape, {spectrum},
               {{"shape", Attr::ofInts(result)}});
}

llvm::Error checkSignal(const PendingNode &n, const TensorType &t,
                        int64_t minRank) {
  if (t.dtype != DType::F32)
    return n.error("supports f32 signals, got " + t.str());
  if (static_cast<int64_t>(t.rank()) < minRank ||
      (t.shape.back() != 1 && t.shape.back() != 2))
    return n.error("expects a signal [batch, ..., 1 or 2], got " + t.str());
  return llvm::Error::success();
}

/// DFT's signal axis: the `axis` attribute (default 1) before opset 20, from
/// 20 the constant input 2 (default -2, the last signal axis).
llvm::Expected<int64_t> dftAxis(NodeEmitter &e, PendingNode &n, int64_t rank) {
  if (e.getOpset() < 20)
    return axisAttr(n, "axis", 1, rank - 1);
  if (n.attrs.count("axis"))
    return n.error("attribute 'axis' is an input since opset 20");
  int64_t axis = -2;
  if (n.getInput(2)) {
    auto a = scalarIntInput(n, 2, "axis");
    if (!a)
      return a.takeError();
    axis = *a;
  }
  if (axis < -rank || axis > rank - 2 || axis == -1)
    return n.error(llvm::formatv("axis {0} is not a signal axis of a rank-{1} input", axis,
                                 rank));
  return axis < 0 ? axis + rank : axis;
}

} // namespace

llvm::Expected<ValueList> emitDft(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, e.getOpset() < 20 ? 2 : 3))
    return std::move(err);
  if (n.inputs.empty() || !n.inputs[0])
    return n.error("needs an input signal");
  Value *x = n.inputs[0];
  const TensorType &xt = x->getType();
  if (auto err = checkSignal(n, xt, 3))
    return std::move(err);
  int64_t rank = xt.rank();
  auto axis = dftAxis(e, n, rank);
  if (!axis)
    return axis.takeError();
  if (*axis == 0)
    return n.error("axis 0 is the batch axis");
  auto inverse = intAttr(n, "inverse", 0);
  if (!inverse)
    return inverse.takeError();
  auto onesided = intAttr(n, "onesided", 0);
  if (!onesided)
    return onesided.takeError();
  if (*inverse && *onesided)
    return n.error("an inverse DFT cannot be one-sided");
  int64_t length = xt.shape[*axis];
  if (n.getInput(1)) {
    auto l = scalarIntInput(n, 1, "dft_length");
    if (!l)
      return l.takeError();
    length = *l;
  }
  if (length < 1)
    return n.error(llvm::formatv("dft_length {0} is not positive", length));

  Formula f(e, n);
  // The signal axis goes next to the real/imaginary axis and back.
  Shape perm = movedAxisPerm(rank, *axis, rank - 2);
  bool moved = *axis != rank - 2;
  Value *signal = moved ? f.add("signal_last", OpKind::Transpose, {x},
                                {{"perm", Attr::ofInts(perm)}})
                        : x;
  Value *y = dftAlongSignal(f, signal, length, *inverse, *onesided);
  y = moved ? f.add("y", OpKind::Transpose, {y},
                    {{"perm", Attr::ofInts(inversePerm(perm))}},
                    n.getOutputName(0))
            : f.add("y", OpKind::Identity, {y}, {}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

llvm::Expected<ValueList> emitStft(NodeEmitter &e, PendingNode &n) {
  if (auto err = checkMaxInputs(n, 4))
    return std::move(err);
  if (n.inputs.empty() || !n.inputs[0])
    return n.error("needs an input signal");
  Value *signal = n.inputs[0];
  const TensorType &st = signal->getType();
  if (auto err = checkSignal(n, st, 3))
    return std::move(err);
  if (st.rank() != 3)
    return n.error("expects a signal [batch, length, 1 or 2], got " + st.str());
  auto step = scalarIntInput(n, 1, "frame_step");
  if (!step)
    return step.takeError();
  Value *window = n.getInput(2);
  int64_t length = window ? window->getType().numElements() : 0;
  if (n.getInput(3)) {
    auto l = scalarIntInput(n, 3, "frame_length");
    if (!l)
      return l.takeError();
    if (window && *l != length)
      return n.error(llvm::formatv("frame_length {0} differs from the "
                                   "window's length {1}",
                                   *l, length));
    length = *l;
  }
  if (window && window->getType().rank() != 1)
    return n.error("window must be 1-D, got " + window->getType().str());
  if (length < 1 || *step < 1 || length > st.shape[1])
    return n.error(llvm::formatv("frames of {0} every {1} do not fit a "
                                 "signal of {2}",
                                 length, *step, st.shape[1]));
  auto onesided = intAttr(n, "onesided", 1);
  if (!onesided)
    return onesided.takeError();

  int64_t frames = (st.shape[1] - length) / *step + 1;
  Tensor starts(TensorType(DType::I64, {frames, length}));
  for (int64_t fr = 0; fr < frames; ++fr)
    for (int64_t i = 0; i < length; ++i)
      starts.data<int64_t>()[fr * length + i] = fr * *step + i;
  Formula f(e, n);
  Value *framed =
      f.add("frames", OpKind::Gather,
            {signal, f.constant("frame_samples", std::move(starts))},
            {{"axis", Attr::ofInt(1)}});
  if (window)
    framed = f.add("windowed", OpKind::Mul,
                   {framed, f.add("window_column", OpKind::Reshape, {window},
                                  {{"shape", Attr::ofInts({length, 1})}})});
  Value *y = f.add("y", OpKind::Identity,
                   {dftAlongSignal(f, framed, length, false, *onesided)}, {},
                   n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

/// MelWeightMatrix-17: triangular filters between mel-spaced edges, as the
/// ONNX specification's reference computes them (edges rounded down to DFT
/// bins).
llvm::Expected<ValueList> emitMelWeightMatrix(NodeEmitter &e, PendingNode &n) {
  if (n.inputs.size() != 5)
    return n.error("expects 5 inputs");
  auto bins = scalarIntInput(n, 0, "num_mel_bins");
  if (!bins)
    return bins.takeError();
  auto dftLength = scalarIntInput(n, 1, "dft_length");
  if (!dftLength)
    return dftLength.takeError();
  auto rate = scalarIntInput(n, 2, "sample_rate");
  if (!rate)
    return rate.takeError();
  auto lo = scalarInput(n, 3, "lower_edge_hertz");
  if (!lo)
    return lo.takeError();
  auto hi = scalarInput(n, 4, "upper_edge_hertz");
  if (!hi)
    return hi.takeError();
  if (*bins < 1 || *dftLength < 1 || *rate < 1 || *lo < 0 || *hi <= *lo ||
      *bins > 4096 || *dftLength > (1 << 20))
    return n.error("expects positive sizes, a sample rate and 0 <= lower "
                   "edge < upper edge");
  auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
  // The reference spaces the num_mel_bins + 2 edges by 1 / (num_mel_bins
  // + 2) of the mel range, so the last edge falls short of the upper edge.
  double loMel = mel(*lo), step = (mel(*hi) - loMel) / double(*bins + 2);
  llvm::SmallVector<int64_t, 64> edge;
  for (int64_t i = 0; i < *bins + 2; ++i) {
    double hz = 700.0 * (std::pow(10.0, (i * step + loMel) / 2595.0) - 1.0);
    edge.push_back(int64_t(std::floor((*dftLength + 1) * hz / *rate)));
  }
  int64_t spectrum = *dftLength / 2 + 1;
  Tensor m(TensorType(DType::F32, {spectrum, *bins}));
  auto set = [&](int64_t row, int64_t col, double v) {
    if (row >= 0 && row < spectrum)
      m.data<float>()[row * *bins + col] = v;
  };
  for (int64_t b = 0; b < *bins; ++b) {
    int64_t left = edge[b], center = edge[b + 1], right = edge[b + 2];
    if (center == left)
      set(center, b, 1.0);
    for (int64_t j = left; center > left && j <= center; ++j)
      set(j, b, double(j - left) / double(center - left));
    for (int64_t j = center; j < right; ++j)
      set(j, b, double(right - j) / double(right - center));
  }
  auto dtype = intAttr(n, "output_datatype", onnxFromDType(DType::F32));
  if (!dtype)
    return dtype.takeError();
  Formula f(e, n);
  Value *y = f.add("y", OpKind::Cast, {f.constant("mel_weights", std::move(m))},
                   {{"to", Attr::ofInt(*dtype)}}, n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

} // namespace kiln
