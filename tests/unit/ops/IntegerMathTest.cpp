//===- IntegerMathTest.cpp - TFLite Micro int8 arithmetic -----------------===//
//
// Three kinds of oracle, none of them this code:
//  - golden values of TFLite's and TFLM's own unit tests (file named at each
//    test), with their quantization parameters and the tolerance the upstream
//    test itself uses;
//  - exact integer formulas written independently (128-bit floor division)
//    for the rounding primitives;
//  - the float formula of each op, within one quantization step, swept over
//    every int8 input.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/IntegerMath.h"
#include "tests/unit/ops/TflmTestHelpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

namespace kiln::tfl {
namespace {

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

/// Round to nearest of x / 2^e, ties away from zero, by 128-bit floor
/// division.
int64_t roundHalfAwayPow2(__int128 x, int e) {
  const __int128 d = static_cast<__int128>(1) << e;
  const __int128 ax = x < 0 ? -x : x;
  const __int128 r = (ax + d / 2) / d;
  return static_cast<int64_t>(x < 0 ? -r : r);
}
/// floor(x / 2^e + 1/2): ties toward +infinity.
int64_t roundHalfUpPow2(__int128 x, int e) {
  const __int128 d = static_cast<__int128>(1) << e;
  __int128 n = x + d / 2;
  __int128 qt = n / d;
  if (n % d != 0 && n < 0)
    --qt;
  return static_cast<int64_t>(qt);
}

//===----------------------------------------------------------------------===//
// QuantizeMultiplier: tensorflow/lite/kernels/internal/quantization_util_test.cc
//===----------------------------------------------------------------------===//

void expectQm(double d, int32_t m, int32_t s) {
  const QuantizedMultiplier got = quantizeMultiplier(d);
  EXPECT_EQ(got.multiplier, m) << "for " << d;
  EXPECT_EQ(got.shift, s) << "for " << d;
}

TEST(QuantizeMultiplier, UpstreamSmallerThanOneExp) {
  expectQm(0.25, 1073741824, -1);
  expectQm(0.50 - 5e-9, 2147483627, -1);
  expectQm(0.50 - 1e-10, 1073741824, 0); // mantissa rounded up to 2^31
  expectQm(0.50, 1073741824, 0);
  expectQm(0.75, 1610612736, 0);
  expectQm(1 - 1e-9, 2147483646, 0);
}

TEST(QuantizeMultiplier, UpstreamGreaterThanOne) {
  expectQm(1 + 1e-11, 1073741824, 1);
  expectQm(1.25, 1342177280, 1);
  expectQm(1.50, 1610612736, 1);
  expectQm(1.75, 1879048192, 1);
  expectQm(2 - 1e-9, 2147483647, 1);
  expectQm(2 - 1e-11, 1073741824, 2);
  expectQm(2, 1073741824, 2);
}

TEST(QuantizeMultiplier, UpstreamUnderflowFlushesBelowTwoToMinus31) {
  expectQm(std::ldexp(1.0f, -31), 1073741824, -30);
  expectQm(std::ldexp(1.0f, -32), 1073741824, -31);
  expectQm(std::ldexp(0.99f, -32), 0, 0);
  expectQm(std::ldexp(1.0f, -33), 0, 0);
}

TEST(QuantizeMultiplier, UpstreamArrayIncludingZeroAndNegatives) {
  const double w[] = {-4, -2, -1, -0.5, -0.25, -0.125, 0,
                      0.125, 0.25, 0.5, 1, 2, 4};
  const int32_t shifts[] = {3, 2, 1, 0, -1, -2, 0, -2, -1, 0, 1, 2, 3};
  for (int i = 0; i < 13; ++i)
    expectQm(w[i], w[i] == 0 ? 0 : (w[i] < 0 ? -1073741824 : 1073741824),
             shifts[i]);
}

//===----------------------------------------------------------------------===//
// SRDHM, RoundingDivideByPOT, MultiplyByQuantizedMultiplier
//===----------------------------------------------------------------------===//

TEST(FixedPoint, SaturatingRoundingDoublingHighMulEdges) {
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kI32Min, kI32Min), kI32Max);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kI32Min, kI32Max), -kI32Max);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kI32Max, kI32Max), kI32Max - 1);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);
  // Exact halves: ties go toward +infinity (VQRDMULH), not away from zero.
  EXPECT_EQ(saturatingRoundingDoublingHighMul(1, 1 << 30), 1);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-1, 1 << 30), 0);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-3, 1 << 30), -1);
}

TEST(FixedPoint, SaturatingRoundingDoublingHighMulMatchesExactRounding) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int32_t> any(kI32Min, kI32Max);
  for (int i = 0; i < 200000; ++i) {
    const int32_t a = any(rng), b = any(rng);
    if (a == kI32Min && b == kI32Min)
      continue;
    const __int128 ab = static_cast<__int128>(a) * b;
    ASSERT_EQ(saturatingRoundingDoublingHighMul(a, b), roundHalfUpPow2(ab, 31))
        << a << " * " << b;
  }
}

TEST(FixedPoint, RoundingDivideByPOTIsHalfAwayFromZero) {
  EXPECT_EQ(roundingDivideByPOT(5, 1), 3);
  EXPECT_EQ(roundingDivideByPOT(-5, 1), -3);
  EXPECT_EQ(roundingDivideByPOT(-4, 1), -2);
  EXPECT_EQ(roundingDivideByPOT(6, 2), 2);
  EXPECT_EQ(roundingDivideByPOT(-6, 2), -2);
  EXPECT_EQ(roundingDivideByPOT(-7, 2), -2);
  EXPECT_EQ(roundingDivideByPOT(-5, 2), -1);
  EXPECT_EQ(roundingDivideByPOT(123, 0), 123);
  EXPECT_EQ(roundingDivideByPOT(kI32Min, 31), -1);
  EXPECT_EQ(roundingDivideByPOT(kI32Max, 31), 1);
  EXPECT_EQ(roundingDivideByPOT(-(1 << 30), 31), -1);
  EXPECT_EQ(roundingDivideByPOT((1 << 30) - 1, 31), 0);
  std::mt19937 rng(2);
  std::uniform_int_distribution<int32_t> any(kI32Min, kI32Max);
  for (int i = 0; i < 100000; ++i) {
    const int32_t x = any(rng);
    const int e = i % 32;
    ASSERT_EQ(roundingDivideByPOT(x, e), roundHalfAwayPow2(x, e))
        << x << " >> " << e;
  }
}

TEST(MultiplyByQuantizedMultiplier, UpstreamInt32Goldens) {
  // quantization_util_test.cc, MultiplyByQuantizedMultiplierInt32.
  auto qm = [](int32_t x, double m) {
    return multiplyByQuantizedMultiplier(x, quantizeMultiplier(m));
  };
  EXPECT_EQ(qm(0, 0.1), 0);
  EXPECT_EQ(qm(1, 0), 0);
  EXPECT_EQ(qm(10000, 0.00097656), 10);
  EXPECT_EQ(qm(10000, -0.00097656), -10);
  EXPECT_EQ(qm(-10000, 0.00097656), -10);
  EXPECT_EQ(qm(-10000, -0.00097656), 10);
  EXPECT_EQ(qm(kI32Min, 0.00001), -21475);
  EXPECT_EQ(qm(kI32Min, -0.00001), 21475);
  EXPECT_EQ(qm(kI32Max, 0.00001), 21475);
  EXPECT_EQ(qm(kI32Max, -0.00001), -21475);
  const int32_t expected = static_cast<int32_t>(std::round(
      static_cast<double>(static_cast<int64_t>(kI32Max) * kI32Max) /
      static_cast<double>(1LL << 34)));
  EXPECT_EQ(multiplyByQuantizedMultiplier(kI32Max, {kI32Max, -3}), expected);
  EXPECT_EQ(multiplyByQuantizedMultiplier(-kI32Max, {kI32Max, -3}), -expected);
}

TEST(MultiplyByQuantizedMultiplier, MatchesDoubleRoundingFormula) {
  // Independent restatement: round-half-up of x * 2^left * M / 2^31, then
  // round-half-away by 2^right. Covers left shifts, right shifts up to 31 and
  // multipliers whose real value is below 2^-31.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> small(-(1 << 20), 1 << 20);
  std::uniform_int_distribution<int32_t> mant(1 << 30, kI32Max);
  for (int i = 0; i < 100000; ++i) {
    const int shift = (i % 40) - 31; // -31 .. 8
    const int32_t x = small(rng) >> (shift > 0 ? shift : 0);
    const int32_t m = mant(rng);
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const int64_t high = roundHalfUpPow2(
        static_cast<__int128>(static_cast<int64_t>(x) * (int64_t(1) << left)) * m, 31);
    ASSERT_EQ(multiplyByQuantizedMultiplier(x, {m, shift}),
              roundHalfAwayPow2(high, right))
        << x << " " << m << " " << shift;
  }
  // A multiplier below 2^-31 is flushed and gives 0 for every input.
  const QuantizedMultiplier tiny = quantizeMultiplier(std::ldexp(1.0, -40));
  EXPECT_EQ(multiplyByQuantizedMultiplier(kI32Max, tiny), 0);
  EXPECT_EQ(multiplyByQuantizedMultiplier(kI32Min, tiny), 0);
}

//===----------------------------------------------------------------------===//
// Conv / FC multipliers and the activation clamp
//===----------------------------------------------------------------------===//

TEST(ConvMultiplier, PerChannelScalesThousandfoldApart) {
  const float in = 0.02f, out = 0.05f;
  const float w[] = {0.0004f, 0.4f};
  for (float ws : w) {
    const QuantizedMultiplier m = convMultiplier(in, ws, out);
    const double real = double(in) * double(ws) / double(out);
    // A 31-bit mantissa: within 2^-30 relative of the real multiplier.
    EXPECT_NEAR(std::ldexp(double(m.multiplier), m.shift - 31), real,
                real * std::ldexp(1.0, -30));
    EXPECT_GE(m.multiplier, 1 << 30);
  }
  EXPECT_EQ(convMultiplier(in, w[0], out).shift + 10,
            convMultiplier(in, w[1], out).shift);
  // 100 * real: the same value times ~1000 through the per-channel path.
  EXPECT_EQ(multiplyByQuantizedMultiplier(100000, convMultiplier(in, w[0], out)),
            16);
  EXPECT_EQ(multiplyByQuantizedMultiplier(100, convMultiplier(in, w[1], out)),
            16);
}

TEST(ConvMultiplier, FullyConnectedPerTensorTakesTheProductInFloat) {
  // Scales where float(in * w) rounds: the two TFLM formulas give different
  // multipliers, and each matches its own formula.
  const float in = 0.0235294122f, w = 0.0043f, out = 0.0470588244f;
  EXPECT_EQ(fullyConnectedMultiplier(in, w, out),
            quantizeMultiplier(double(in * w) / double(out)));
  EXPECT_EQ(convMultiplier(in, w, out),
            quantizeMultiplier(double(in) * double(w) / double(out)));
  EXPECT_NE(fullyConnectedMultiplier(in, w, out), convMultiplier(in, w, out));
}

TEST(ActivationRange, Int8Bounds) {
  using A = FusedActivation;
  auto r = quantizedActivationRange(A::None, 0.1f, 5);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, 127);
  r = quantizedActivationRange(A::Relu, 0.1f, -128);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, 127);
  r = quantizedActivationRange(A::Relu6, 0.1f, -128);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, -68);
  r = quantizedActivationRange(A::ReluN1To1, 0.1f, -128);
  EXPECT_EQ(r.min, -128); // -138 clamped
  EXPECT_EQ(r.max, -118);
  r = quantizedActivationRange(A::Relu, 0.1f, 127);
  EXPECT_EQ(r.min, 127);
  EXPECT_EQ(r.max, 127);
  r = quantizedActivationRange(A::Relu6, 0.05f, 10);
  EXPECT_EQ(r.min, 10);
  EXPECT_EQ(r.max, 127); // 130 clamped
  // +-1 / 2 = +-0.5 rounds away from zero.
  r = quantizedActivationRange(A::ReluN1To1, 2.0f, 0);
  EXPECT_EQ(r.min, -1);
  EXPECT_EQ(r.max, 1);
  // A bound far outside int32 saturates instead of overflowing.
  r = quantizedActivationRange(A::ReluN1To1, 1e-20f, 0);
  EXPECT_EQ(r.min, -128);
  EXPECT_EQ(r.max, 127);
}

//===----------------------------------------------------------------------===//
// ADD and SUB: tensorflow/lite/micro/kernels/add_test.cc, sub_test.cc
// (tolerance 1e-5 on int8, i.e. exact)
//===----------------------------------------------------------------------===//

struct BinaryCase {
  float s1; int z1; float s2; int z2; float so; int zo;
  std::vector<float> in1, in2, golden;
  FusedActivation act = FusedActivation::None;
};

void expectAddExact(const BinaryCase &c, bool subtract) {
  const AddParams p = prepareAdd(c.s1, c.z1, c.s2, c.z2, c.so, c.zo, subtract);
  const ActivationRange r = quantizedActivationRange(c.act, c.so, c.zo);
  for (size_t i = 0; i < c.golden.size(); ++i) {
    const float b = c.in2.size() == 1 ? c.in2[0] : c.in2[i];
    EXPECT_EQ(addInt8(p, q8(c.in1[i], c.s1, c.z1), q8(b, c.s2, c.z2), r),
              q8(c.golden[i], c.so, c.zo))
        << "element " << i;
  }
}

TEST(Add, UpstreamGoldens) {
  const std::vector<float> a4 = {-2.01f, -1.01f, -0.01f, 0.98f};
  const std::vector<float> b4 = {1.01f, 1.99f, 2.99f, 4.02f};
  expectAddExact({0.25f, -10, 0.5f, 4, 1.0f, 13, a4, b4, {-1, 1, 3, 5}},
                 false); // QuantizedAddNoActivationInt8
  expectAddExact({0.25f, -10, 0.5f, 4, 1.0f, 13, a4, b4, {-1, 1, 1, 1},
                  FusedActivation::ReluN1To1},
                 false); // QuantizedAddActivationRelu1Int8
  const std::vector<float> a6 = {-2.0f, 0.2f, 0.7f, 0.8f, 1.1f, 2.0f};
  expectAddExact({0.1f, -9, 0.05f, 5, 0.1f, 14, a6,
                  {0.1f, 0.2f, 0.3f, 0.5f, 1.1f, 0.1f},
                  {-1.9f, 0.4f, 1.0f, 1.3f, 2.2f, 2.1f}},
                 false); // QuantizedAddVariousInputShapesInt8
  expectAddExact({0.1f, -8, 0.05f, 4, 0.05f, 12, a6, {0.1f},
                  {-1.9f, 0.3f, 0.8f, 0.9f, 1.2f, 2.1f}},
                 false); // QuantizedAddWithScalarBroadcastInt8
}

TEST(Add, UpstreamMixedBroadcastGolden) {
  // QuantizedAddWithMixedBroadcastInt8, first shape: [2,3,1,2] + [1,1,3,2].
  const float in1[] = {-0.3f, 2.3f, 0.9f, 0.5f, 0.8f, -1.1f,
                       1.2f,  2.8f, -1.6f, 0.0f, 0.7f, -2.2f};
  const float in2[] = {0.2f, 0.3f, -0.4f, 0.5f, 1.0f, 0.9f};
  const float golden[] = {-0.1, 2.6,  -0.7, 2.8,  0.7,  3.2,  1.1, 0.8,  0.5,
                          1.0,  1.9,  1.4,  1.0,  -0.8, 0.4,  -0.6, 1.8, -0.2,
                          1.4,  3.1,  0.8,  3.3,  2.2,  3.7,  -1.4, 0.3, -2.0,
                          0.5,  -0.6, 0.9,  0.9,  -1.9, 0.3,  -1.7, 1.7, -1.3};
  const AddParams p = prepareAdd(0.1f, -10, 0.05f, -5, 0.1f, 7, false);
  int o = 0;
  for (int bi = 0; bi < 6; ++bi)   // batch x rows of input1
    for (int j = 0; j < 3; ++j)    // the broadcast axis
      for (int k = 0; k < 2; ++k, ++o)
        EXPECT_EQ(addInt8(p, q8(in1[bi * 2 + k], 0.1f, -10),
                          q8(in2[j * 2 + k], 0.05f, -5), {}),
                  q8(golden[o], 0.1f, 7))
            << "output " << o;
}

TEST(Sub, UpstreamGoldens) {
  const std::vector<float> a4 = {-2.01f, -1.01f, -0.01f, 0.98f};
  const std::vector<float> b4 = {-1.01f, -1.99f, -2.99f, -4.02f};
  expectAddExact({0.25f, -10, 0.5f, 4, 1.0f, 13, a4, b4, {-1, 1, 3, 5}},
                 true); // QuantizedSubNoActivationInt8
  expectAddExact({0.25f, -10, 0.5f, 4, 1.0f, 13, a4, b4, {-1, 1, 1, 1},
                  FusedActivation::ReluN1To1},
                 true); // QuantizedSubActivationRelu1Int8
  const std::vector<float> a6 = {-2.0f, 0.2f, 0.7f, 0.8f, 1.1f, 2.0f};
  expectAddExact({0.1f, -9, 0.05f, 5, 0.1f, 14, a6,
                  {-0.1f, -0.2f, -0.3f, -0.5f, -1.1f, -0.1f},
                  {-1.9f, 0.4f, 1.0f, 1.3f, 2.2f, 2.1f}},
                 true); // QuantizedSubVariousInputShapesInt8
  expectAddExact({0.1f, -8, 0.05f, 4, 0.05f, 12, a6, {-0.1f},
                  {-1.9f, 0.3f, 0.8f, 0.9f, 1.2f, 2.1f}},
                 true); // QuantizedSubWithScalarBroadcastInt8
}

TEST(Sub, PrepareIsFloatWhereAddIsDouble) {
  // sub_common.cc divides in float, add_common.cc in double.
  const float s1 = 0.0378f, s2 = 0.0123f, so = 0.0517f;
  const AddParams add = prepareAdd(s1, 0, s2, 0, so, 0, false);
  const AddParams sub = prepareAdd(s1, 0, s2, 0, so, 0, true);
  const float twiceF = 2 * s1;
  EXPECT_EQ(sub.input2, quantizeMultiplier(double(s2 / twiceF)));
  EXPECT_EQ(add.input2, quantizeMultiplier(double(s2) / (2 * double(s1))));
  EXPECT_NE(sub.input2, add.input2);
  EXPECT_EQ(sub.output,
            quantizeMultiplier(double(twiceF / ((1 << 20) * so))));
}

TEST(AddSub, WithinOneStepOfFloatForEveryInputPair) {
  const float s1 = 0.07f, s2 = 0.013f, so = 0.09f;
  for (int z : {-128, 0, 127}) {
    for (bool subtract : {false, true}) {
      const AddParams p = prepareAdd(s1, z, s2, -z / 2, so, -z, subtract);
      for (int a = -128; a <= 127; ++a)
        for (int b = -128; b <= 127; b += 3) {
          const double x = s1 * (a - z), y = s2 * (b + z / 2);
          const double real = (subtract ? x - y : x + y) / so - z;
          const double want = std::min(127.0, std::max(-128.0, real));
          ASSERT_NEAR(addInt8(p, a, b, {}), want, 1.0)
              << a << (subtract ? " - " : " + ") << b << " zp " << z;
        }
    }
  }
}

//===----------------------------------------------------------------------===//
// MUL: tensorflow/lite/micro/kernels/mul_test.cc (tolerance 1)
//===----------------------------------------------------------------------===//

TEST(Mul, UpstreamGoldens) {
  const MulParams simple = prepareMul(0.01f, 0, 0.01f, 0, 0.01f, 0);
  const float a[] = {-0.8f, 0.2f, 0.9f, 0.7f}, b[] = {0.6f, 0.4f, 0.9f, 0.8f};
  const float g[] = {-0.48f, 0.08f, 0.81f, 0.56f};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(mulInt8(simple, q8(a[i], 0.01f, 0), q8(b[i], 0.01f, 0), {}),
                q8(g[i], 0.01f, 0), 1);
  const MulParams bc = prepareMul(0.05f, 0, 0.05f, 0, 0.01f, 0);
  const float a6[] = {-2.0f, 0.2f, 0.7f, 0.8f, 1.1f, 2.0f};
  const float g6[] = {-0.2f, 0.02f, 0.07f, 0.08f, 0.11f, 0.2f};
  for (int i = 0; i < 6; ++i)
    EXPECT_NEAR(mulInt8(bc, q8(a6[i], 0.05f, 0), q8(0.1f, 0.05f, 0), {}),
                q8(g6[i], 0.01f, 0), 1);
}

TEST(Mul, WithinOneStepOfFloatAndSaturates) {
  const float s1 = 0.05f, s2 = 0.021f, so = 0.3f;
  for (int z : {-128, 3, 127}) {
    const MulParams p = prepareMul(s1, z, s2, -z, so, z / 2);
    for (int a = -128; a <= 127; ++a)
      for (int b = -128; b <= 127; b += 5) {
        const double real = s1 * (a - z) * s2 * (b + z) / so + z / 2;
        ASSERT_NEAR(mulInt8(p, a, b, {}),
                    std::min(127.0, std::max(-128.0, real)), 1.0);
      }
  }
  const MulParams p = prepareMul(1.0f, 0, 1.0f, 0, 1.0f, 0);
  EXPECT_EQ(mulInt8(p, 127, 127, {}), 127);
  EXPECT_EQ(mulInt8(p, -128, 127, {}), -128);
}

//===----------------------------------------------------------------------===//
// QUANTIZE / DEQUANTIZE / requantize
//===----------------------------------------------------------------------===//

TEST(Quantize, RoundsHalfAwayFromZeroAndSaturates) {
  EXPECT_EQ(quantizeToInt8(0.25f, 0.5f, 0), 1);
  EXPECT_EQ(quantizeToInt8(-0.25f, 0.5f, 0), -1);
  EXPECT_EQ(quantizeToInt8(0.75f, 0.5f, 0), 2);
  EXPECT_EQ(quantizeToInt8(-0.75f, 0.5f, 0), -2);
  EXPECT_EQ(quantizeToInt8(1000.f, 0.5f, 0), 127);
  EXPECT_EQ(quantizeToInt8(-1e30f, 0.5f, 0), -128);
  EXPECT_EQ(quantizeToInt8(0.f, 0.5f, 127), 127);
  EXPECT_EQ(quantizeToInt8(1.f, 0.5f, 127), 127);
  EXPECT_EQ(quantizeToInt8(-1.f, 0.5f, 127), 125);
  EXPECT_EQ(quantizeToInt8(0.f, 0.5f, -128), -128);
  EXPECT_EQ(quantizeToInt8(-1.f, 0.5f, -128), -128);
  EXPECT_EQ(quantizeToInt8(std::nanf(""), 0.5f, 7), 7);
  EXPECT_FLOAT_EQ(dequantizeInt8(-128, 0.5f, -128), 0.f);
  EXPECT_FLOAT_EQ(dequantizeInt8(127, 0.5f, -128), 127.5f);
  EXPECT_FLOAT_EQ(dequantizeInt8(-128, 0.25f, 127), -63.75f);
  for (int v = -128; v <= 127; ++v)
    EXPECT_EQ(quantizeToInt8(dequantizeInt8(v, 0.037f, 9), 0.037f, 9), v);
}

TEST(Requantize, UpstreamGoldens) {
  // tensorflow/lite/micro/kernels/quantize_test.cc, QuantizeOpTestInt8toInt8
  // and ...NoZeroPoint (exact).
  const float v1[] = {-64, -62, -60, -58, -56, 54, 56, 58, 60, 62};
  const RequantizeParams p1 = prepareRequantize(2.f, 0, 0.5f, 32);
  for (float v : v1)
    EXPECT_EQ(requantizeInt8(p1, q8(v, 2.f, 0)), q8(v, 0.5f, 32)) << v;
  const float v2[] = {-32, -31, -30, -29, -28, 27, 28, 29, 30, 31};
  const RequantizeParams p2 = prepareRequantize(1.f, 0, 0.5f, 0);
  for (float v : v2)
    EXPECT_EQ(requantizeInt8(p2, q8(v, 1.f, 0)), q8(v, 0.5f, 0)) << v;
}

TEST(Requantize, WithinOneStepOfFloatAtExtremeZeroPoints) {
  for (int zi : {-128, 127})
    for (int zo : {-128, 127}) {
      const RequantizeParams p = prepareRequantize(0.0371f, zi, 0.0113f, zo);
      for (int v = -128; v <= 127; ++v) {
        const double real = 0.0371f * (v - zi) / 0.0113f + zo;
        ASSERT_NEAR(requantizeInt8(p, v),
                    std::min(127.0, std::max(-128.0, real)), 1.0);
      }
    }
}

//===----------------------------------------------------------------------===//
// AVERAGE_POOL_2D: tensorflow/lite/micro/kernels/pooling_test.cc
//===----------------------------------------------------------------------===//

TEST(AveragePool, UpstreamGoldenAndRounding) {
  // SimpleAveragePoolTestInt8PaddingValidStride2ActNone: 2x4 input, 2x2
  // windows, stride 2, golden {-1, 3}.
  EXPECT_EQ(averagePoolRound(0 + -24 + 12 + 8, 4), -1);
  EXPECT_EQ(averagePoolRound(8 + 16 + -40 + 28, 4), 3);
  EXPECT_EQ(averagePoolRound(6, 4), 2);   // 1.5
  EXPECT_EQ(averagePoolRound(-6, 4), -2); // -1.5
  EXPECT_EQ(averagePoolRound(-2, 4), -1); // -0.5
  EXPECT_EQ(averagePoolRound(5, 4), 1);
  EXPECT_EQ(averagePoolRound(-5, 4), -1);
  EXPECT_EQ(averagePoolRound(0, 9), 0);
  EXPECT_EQ(averagePoolRound(-128 * 9, 9), -128);
  EXPECT_EQ(averagePoolRound(127 * 9 - 4, 9), 127);
}

//===----------------------------------------------------------------------===//
// MEAN: tensorflow/lite/micro/kernels/reduce_test.cc (tolerance 1)
//===----------------------------------------------------------------------===//

TEST(Mean, UpstreamSameQuantizationTruncates) {
  // MeanInt84DWithoutKeepDimsWithPrecision: scale 0.5, zp 0 in and out,
  // [2,2,3,1] over axes 1,2; golden {11.166667, 19.833334} -> {22, 40}.
  const MeanParams p = prepareMeanInt8(0.5f, 0, 0.5f, 0, 6);
  EXPECT_TRUE(p.sameQuantization);
  const float b0[] = {1, 24, 13, 3, 9, 17}, b1[] = {11, 36, 14, 19, 17, 22};
  int64_t s0 = 0, s1 = 0;
  for (int i = 0; i < 6; ++i) {
    s0 += q8(b0[i], 0.5f, 0);
    s1 += q8(b1[i], 0.5f, 0);
  }
  EXPECT_NEAR(meanInt8(p, s0), q8(11.166667f, 0.5f, 0), 1);
  EXPECT_NEAR(meanInt8(p, s1), q8(19.833334f, 0.5f, 0), 1);
  // reference_ops::Mean divides by truncation: 238 / 6 = 39.67 gives 39.
  EXPECT_EQ(meanInt8(p, s0), 22);
  EXPECT_EQ(meanInt8(p, s1), 39);
  // MeanInt84DKeepDims: 1..24 over axes 1,2 of [2,2,3,2] -> {6,7,18,19}.
  const MeanParams p4 = prepareMeanInt8(0.5f, 0, 0.5f, 0, 6);
  const float golden[] = {6, 7, 18, 19};
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 2; ++c) {
      int64_t s = 0;
      for (int i = 0; i < 6; ++i)
        s += q8(float(b * 12 + i * 2 + c + 1), 0.5f, 0);
      EXPECT_NEAR(meanInt8(p4, s), q8(golden[b * 2 + c], 0.5f, 0), 1);
    }
  // Negative sums also truncate toward zero.
  EXPECT_EQ(meanInt8(prepareMeanInt8(0.5f, 3, 0.5f, 3, 4), -7), -1);
}

TEST(Mean, RequantizingPath) {
  // As upstream's MeanInt164DWithoutKeepDimsDifferentScaleAndZeroPoint, on
  // int8: output scale 0.7.
  const MeanParams p = prepareMeanInt8(0.5f, 0, 0.7f, 0, 6);
  EXPECT_FALSE(p.sameQuantization);
  const float golden[] = {6, 7, 18, 19};
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 2; ++c) {
      int64_t s = 0;
      for (int i = 0; i < 6; ++i)
        s += q8(float(b * 12 + i * 2 + c + 1), 0.5f, 0);
      EXPECT_NEAR(meanInt8(p, s), q8(golden[b * 2 + c], 0.7f, 0), 1);
    }
  // 1/count is folded into the multiplier: (m << floor(log2 n)) / n.
  const QuantizedMultiplier base = quantizeMultiplier(0.5 / double(0.7f));
  EXPECT_EQ(p.multiplier.shift, base.shift - 2);
  EXPECT_EQ(p.multiplier.multiplier,
            int32_t((int64_t(base.multiplier) << 2) / 6));
  EXPECT_EQ(meanInt8(prepareMeanInt8(0.5f, 0, 0.7f, 0, 0), 100), 0);
}

TEST(Mean, WithinOneStepOfFloatWithExtremeZeroPoints) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> v(-128, 127);
  for (int zi : {-128, 0, 127})
    for (int zo : {-128, 127, 5})
      for (int64_t n : {1, 2, 3, 49, 1000}) {
        const MeanParams p = prepareMeanInt8(0.02f, zi, 0.015f, zo, n);
        for (int t = 0; t < 50; ++t) {
          int64_t s = 0;
          for (int64_t i = 0; i < n; ++i)
            s += v(rng);
          double real = (double(s) / n - zi) * 0.02f / 0.015f + zo;
          real = std::min(127.0, std::max(-128.0, real));
          ASSERT_NEAR(meanInt8(p, s), real, 1.0) << zi << " " << zo << " " << n;
        }
      }
}

//===----------------------------------------------------------------------===//
// RELU, RELU6, LEAKY_RELU
//===----------------------------------------------------------------------===//

TEST(Relu, MultiplierOfTheFloatQuotient) {
  // ReluPrepare: double real_multiplier = input->params.scale /
  // output->params.scale, a float division widened. The double quotient gives
  // another multiplier here, and another result for x - zp = -168.
  const float in = 0.13387446f, out = 0.06136674f;
  const ReluParams p = prepareReluInt8(in, 40, out, 0, -1.0f, 1e30f);
  EXPECT_EQ(p.multiplier, quantizeMultiplier(static_cast<double>(in / out)));
  EXPECT_NE(p.multiplier, quantizeMultiplier(static_cast<double>(in) / out));
  EXPECT_EQ(p.range.min, static_cast<int>(std::round(-1.0f / out)));
  EXPECT_EQ(p.range.max, 127);
}

TEST(Relu, EveryInputWithinHalfAStepOfTheRealClamp) {
  for (auto [in, inZp, out, outZp] :
       {std::tuple{0.05f, -128, 0.02f, -128}, {0.1f, 127, 0.1f, 127},
        {0.02f, 3, 0.03f, -100}}) {
    const ReluParams p = prepareReluInt8(in, inZp, out, outZp, 0.0f, 6.0f);
    for (int v = -128; v <= 127; ++v) {
      const float ref = std::min(6.0f, std::max(0.0f, dequantizeInt8(v, in, inZp)));
      const float got = dequantizeInt8(reluInt8(p, v), out, outZp);
      const float hi = dequantizeInt8(127, out, outZp);
      ASSERT_NEAR(got, std::min(ref, hi), out * 0.5f + 1e-6f) << v;
    }
  }
}

TEST(LeakyRelu, EveryInputWithinOneStep) {
  const float in = 0.05f, out = 0.04f;
  const LeakyReluParams p = prepareLeakyReluInt8(in, 5, out, -10, 0.2f);
  for (int v = -128; v <= 127; ++v) {
    const float x = dequantizeInt8(v, in, 5);
    const float ref = std::min(std::max(x < 0 ? 0.2f * x : x, dequantizeInt8(-128, out, -10)),
                               dequantizeInt8(127, out, -10));
    ASSERT_NEAR(dequantizeInt8(leakyReluInt8(p, v), out, -10), ref, out) << v;
  }
}

//===----------------------------------------------------------------------===//
// QUANTIZE
//===----------------------------------------------------------------------===//

TEST(Quantize, TiesAwayFromZeroNaNToTheZeroPointSaturating) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(quantizeToInt8(0.25f, 0.5f, -3), -2);
  EXPECT_EQ(quantizeToInt8(-0.25f, 0.5f, -3), -4);
  EXPECT_EQ(quantizeToInt8(0.75f, 0.5f, -3), -1);
  EXPECT_EQ(quantizeToInt8(std::nanf(""), 0.5f, -3), -3);
  EXPECT_EQ(quantizeToInt8(inf, 0.5f, -3), 127);
  EXPECT_EQ(quantizeToInt8(-1e30f, 0.5f, -3), -128);
}

} // namespace
} // namespace kiln::tfl
