//===- RoiAlignOps.cpp - RoiAlign: bilinear pooling of regions ------------===//
//
// RoiAlign (Mask R-CNN) pools each region of interest of X [N, C, H, W] to
// output_height x output_width bins: a bin is the average (or the maximum)
// of a grid of bilinear samples, sampling_ratio per axis or, at 0,
// ceil(region size / bins), a count known at run time (bounded by
// kMaxRoiAlignGrid). The arithmetic, in its float operation order, is
// ONNX's reference's (Caffe2's), whose results ONNX's tests hold.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/RoiAlign.h"

#include "compiler/graph/Graph.h"
#include "compiler/ops/OpFamilies.h"
#include "compiler/ops/OpViews.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace kiln {
namespace {

/// A region along one axis: where it starts, its bin size and samples per
/// bin.
struct RegionAxis {
  float start, bin;
  int64_t grid;

  RegionAxis(float begin, float end, bool halfPixel, int64_t bins, int64_t samplingRatio) {
    float size = end - begin;
    // output_half_pixel makes an empty or reversed region 1 pixel.
    if (!halfPixel)
      size = std::max(size, 1.0f);
    start = begin;
    bin = size / float(bins);
    grid = samplingRatio;
    if (!grid) {
      float g = std::ceil(bin);
      grid = g > 0 ? int64_t(std::min(g, float(kMaxRoiAlignGrid))) : 0;
    }
  }
  /// The coordinate of sample `i` of bin `p`.
  float sample(int64_t p, int64_t i) const {
    return start + float(p) * bin + (float(i) + 0.5f) * bin / float(grid);
  }
};

/// The two pixels a sample at `v` interpolates along an axis of `size`,
/// and their weights; none outside [-1, size] (nor at NaN).
struct AxisTaps {
  bool inside;
  int64_t low = 0, high = 0;
  float lowWeight = 0, highWeight = 0;

  AxisTaps(float v, int64_t size) : inside(v >= -1.0f && v <= float(size)) {
    if (!inside)
      return;
    if (v <= 0.0f)
      v = 0.0f;
    low = int64_t(v);
    if (low >= size - 1) {
      low = high = size - 1;
      v = float(low);
    } else {
      high = low + 1;
    }
    float l = v - float(low);
    lowWeight = 1.0f - l;
    highWeight = l;
  }
};

llvm::Expected<TypeList> inferRoiAlign(const Node &n) {
  if (llvm::Error e = expectDType(n, 0, {DType::F32}))
    return std::move(e);
  if (llvm::Error e = expectDType(n, 1, {DType::F32}))
    return std::move(e);
  if (llvm::Error e = expectDType(n, 2, {DType::I64, DType::I32}))
    return std::move(e);
  for (auto [input, rank] : {std::pair<unsigned, size_t>{0, 4}, {1, 2}, {2, 1}})
    if (llvm::Error e = expectRank(n, input, rank))
      return std::move(e);
  const TensorType &x = inputType(n, 0), &rois = inputType(n, 1), &batch = inputType(n, 2);
  if (rois.shape[1] != 4)
    return nodeError(n, llvm::formatv("rois must be [num_rois, 4], not [{0}, {1}]",
                                      rois.shape[0], rois.shape[1])
                            .str());
  if (batch.shape[0] != rois.shape[0])
    return nodeError(n, llvm::formatv("{0} batch indices for {1} rois", batch.shape[0],
                                      rois.shape[0])
                            .str());
  RoiAlignView v(n);
  return TypeList{TensorType(DType::F32, {rois.shape[0], x.shape[1], v.outputHeight(),
                                          v.outputWidth()})};
}

llvm::Error evalRoiAlign(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out) {
  const Tensor &x = *in[0], &rois = *in[1], &batch = *in[2];
  RoiAlignView v(n);
  const int64_t N = x.getShape()[0], C = x.getShape()[1], H = x.getShape()[2],
                W = x.getShape()[3], R = rois.getShape()[0];
  const int64_t PH = v.outputHeight(), PW = v.outputWidth();
  const bool halfPixel = v.coordinateTransformationMode() == "half_pixel";
  const bool maxMode = v.mode() == "max";
  const float scale = v.spatialScale(), offset = halfPixel ? 0.5f : 0.0f;
  const float *px = x.data<float>();
  float *py = out[0].data<float>();
  for (int64_t r = 0; r < R; ++r) {
    int64_t image = batch.getAsInt(r);
    if (image < 0 || image >= N)
      return nodeError(
          n, llvm::formatv("roi {0}'s batch index {1} is not in [0, {2})", r, image, N).str());
    const float *roi = rois.data<float>() + 4 * r;
    auto corner = [&](int i) { return roi[i] * scale - offset; };
    RegionAxis ry(corner(1), corner(3), halfPixel, PH, v.samplingRatio());
    RegionAxis rx(corner(0), corner(2), halfPixel, PW, v.samplingRatio());
    const float count = float(std::max<int64_t>(ry.grid * rx.grid, 1));
    for (int64_t c = 0; c < C; ++c) {
      const float *plane = px + (image * C + c) * H * W;
      for (int64_t ph = 0; ph < PH; ++ph)
        for (int64_t pw = 0; pw < PW; ++pw) {
          float acc = 0.0f;
          for (int64_t iy = 0; iy < ry.grid; ++iy)
            for (int64_t ix = 0; ix < rx.grid; ++ix) {
              AxisTaps ty(ry.sample(ph, iy), H), tx(rx.sample(pw, ix), W);
              float taps[4] = {0, 0, 0, 0};
              if (ty.inside && tx.inside) {
                taps[0] = ty.lowWeight * tx.lowWeight * plane[ty.low * W + tx.low];
                taps[1] = ty.lowWeight * tx.highWeight * plane[ty.low * W + tx.high];
                taps[2] = ty.highWeight * tx.lowWeight * plane[ty.high * W + tx.low];
                taps[3] = ty.highWeight * tx.highWeight * plane[ty.high * W + tx.high];
              }
              if (!maxMode) {
                acc += taps[0] + taps[1] + taps[2] + taps[3];
                continue;
              }
              float m = std::max(std::max(std::max(taps[0], taps[1]), taps[2]), taps[3]);
              acc = iy == 0 && ix == 0 ? m : std::max(acc, m);
            }
          py[((r * C + c) * PH + ph) * PW + pw] = maxMode ? acc : acc / count;
        }
    }
  }
  return llvm::Error::success();
}

} // namespace

void registerRoiAlignOps(std::vector<OpDef> &defs) {
  defs.push_back({OpKind::RoiAlign,
                  "RoiAlign",
                  3,
                  3,
                  1,
                  1,
                  {enumAttr("coordinate_transformation_mode", "half_pixel",
                            {"half_pixel", "output_half_pixel"}),
                   enumAttr("mode", "avg", {"avg", "max"}),
                   intRangeAttr("output_height", AttrKind::Int, Attr::ofInt(1), 1, INT32_MAX),
                   intRangeAttr("output_width", AttrKind::Int, Attr::ofInt(1), 1, INT32_MAX),
                   intRangeAttr("sampling_ratio", AttrKind::Int, Attr::ofInt(0), 0,
                                kMaxRoiAlignGrid),
                   finiteAttr("spatial_scale", 1.0f)},
                  inferRoiAlign,
                  evalRoiAlign});
  defs.back().kernel = KernelFamily::RoiAlign;
}

} // namespace kiln
