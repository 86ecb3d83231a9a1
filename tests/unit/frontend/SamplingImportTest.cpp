//===- SamplingImportTest.cpp - Windows, grids and spectra ----------------===//
//
// GridSample, MaxPool's Indices output, DFT and STFT are imported as
// gathers, ArgMax and products with constant matrices. Each imported graph
// runs in the reference interpreter and is compared with the op computed
// here from its definition (PyTorch's grid_sample for GridSample, a scan of
// every window, the DFT sum).
//
//===----------------------------------------------------------------------===//

#include "tests/unit/frontend/ImportTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace kiln {
namespace {

using namespace test;

//===----------------------------------------------------------------------===//
// GridSample
//===----------------------------------------------------------------------===//

/// GridSample of one channel as PyTorch's grid_sampler_2d computes it
/// (ONNX's test data comes from it): pixel (iy, ix) of `img` [h, w], 0
/// outside unless the padding mode moves the coordinate inside.
struct GridSampleOracle {
  const std::vector<float> &img;
  int64_t h, w;
  bool align;
  std::string padding;

  float unnormalize(float g, int64_t size) const {
    return align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
  }
  float pad(float c, int64_t size) const {
    if (padding == "border")
      return std::clamp(c, 0.0f, float(size - 1));
    if (padding != "reflection")
      return c;
    float lo = align ? 0.0f : -0.5f, span = align ? size - 1 : size;
    if (span <= 0)
      return 0;
    float d = std::fabs(c - lo);
    float flips = std::floor(d / span), extra = std::fmod(d, span);
    c = int64_t(flips) % 2 == 0 ? lo + extra : lo + span - extra;
    return std::clamp(c, 0.0f, float(size - 1));
  }
  float at(int64_t y, int64_t x) const {
    return y < 0 || y >= h || x < 0 || x >= w ? 0.0f : img[y * w + x];
  }
  static float cubic(float t, int k) {
    const float a = -0.75f;
    auto near = [&](float d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };
    auto far = [&](float d) {
      return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
    };
    float c[] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
    return c[k];
  }
  float sample(const std::string &mode, float gx, float gy) const {
    float x = unnormalize(gx, w), y = unnormalize(gy, h);
    if (mode == "bicubic") {
      float x0 = std::floor(x), y0 = std::floor(y), v = 0;
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i)
          v += cubic(x - x0, i) * cubic(y - y0, j) *
               at(int64_t(pad(y0 - 1 + j, h)), int64_t(pad(x0 - 1 + i, w)));
      return v;
    }
    x = pad(x, w);
    y = pad(y, h);
    if (mode == "nearest")
      return at(int64_t(std::nearbyint(y)), int64_t(std::nearbyint(x)));
    int64_t x0 = int64_t(std::floor(x)), y0 = int64_t(std::floor(y));
    float fx = x - x0, fy = y - y0;
    return at(y0, x0) * (1 - fx) * (1 - fy) + at(y0, x0 + 1) * fx * (1 - fy) +
           at(y0 + 1, x0) * (1 - fx) * fy + at(y0 + 1, x0 + 1) * fx * fy;
  }
};

/// Mode, padding, align_corners and batch: one image imports as a Gather of
/// every channel at the same pixels, several as GatherElements.
class ImportGridSample : public ::testing::TestWithParam<
                             std::tuple<const char *, const char *, bool, int64_t>> {};

TEST_P(ImportGridSample, MatchesPyTorchsSampling) {
  auto [mode, padding, align, batch] = GetParam();
  int64_t c = 2, h = 5, w = 7, ho = 4, wo = 6;
  ModelBuilder b(16);
  b.input("x", {batch, c, h, w}).input("grid", {batch, ho, wo, 2});
  onnx::NodeProto &n = b.node("GridSample", {"x", "grid"}, {"y"}, "sample");
  test::setString(n, "mode", mode);
  test::setString(n, "padding_mode", padding);
  test::setInt(n, "align_corners", align);
  b.output("y");
  std::vector<float> img = randomData(batch * c * h * w, 11);
  // Points up to twice outside the image, so reflection folds more than once.
  std::vector<float> grid = randomData(batch * ho * wo * 2, 12);
  for (float &g : grid)
    g *= 2.5f;
  auto out = importAndRun(
      b, {Tensor::fromValues<float>(DType::F32, {batch, c, h, w}, img),
          Tensor::fromValues<float>(DType::F32, {batch, ho, wo, 2}, grid)});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ((*out)[0].getShape(), llvm::ArrayRef<int64_t>({batch, c, ho, wo}));
  for (int64_t plane0 = 0; plane0 < batch * c; ++plane0) {
    std::vector<float> plane(img.begin() + plane0 * h * w,
                             img.begin() + (plane0 + 1) * h * w);
    GridSampleOracle oracle{plane, h, w, align, padding};
    const float *points = grid.data() + plane0 / c * ho * wo * 2;
    for (int64_t p = 0; p < ho * wo; ++p)
      EXPECT_NEAR((*out)[0].values<float>()[plane0 * ho * wo + p],
                  oracle.sample(mode, points[2 * p], points[2 * p + 1]), 1e-5)
          << "plane " << plane0 << " point " << p;
  }
}

INSTANTIATE_TEST_SUITE_P(
    ModesAndPaddings, ImportGridSample,
    ::testing::Combine(::testing::Values("bilinear", "nearest", "bicubic"),
                       ::testing::Values("zeros", "border", "reflection"),
                       ::testing::Bool(), ::testing::Values(int64_t(1), int64_t(2))));

//===----------------------------------------------------------------------===//
// MaxPool's Indices
//===----------------------------------------------------------------------===//

struct PoolCase {
  Shape x, kernel, strides, dilations, pads;
  int64_t ceilMode, storageOrder;
};

class ImportMaxPoolIndices : public ::testing::TestWithParam<PoolCase> {};

/// Every window scanned in order, padding skipped: the first maximum's
/// value and flat index (spatial axes reversed for storage_order 1).
TEST_P(ImportMaxPoolIndices, MatchTheFirstMaximumOfEachWindow) {
  const PoolCase &c = GetParam();
  size_t rank = c.kernel.size();
  Shape spatial(c.x.begin() + 2, c.x.end()), out;
  for (size_t i = 0; i < rank; ++i) {
    int64_t span = spatial[i] + c.pads[i] + c.pads[rank + i] -
                   ((c.kernel[i] - 1) * c.dilations[i] + 1);
    int64_t o = (c.ceilMode ? (span + c.strides[i] - 1) / c.strides[i]
                            : span / c.strides[i]) +
                1;
    if (c.ceilMode && (o - 1) * c.strides[i] >= spatial[i] + c.pads[i])
      --o;
    out.push_back(o);
  }
  ModelBuilder b(12);
  b.input("x", {c.x.begin(), c.x.end()});
  onnx::NodeProto &n = b.node("MaxPool", {"x"}, {"y", "i"}, "pool");
  test::setInts(n, "kernel_shape", {c.kernel.begin(), c.kernel.end()});
  test::setInts(n, "strides", {c.strides.begin(), c.strides.end()});
  test::setInts(n, "dilations", {c.dilations.begin(), c.dilations.end()});
  test::setInts(n, "pads", {c.pads.begin(), c.pads.end()});
  test::setInt(n, "ceil_mode", c.ceilMode);
  test::setInt(n, "storage_order", c.storageOrder);
  b.output("y").output("i");
  // Few distinct values, so windows hold ties.
  std::vector<float> x = randomData(product(c.x), 21);
  for (float &v : x)
    v = std::round(v * 3);
  auto got = importAndRun(b, {Tensor::fromValues<float>(DType::F32, c.x, x)});
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  int64_t planeSize = product(spatial), outSize = product(out);
  for (int64_t plane = 0; plane < c.x[0] * c.x[1]; ++plane)
    for (int64_t o = 0; o < outSize; ++o) {
      Shape oc(rank);
      for (int64_t rest = o, i = rank - 1; i >= 0; --i) {
        oc[i] = rest % out[i];
        rest /= out[i];
      }
      float best = -INFINITY;
      int64_t bestIndex = -1;
      for (int64_t t = 0; t < product(c.kernel); ++t) {
        Shape ic(rank);
        bool inside = true;
        for (int64_t rest = t, i = rank - 1; i >= 0; --i) {
          ic[i] = oc[i] * c.strides[i] - c.pads[i] +
                  (rest % c.kernel[i]) * c.dilations[i];
          rest /= c.kernel[i];
          inside &= ic[i] >= 0 && ic[i] < spatial[i];
        }
        if (!inside)
          continue;
        int64_t rowMajor = 0, colMajor = 0;
        for (size_t i = 0; i < rank; ++i)
          rowMajor = rowMajor * spatial[i] + ic[i];
        for (int64_t i = rank - 1; i >= 0; --i)
          colMajor = colMajor * spatial[i] + ic[i];
        float v = x[plane * planeSize + rowMajor];
        if (v > best) {
          best = v;
          bestIndex =
              plane * planeSize + (c.storageOrder ? colMajor : rowMajor);
        }
      }
      EXPECT_EQ((*got)[0].values<float>()[plane * outSize + o], best);
      EXPECT_EQ((*got)[1].values<int64_t>()[plane * outSize + o], bestIndex)
          << "plane " << plane << " output " << o;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Windows, ImportMaxPoolIndices,
    ::testing::Values(
        PoolCase{{2, 3, 7, 6}, {3, 2}, {2, 2}, {1, 1}, {1, 0, 1, 1}, 0, 0},
        PoolCase{{1, 2, 7, 6}, {3, 2}, {2, 2}, {1, 1}, {1, 0, 1, 1}, 0, 1},
        PoolCase{{1, 2, 8, 7}, {2, 2}, {3, 2}, {2, 1}, {0, 0, 0, 0}, 1, 0},
        PoolCase{{1, 2, 9}, {3}, {2}, {1}, {1, 1}, 1, 0},
        PoolCase{{1, 1, 4, 5, 3},
                 {2, 3, 2},
                 {1, 2, 1},
                 {1, 1, 1},
                 {0, 1, 0, 1, 1, 1},
                 0,
                 1}));

//===----------------------------------------------------------------------===//
// DFT and STFT
//===----------------------------------------------------------------------===//

/// The DFT of `length` (truncating or zero-padding) of complex samples
/// (re, im) by its definition, in double.
std::vector<std::pair<double, double>>
dftOracle(const std::vector<std::pair<double, double>> &x, int64_t length,
          bool inverse) {
  std::vector<std::pair<double, double>> y(length);
  for (int64_t k = 0; k < length; ++k) {
    double re = 0, im = 0;
    for (int64_t t = 0; t < std::min<int64_t>(length, x.size()); ++t) {
      double a = (inverse ? 2 : -2) * M_PI * k * t / length;
      re += x[t].first * std::cos(a) - x[t].second * std::sin(a);
      im += x[t].first * std::sin(a) + x[t].second * std::cos(a);
    }
    y[k] = inverse ? std::make_pair(re / length, im / length)
                   : std::make_pair(re, im);
  }
  return y;
}

struct DftCase {
  Shape x;
  int64_t axis, length;
  bool inverse, onesided;
};

class ImportDft : public ::testing::TestWithParam<DftCase> {};

TEST_P(ImportDft, MatchesTheSum) {
  const DftCase &c = GetParam();
  ModelBuilder b(17);
  b.input("x", {c.x.begin(), c.x.end()});
  if (c.length)
    b.int64Initializer("length", {}, {c.length});
  onnx::NodeProto &n = c.length ? b.node("DFT", {"x", "length"}, {"y"}, "dft")
                                : b.node("DFT", {"x"}, {"y"}, "dft");
  setInt(n, "axis", c.axis);
  setInt(n, "inverse", c.inverse);
  setInt(n, "onesided", c.onesided);
  b.output("y");
  std::vector<float> x = randomData(product(c.x), 31);
  auto got = importAndRun(b, {Tensor::fromValues<float>(DType::F32, c.x, x)});
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  int64_t n0 = c.x[c.axis], length = c.length ? c.length : n0;
  int64_t bins = c.onesided ? length / 2 + 1 : length;
  int64_t complexParts = c.x.back();
  // Strides of x and y (y: the axis has `bins` entries, the last 2).
  Shape outShape(c.x);
  outShape[c.axis] = bins;
  outShape.back() = 2;
  ASSERT_EQ((*got)[0].getShape(), llvm::ArrayRef<int64_t>(outShape));
  auto strides = [](const Shape &s) {
    Shape st(s.size(), 1);
    for (int64_t i = s.size() - 2; i >= 0; --i)
      st[i] = st[i + 1] * s[i + 1];
    return st;
  };
  Shape xs = strides(c.x), ys = strides(outShape);
  // Every line along the axis: the other indices, last axis fixed at 0.
  for (int64_t line = 0; line < product(c.x) / (n0 * complexParts); ++line) {
    int64_t xBase = 0, yBase = 0;
    for (int64_t rest = line, d = c.x.size() - 2; d >= 0; --d) {
      if (d == c.axis)
        continue;
      xBase += (rest % c.x[d]) * xs[d];
      yBase += (rest % c.x[d]) * ys[d];
      rest /= c.x[d];
    }
    std::vector<std::pair<double, double>> signal;
    for (int64_t t = 0; t < n0; ++t) {
      const float *v = &x[xBase + t * xs[c.axis]];
      signal.emplace_back(v[0], complexParts == 2 ? v[1] : 0.0);
    }
    auto want = dftOracle(signal, length, c.inverse);
    for (int64_t k = 0; k < bins; ++k) {
      const float *v = &(*got)[0].values<float>()[yBase + k * ys[c.axis]];
      EXPECT_NEAR(v[0], want[k].first, 1e-4) << "line " << line << " bin " << k;
      EXPECT_NEAR(v[1], want[k].second, 1e-4)
          << "line " << line << " bin " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Signals, ImportDft,
    ::testing::Values(DftCase{{2, 12, 1}, 1, 0, false, false},
                      DftCase{{2, 12, 1}, 1, 0, false, true},
                      DftCase{{1, 5, 9, 2}, 2, 0, true, false},
                      DftCase{{1, 5, 9, 2}, 1, 0, false, false},
                      DftCase{{3, 10, 2}, 1, 16, false, true},
                      DftCase{{3, 10, 1}, 1, 6, false, false}));

TEST(ImportStft, MatchesWindowedFrameDfts) {
  int64_t length = 16, step = 5, samples = 64;
  ModelBuilder b(17);
  b.input("signal", {2, samples, 1}).input("window", {length});
  b.int64Initializer("step", {}, {step});
  b.node("STFT", {"signal", "step", "window"}, {"y"}, "stft");
  b.output("y");
  std::vector<float> signal = randomData(2 * samples, 41),
                     window = randomData(length, 42);
  auto got = importAndRun(
      b, {Tensor::fromValues<float>(DType::F32, {2, samples, 1}, signal),
          Tensor::fromValues<float>(DType::F32, {length}, window)});
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  int64_t frames = (samples - length) / step + 1, bins = length / 2 + 1;
  ASSERT_EQ((*got)[0].getShape(),
            llvm::ArrayRef<int64_t>({2, frames, bins, 2}));
  for (int64_t batch = 0; batch < 2; ++batch)
    for (int64_t fr = 0; fr < frames; ++fr) {
      std::vector<std::pair<double, double>> frame;
      for (int64_t t = 0; t < length; ++t)
        frame.emplace_back(signal[batch * samples + fr * step + t] * window[t],
                           0.0);
      auto want = dftOracle(frame, length, false);
      for (int64_t k = 0; k < bins; ++k) {
        const float *v =
            &(*got)[0].values<float>()[((batch * frames + fr) * bins + k) * 2];
        EXPECT_NEAR(v[0], want[k].first, 1e-4);
        EXPECT_NEAR(v[1], want[k].second, 1e-4);
      }
    }
}

} // namespace
} // namespace kiln
