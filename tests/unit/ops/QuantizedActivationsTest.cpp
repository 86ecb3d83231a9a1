//===- QuantizedActivationsTest.cpp - TFLM's int8 SOFTMAX, LOGISTIC, TANH -===//
//
// The gemmlowp fixed-point activations of QuantizedActivations.h against
// golden values of TFLite's and TFLM's own unit tests (file named at each
// section, with the upstream tolerance) and against each op's float formula
// within one quantization step, swept over every int8 input.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/QuantizedActivations.h"
#include "tests/unit/ops/TflmTestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace kiln::tfl {
namespace {

//===----------------------------------------------------------------------===//
// SOFTMAX: tensorflow/lite/micro/kernels/softmax_test.cc (tolerance 1),
// PreprocessSoftmaxScaling goldens of quantization_util_test.cc
//===----------------------------------------------------------------------===//

TEST(Softmax, UpstreamPreprocessSoftmaxScaling) {
  // quantize(2.0, 16.0, 5) and quantize(2.0, 8.0, 5).
  SoftmaxParams p = prepareSoftmaxInt8(2.0f, 16.0f);
  EXPECT_EQ(p.inputMultiplier, 2147483647);
  EXPECT_EQ(p.inputLeftShift, 31);
  EXPECT_EQ(p.diffMin, 0); // CalculateInputRadius(5, 31) = floor(0.97)
  p = prepareSoftmaxInt8(2.0f, 8.0f);
  EXPECT_EQ(p.inputMultiplier, 1073741824);
  EXPECT_EQ(p.inputLeftShift, 31);
}

void expectSoftmaxRows(const std::vector<float> &in,
                       const std::vector<float> &golden) {
  const SoftmaxParams p = prepareSoftmaxInt8(1.0f, 0.1f);
  for (size_t row = 0; row < in.size(); row += 5) {
    int8_t qi[5], qo[5];
    for (int c = 0; c < 5; ++c)
      qi[c] = q8(in[row + c], 0.1f, 0);
    softmaxInt8(p, qi, qo, 5);
    for (int c = 0; c < 5; ++c)
      EXPECT_NEAR(qo[c], q8(golden[row + c], 1.0f / 256, -128), 1)
          << "row " << row / 5 << " column " << c;
  }
}

TEST(Softmax, UpstreamGoldens) {
  // Softmax1D/2D/3DQuantizedInt8ShouldMatchGolden: input scale 0.1, zp 0,
  // beta 1.
  expectSoftmaxRows({1, 2, 3, 4, 5},
                    {0.011656231f, 0.031684921f, 0.086128544f, 0.234121657f,
                     0.636408647f});
  expectSoftmaxRows({-1, -2, -3, -4, -5},
                    {0.636408647f, 0.234121657f, 0.086128544f, 0.031684921f,
                     0.011656231f});
  expectSoftmaxRows(
      {3, 6, -5, 4, -9, -10, -10, -8, 2, 2, 8, -5, -8, 5, -6, -8, 6, 1,
       -10, -8, 7, 6, -10, -4, -5, 2, 7, 9, -9, 7, -4, -2, 8, 2, 2, 3, 6, 6,
       2, 4, 9, 7, -7, 0, 4, -3, 8, 8, -3, -4, -9, -9, 4, -8, -1, -10, -2, 6,
       -7, 0},
      {0.042009463f, 0.843782625f, 0.000014093f, 0.114193561f, 0.000000258f,
       0.000003072f, 0.000003072f, 0.000022699f, 0.499985578f, 0.499985578f,
       0.952571219f, 0.000002153f, 0.000000107f, 0.047425728f, 0.000000792f,
       0.000000826f, 0.993305397f, 0.006692839f, 0.000000112f, 0.000000826f,
       0.731046347f, 0.268936922f, 0.000000030f, 0.000012210f, 0.000004492f,
       0.000717124f, 0.106430599f, 0.786421666f, 0.000000012f, 0.106430599f,
       0.000006114f, 0.000045174f, 0.995015917f, 0.002466398f, 0.002466398f,
       0.022595176f, 0.453836234f, 0.453836234f, 0.008312301f, 0.061420055f,
       0.875505904f, 0.118486839f, 0.000000099f, 0.000108046f, 0.005899112f,
       0.000008351f, 0.499990113f, 0.499990113f, 0.000008351f, 0.000003072f,
       0.000002245f, 0.000002245f, 0.993296627f, 0.000006103f, 0.006692780f,
       0.000000112f, 0.000334520f, 0.997191323f, 0.000002254f, 0.002471790f});
}

TEST(Softmax, CmsisNnExactGolden) {
  // ARM-software/CMSIS-NN Tests/UnitTest/TestCases/TestData/softmax (exact
  // comparison; CMSIS-NN's arm_softmax_s8 is bit-exact with TFLM's
  // reference): 2 rows of 5, multiplier 1077952640, left shift 19,
  // diff_min -3968.
  const SoftmaxParams p{1077952640, 19, -3968};
  const int8_t in[10] = {101, 49, 6, -34, -75, -79, -38, 120, -55, 115};
  const int8_t want[10] = {-57, -70, -79, -86, -92, -94, -88, -54, -91, -56};
  int8_t out[10];
  softmaxInt8(p, in, out, 5);
  softmaxInt8(p, in + 5, out + 5, 5);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(out[i], want[i]) << i;
}

TEST(Softmax, EqualRowsAndTheAbortingCase) {
  const SoftmaxParams p = prepareSoftmaxInt8(1.0f, 0.1f);
  std::vector<int8_t> in(600, 5), out(600);
  softmaxInt8(p, in.data(), out.data(), 256); // exactly 1/256 each
  EXPECT_EQ(out[0], -127);
  EXPECT_EQ(out[255], -127);
  softmaxInt8(p, in.data(), out.data(), 2);
  EXPECT_EQ(out[0], 0); // 1/2 -> 128 - 128
  softmaxInt8(p, in.data(), out.data(), 1);
  EXPECT_EQ(out[0], 127);
  softmaxInt8(p, in.data(), out.data(), 600); // TFLM's CHECK fails here
  EXPECT_EQ(out[0], -128);
}

TEST(Softmax, WithinOneStepOfFloatOnRandomRows) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> v(-128, 127);
  for (float scale : {0.01f, 0.0625f, 0.1f, 0.5f})
    for (float beta : {1.0f, 0.5f}) {
      const SoftmaxParams p = prepareSoftmaxInt8(beta, scale);
      for (int depth : {1, 2, 10, 100}) {
        std::vector<int8_t> in(depth), out(depth);
        for (int t = 0; t < 20; ++t) {
          for (auto &x : in)
            x = static_cast<int8_t>(v(rng));
          softmaxInt8(p, in.data(), out.data(), depth);
          const int mx = *std::max_element(in.begin(), in.end());
          double sum = 0;
          for (int8_t x : in)
            sum += std::exp(double(beta) * scale * (x - mx));
          for (int c = 0; c < depth; ++c) {
            const double prob =
                std::exp(double(beta) * scale * (in[c] - mx)) / sum;
            const double want = std::min(127.0, prob * 256 - 128);
            ASSERT_NEAR(out[c], want, 1.0)
                << "scale " << scale << " beta " << beta << " depth " << depth;
          }
        }
      }
    }
}

//===----------------------------------------------------------------------===//
// LOGISTIC and TANH: tensorflow/lite/micro/kernels/logistic_test.cc
// (tolerance 1), tanh_test.cc (tolerance 2)
//===----------------------------------------------------------------------===//

TEST(Logistic, UpstreamCalculateInputRadius) {
  // CalculateInputRadius(4, 27) = 15 and (4, 2) = 503316480, reached through
  // the scales whose frexp gives those shifts.
  LogisticParams p = prepareLogisticInt8(0.5f, 0);
  EXPECT_EQ(p.inputLeftShift, 27);
  EXPECT_EQ(p.inputRangeRadius, 15);
  EXPECT_EQ(p.inputMultiplier, 1 << 30);
  p = prepareLogisticInt8(std::ldexp(1.0f, -26), 0);
  EXPECT_EQ(p.inputLeftShift, 2);
  EXPECT_EQ(p.inputRangeRadius, 503316480);
}

TEST(Logistic, UpstreamGoldens) {
  // The test quantizes its goldens with scale 1/255 (the kernel's output is
  // 1/256), zp -128.
  const float in1[] = {1, 2, 3, 4, 5, -1, -2, -3, -4, -5};
  const float g1[] = {0.73105858f, 0.88079708f, 0.95257413f, 0.98201379f,
                      0.99330715f, 0.26894142f, 0.11920292f, 0.04742587f,
                      0.01798621f, 0.00669285f};
  const LogisticParams basic = prepareLogisticInt8(0.1f, 0);
  for (int i = 0; i < 10; ++i)
    EXPECT_NEAR(logisticInt8(basic, q8(in1[i], 0.1f, 0)),
                q8(g1[i], 1.0f / 255, -128), 1)
        << in1[i];
  const float in2[] = {1, 2, 3, 4, 93, -1, -2, -3, -4, -93};
  const float g2[] = {0.73105858f, 0.88079708f, 0.95257413f, 0.98201379f, 1.0f,
                      0.26894142f, 0.11920292f, 0.04742587f, 0.01798621f, 0.0f};
  const LogisticParams wide = prepareLogisticInt8(1.0f, 0);
  for (int i = 0; i < 10; ++i)
    EXPECT_NEAR(logisticInt8(wide, q8(in2[i], 1.0f, 0)),
                q8(g2[i], 1.0f / 255, -128), 1)
        << in2[i];
}

TEST(Tanh, UpstreamGoldens) {
  // SimpleTestTanhInt8: 90 points in [-8, 8], input scale 16/256, output
  // quantized with 1.99999955/256, zp 0, tolerance 2.
  const TanhParams p = prepareTanhInt8(16 / 256.f, 0);
  for (int i = 0; i < 90; ++i) {
    const double x = -8.0 + 16.0 * i / 88.0;
    const float xf = static_cast<float>(x);
    EXPECT_NEAR(tanhInt8(p, q8(xf, 16 / 256.f, 0)),
                q8(static_cast<float>(std::tanh(x)), 1.99999955f / 256.f, 0),
                2)
        << x;
  }
}

TEST(LogisticTanh, EveryInputWithinOneStepOfFloat) {
  for (float scale : {0.01f, 0.0625f, 0.1f, 0.5f, 2.0f})
    for (int zp : {-128, 0, 127}) {
      const LogisticParams lp = prepareLogisticInt8(scale, zp);
      const TanhParams tp = prepareTanhInt8(scale, zp);
      for (int v = -128; v <= 127; ++v) {
        const double x = double(scale) * (v - zp);
        const double sig = 1.0 / (1.0 + std::exp(-x));
        ASSERT_NEAR(logisticInt8(lp, v),
                    std::min(127.0, std::max(-128.0, sig * 256 - 128)), 1.0)
            << "logistic scale " << scale << " zp " << zp << " q " << v;
        ASSERT_NEAR(tanhInt8(tp, v),
                    std::min(127.0, std::max(-128.0, std::tanh(x) * 128)), 1.0)
            << "tanh scale " << scale << " zp " << zp << " q " << v;
      }
      EXPECT_EQ(logisticInt8(lp, static_cast<int8_t>(
                                     std::max(-128, std::min(127, zp)))),
                0); // logistic(0) = 1/2 -> 128 - 128
      EXPECT_EQ(tanhInt8(tp, static_cast<int8_t>(zp)), 0);
    }
}

//===----------------------------------------------------------------------===//
// HARD_SWISH: tensorflow/lite/micro/kernels/hard_swish_test.cc
//===----------------------------------------------------------------------===//

TEST(HardSwish, UpstreamRangesEveryInput) {
  // SimpleHardSwishTestInt8 over its min/max pairs (every int8 input instead
  // of 101 random ones). Scale and zero point as ScaleFromMinMax /
  // ZeroPointFromMinMax; tolerance max(range) * 1.5 / 256 as upstream.
  const float pairs[4][2] = {{0.f, 1.f}, {-2.f, 1.f}, {-5.f, 10.f},
                             {-40.f, 60.f}};
  for (auto &ip : pairs)
    for (auto &op : pairs) {
      const float si = (ip[1] - ip[0]) / 255.f, so = (op[1] - op[0]) / 255.f;
      const int zi = -128 + static_cast<int>(-ip[0] / si + 0.5f);
      const int zo = -128 + static_cast<int>(-op[0] / so + 0.5f);
      const float tol = std::max(ip[1] - ip[0], op[1] - op[0]) * (1.5f / 256.f);
      const HardSwishParams p = prepareHardSwishInt8(si, zi, so, zo);
      for (int v = -128; v <= 127; ++v) {
        const float x = dequantizeInt8(v, si, zi);
        float ref = x * std::min(6.0f, std::max(0.0f, x + 3)) * (1.0f / 6.0f);
        ref = std::min(op[1], std::max(op[0], ref));
        ASSERT_NEAR(dequantizeInt8(hardSwishInt8(p, v), so, zo), ref, tol)
            << "in [" << ip[0] << "," << ip[1] << "] out [" << op[0] << ","
            << op[1] << "] q " << v;
      }
    }
}

} // namespace
} // namespace kiln::tfl
