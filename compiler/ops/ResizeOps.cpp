//===- ResizeOps.cpp - Resize ------------------------------------------------===//
//
// Resize (opset 19): nearest, linear and cubic interpolation over any axes,
// with every coordinate_transformation_mode, nearest_mode, cubic_coeff_a,
// exclude_outside and extrapolation_value. The output sizes and the scale
// factors are attributes in kiln (`sizes`, `scales`; `roi` for
// tf_crop_and_resize): the importer computes them from the ONNX inputs.
//
// Interpolation is separable: for each axis, resizeTaps gives every output
// position its input neighbours and weights, as ONNX's reference
// implementation chooses them; an output element is the tensor product sum
// over the axes.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/CheckedMath.h"
#include "compiler/graph/Graph.h"
#include "compiler/ops/ElementwiseEval.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpGeometry.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/ShapeIndexing.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

/// Bytes a tap takes in ResizeTaps: an int64 index and a double weight.
constexpr uint64_t kResizeTapBytes = sizeof(int64_t) + sizeof(double);

/// The attributes that decide each output position's taps, read once per
/// node: looked up by name per position, they were most of the time of an
/// import-time fold over millions of positions.
struct ResizeModes {
  enum class Coordinates {
    HalfPixel,
    HalfPixelSymmetric,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfHalfPixelForNN,
    TfCropAndResize,
  };
  enum class Interpolation { Nearest, Linear, Cubic };
  enum class Rounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
  Coordinates coordinates;
  Interpolation interpolation;
  Rounding rounding;
  double cubicA;
};

/// The attributes' domains (the Resize record's enumAttrs) make every
/// string here one of the cases.
ResizeModes resizeModes(const Node &n) {
  using M = ResizeModes;
  ResizeView resize(n);
  M m;
  m.coordinates =
      llvm::StringSwitch<M::Coordinates>(resize.coordinateTransformationMode())
          .Case("half_pixel_symmetric", M::Coordinates::HalfPixelSymmetric)
          .Case("pytorch_half_pixel", M::Coordinates::PytorchHalfPixel)
          .Case("align_corners", M::Coordinates::AlignCorners)
          .Case("asymmetric", M::Coordinates::Asymmetric)
          .Case("tf_half_pixel_for_nn", M::Coordinates::TfHalfPixelForNN)
          .Case("tf_crop_and_resize", M::Coordinates::TfCropAndResize)
          .Default(M::Coordinates::HalfPixel);
  m.interpolation = llvm::StringSwitch<M::Interpolation>(resize.mode())
                        .Case("linear", M::Interpolation::Linear)
                        .Case("cubic", M::Interpolation::Cubic)
                        .Default(M::Interpolation::Nearest);
  m.rounding = llvm::StringSwitch<M::Rounding>(resize.nearestMode())
                   .Case("round_prefer_ceil", M::Rounding::RoundPreferCeil)
                   .Case("floor", M::Rounding::Floor)
                   .Case("ceil", M::Rounding::Ceil)
                   .Default(M::Rounding::RoundPreferFloor);
  m.cubicA = resize.cubicCoeffA();
  return m;
}

/// The weights of the neighbours of a point whose fractional position past
/// its left neighbour is `ratio` in (0, 1].
llvm::SmallVector<double, 4> coefficients(const ResizeModes &m, double ratio) {
  using M = ResizeModes;
  if (m.interpolation == M::Interpolation::Linear)
    return {1 - ratio, ratio};
  if (m.interpolation == M::Interpolation::Cubic) {
    double a = m.cubicA, r = ratio, s = 1 - ratio;
    return {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * s - (a + 3)) * s * s + 1,
            ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a};
  }
  if (ratio == 1)
    return {0, 1};
  switch (m.rounding) {
  case M::Rounding::RoundPreferCeil:
    return {double(ratio < 0.5), double(ratio >= 0.5)};
  case M::Rounding::Floor:
    return {1, 0};
  case M::Rounding::Ceil:
    return {0, 1};
  case M::Rounding::RoundPreferFloor:
    break;
  }
  return {double(ratio <= 0.5), double(ratio > 0.5)};
}

/// The position in the input that output position `x` maps to; `scale` is
/// the axis's scale factor, `outWidth` = scale * inWidth as ONNX computes it,
/// `outSize` the axis's output size.
double sourceCoordinate(ResizeModes::Coordinates mode, double x, double scale,
                        int64_t inWidth, int64_t outSize, double roiStart, double roiEnd) {
  using C = ResizeModes::Coordinates;
  double outWidth = scale * inWidth;
  switch (mode) {
  case C::AlignCorners:
    return outWidth == 1 ? 0.0 : x * (inWidth - 1) / (outWidth - 1);
  case C::Asymmetric:
    return x / scale;
  case C::TfCropAndResize: {
    double span = (roiEnd - roiStart) * (inWidth - 1);
    double r = outWidth == 1 ? span / 2 : x * span / (outWidth - 1);
    return r + roiStart * (inWidth - 1);
  }
  case C::TfHalfPixelForNN:
    return (x + 0.5) / scale;
  case C::PytorchHalfPixel:
    return outWidth == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
  case C::HalfPixelSymmetric: {
    // Half pixel, shifted so that the rounding of the output size spreads
    // evenly over both ends.
    double adjustment = outWidth > 0 && std::isfinite(outWidth) ? double(outSize) / outWidth : 1;
    double offset = inWidth / 2.0 * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  case C::HalfPixel:
    break;
  }
  return (x + 0.5) / scale - 0.5;
}

llvm::Expected<TypeList> inferResize(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, numericDTypes()))
    return e;
  const TensorType &x = inputType(n, 0);
  ResizeView resize(n);
  llvm::ArrayRef<int64_t> sizes = resize.sizes();
  llvm::ArrayRef<float> scales = resize.scales();
  if (sizes.size() != x.rank() || scales.size() != x.rank())
    return nodeError(n, "sizes and scales must have one entry per dimension "
                        "of " + x.str());
  for (size_t d = 0; d < x.rank(); ++d)
    if (sizes[d] < 1 || !(scales[d] > 0))
      return nodeError(n, "sizes " + shapeStr(sizes) +
                              " and scales must be positive");
  llvm::StringRef mode = resize.mode();
  if (mode != "nearest" && !isFloatDType(x.dtype))
    return nodeError(n, "mode '" + mode + "' needs a float input, got " +
                            x.str());
  if (resize.coordinateTransformationMode() == "tf_crop_and_resize" &&
      (!resize.roi() || resize.roi()->size() != 2 * x.rank()))
    return nodeError(n, "tf_crop_and_resize needs a roi of 2 x rank values");
  // resizeTaps builds a table per axis, a tap (index and weight) per output
  // position; a long axis can make it far larger than the result itself. (A
  // result over the limit, addNode refuses with its own message.)
  TensorType result(x.dtype, sizes);
  std::optional<int64_t> elements = checkedElementCount(sizes, kMaxTensorElements);
  uint64_t limit = n.getGraph().getLimits().maxTensorBytes;
  if (!elements || uint64_t(*elements) * dtypeSize(x.dtype) > limit)
    return TypeList{result};
  uint64_t taps = mode == "cubic" ? 4 : mode == "linear" ? 2 : 1;
  uint64_t tableBytes = 0;
  for (int64_t extent : sizes)
    tableBytes += uint64_t(extent) * taps * kResizeTapBytes;
  if (tableBytes > limit)
    return nodeError(n, llvm::formatv("its interpolation tables for sizes {0} would "
                                      "take {1} bytes, over the limit of {2} bytes "
                                      "per tensor (--max-tensor-bytes)",
                                      shapeStr(sizes), tableBytes, limit));
  return TypeList{result};
}

} // namespace

std::vector<ResizeTaps> resizeTaps(const Node &n) {
  ResizeView resize(n);
  const TensorType &x = resize.input()->getType();
  llvm::ArrayRef<int64_t> sizes = resize.sizes();
  llvm::ArrayRef<float> scales = resize.scales();
  std::optional<llvm::ArrayRef<float>> roi = resize.roi();
  ResizeModes modes = resizeModes(n);
  bool crop = modes.coordinates == ResizeModes::Coordinates::TfCropAndResize;
  bool exclude = resize.excludeOutside() != 0;
  size_t rank = x.rank();
  std::vector<ResizeTaps> axes(rank);
  for (size_t d = 0; d < rank; ++d) {
    ResizeTaps &a = axes[d];
    int64_t in = x.shape[d];
    double roiStart = 0, roiEnd = 1;
    if (roi) {
      roiStart = (*roi)[d];
      roiEnd = (*roi)[rank + d];
    }
    for (int64_t o = 0; o < sizes[d]; ++o) {
      double src = sourceCoordinate(modes.coordinates, double(o), scales[d], in, sizes[d],
                                    roiStart, roiEnd);
      a.outside.push_back(crop && (src < 0 || src > in - 1));
      // The left neighbour; an integer position counts as ratio 1 past the
      // one before it, as in ONNX's reference.
      double left = std::ceil(src) - 1;
      llvm::SmallVector<double, 4> w = coefficients(modes, src - left);
      int64_t taps = w.size();
      // Neighbours left - taps/2 + 1 ... left + taps/2 of the input padded
      // by ceil(taps/2) edge values; the window stays inside the padding.
      int64_t pad = (taps + 1) / 2;
      int64_t first = int64_t(left) - taps / 2 + 1;
      first = std::max<int64_t>(first, -pad);
      first = std::min<int64_t>(first, in + pad - taps);
      double total = 0;
      for (int64_t t = 0; t < taps; ++t) {
        int64_t idx = first + t;
        if (exclude && (idx < 0 || idx >= in))
          w[t] = 0;
        total += w[t];
      }
      a.taps = taps;
      for (int64_t t = 0; t < taps; ++t) {
        int64_t idx = first + t;
        a.indices.push_back(std::clamp<int64_t>(idx, 0, in - 1));
        a.weights.push_back(exclude ? w[t] / total : w[t]);
      }
    }
  }
  return axes;
}

namespace {

llvm::Error evalResize(const Node &n, llvm::ArrayRef<const Tensor *> in,
                       llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0];
  Tensor &y = out[0];
  std::vector<ResizeTaps> axes = resizeTaps(n);
  size_t rank = axes.size();
  Shape inStrides = rowMajorStrides(x.getShape());
  double extrapolation = ResizeView(n).extrapolationValue();
  bool isFloat = isFloatDType(x.getDType());
  StridedIndex it(y.getShape(), {});
  for (int64_t i = 0, e = y.numElements(); i < e; ++i, it.next()) {
    bool outside = false;
    for (size_t d = 0; d < rank; ++d)
      outside |= axes[d].outside[it.index()[d]];
    if (outside) {
      writeFloat(y, i, extrapolation);
      continue;
    }
    // The tensor product of the axes' taps, as a mixed-radix counter.
    Shape tap(rank, 0);
    double acc = 0;
    for (;;) {
      double w = 1;
      int64_t at = 0;
      for (size_t d = 0; d < rank; ++d) {
        const ResizeTaps &a = axes[d];
        int64_t k = it.index()[d] * a.taps + tap[d];
        w *= a.weights[k];
        at += a.indices[k] * inStrides[d];
      }
      if (w != 0)
        acc += w * readFloat(x, at);
      size_t d = rank;
      while (d-- > 0 && ++tap[d] == axes[d].taps)
        tap[d] = 0;
      if (d == size_t(-1))
        break;
    }
    if (isFloat)
      writeFloat(y, i, acc);
    else
      writeInt(y, i, static_cast<int64_t>(acc));
  }
  return llvm::Error::success();
}

} // namespace

void registerResizeOps(std::vector<OpDef> &defs) {
  defs.push_back(
      {OpKind::Resize,
       "Resize",
       1,
       1,
       1,
       1,
       {enumAttr("coordinate_transformation_mode", "half_pixel",
                 {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                  "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"}),
        finiteAttr("cubic_coeff_a", -0.75f),
        flagAttr("exclude_outside", 0),
        {"extrapolation_value", AttrKind::Float, Attr::ofFloat(0.0f)},
        enumAttr("mode", "nearest", {"nearest", "linear", "cubic"}),
        enumAttr("nearest_mode", "round_prefer_floor",
                 {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}),
        {"roi", AttrKind::Floats, std::nullopt},
        {"scales", AttrKind::Floats, std::nullopt, /*required=*/true},
        {"sizes", AttrKind::Ints, std::nullopt, /*required=*/true}},
       inferResize,
       evalResize});
  defs.back().kernel = KernelFamily::Resize;
}

} // namespace kiln
