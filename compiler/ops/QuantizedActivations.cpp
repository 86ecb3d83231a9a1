//===- QuantizedActivations.cpp - TFLM's int8 softmax, logistic, tanh ----===//
//
// gemmlowp's fixed-point exp / logistic / tanh (fixedpoint/fixedpoint.h)
// written out on raw int32 values: a FixedPoint<int32_t, I> is its raw value
// with 31 - I fractional bits, `*` is SaturatingRoundingDoublingHighMul and
// Rescale<D> from I is a saturating shift by I - D. The constants are
// gemmlowp's raw values.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/QuantizedActivations.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::tfl {

namespace {
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

int32_t mul(int32_t a, int32_t b) {
  return saturatingRoundingDoublingHighMul(a, b);
}

/// gemmlowp Add / Sub / Neg on int32: plain, wrapping where TFLite has UB.
int32_t add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) +
                              static_cast<uint32_t>(b));
}
int32_t sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) -
                              static_cast<uint32_t>(b));
}

/// SaturatingRoundingMultiplyByPOT<exponent> for exponent > 0.
int32_t saturatingShiftLeft(int32_t x, int exponent) {
  const int32_t threshold = (1 << (31 - exponent)) - 1;
  if (x > threshold)
    return kInt32Max;
  if (x < -threshold)
    return kInt32Min;
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

/// exp_on_interval_between_negative_one_quarter_and_0_excl, Q0.31 -> Q0.31.
int32_t expOnIntervalNegQuarterTo0(int32_t a) {
  const int32_t constantTerm = 1895147668;    // exp(-1/8)
  const int32_t constant1Over3 = 715827883;   // 1/3
  const int32_t x = add(a, 1 << 28);          // a + 1/8
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4Over4 = roundingDivideByPOT(x4, 2);
  const int32_t x4Over24PlusX3Over6PlusX2Over2 =
      roundingDivideByPOT(add(mul(add(x4Over4, x3), constant1Over3), x2), 1);
  return add(constantTerm,
             mul(constantTerm, add(x, x4Over24PlusX3Over6PlusX2Over2)));
}

/// exp_on_negative_values for a Q(integerBits).(31 - integerBits) input a <= 0;
/// the result is Q0.31. integerBits is 4 (logistic) or 5 (softmax, tanh).
int32_t expOnNegativeValues(int32_t a, int integerBits) {
  const int fractionalBits = 31 - integerBits;
  const int32_t oneQuarter = 1 << (fractionalBits - 2);
  const int32_t mask = oneQuarter - 1;
  const int32_t aModQuarterMinusOneQuarter = sub(a & mask, oneQuarter);
  // Rescale<0>: exact here, since the value is in [-1/4, 0).
  int32_t result = expOnIntervalNegQuarterTo0(
      saturatingShiftLeft(aModQuarterMinusOneQuarter, integerBits));
  const int32_t remainder = sub(aModQuarterMinusOneQuarter, a);

  // GEMMLOWP_EXP_BARREL_SHIFTER: exp(-2^e) for e = -2 .. 4.
  static const int32_t kMultipliers[] = {1672461947, 1302514674, 790015084,
                                         290630308,  39332535,   720401,
                                         242};
  for (int exponent = -2; exponent <= 4; ++exponent) {
    if (integerBits <= exponent)
      continue;
    const int shiftAmount = fractionalBits + exponent;
    if (remainder & (1 << shiftAmount))
      result = mul(result, kMultipliers[exponent + 2]);
  }
  // (The clamp to 0 below -32 only exists for integerBits > 5.)
  if (a == 0)
    result = kInt32Max; // FixedPoint<int32_t, 0>::One()
  return result;
}

/// gemmlowp RoundingHalfSum on int32.
int32_t roundingHalfSum(int32_t a, int32_t b) {
  const int64_t sum = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t sign = sum >= 0 ? 1 : -1;
  return static_cast<int32_t>((sum + sign) / 2);
}

/// The Newton-Raphson core shared by one_over_one_plus_x_for_x_in_0_1 and
/// one_minus_x_over_one_plus_x_for_x_in_0_1: returns x ~= 1 / half_denominator
/// in Q2.29.
int32_t reciprocalOfHalfDenominatorQ2(int32_t halfDenominator) {
  const int32_t constant48Over17 = 1515870810;      // Q2.29
  const int32_t constantNeg32Over17 = -1010580540;  // Q2.29
  const int32_t oneQ2 = 1 << 29;
  int32_t x = add(constant48Over17, mul(halfDenominator, constantNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int32_t halfDenominatorTimesX = mul(halfDenominator, x);
    const int32_t oneMinusHalfDenominatorTimesX =
        sub(oneQ2, halfDenominatorTimesX);
    // x * (1 - d*x) is Q4.27; Rescale<2> shifts it left by 2.
    x = add(x, saturatingShiftLeft(mul(x, oneMinusHalfDenominatorTimesX), 2));
  }
  return x;
}

/// one_over_one_plus_x_for_x_in_0_1, Q0.31 -> Q0.31.
int32_t oneOverOnePlusX(int32_t a) {
  const int32_t x = reciprocalOfHalfDenominatorQ2(roundingHalfSum(a, kInt32Max));
  // Rescale<0>(ExactMulByPot<-1>(x)): Q1.30 reinterpretation, shift left 1.
  return saturatingShiftLeft(x, 1);
}

/// one_minus_x_over_one_plus_x_for_x_in_0_1, Q0.31 -> Q0.31.
int32_t oneMinusXOverOnePlusX(int32_t a) {
  const int32_t x = reciprocalOfHalfDenominatorQ2(roundingHalfSum(a, kInt32Max));
  return saturatingShiftLeft(sub(x, 1 << 29), 2); // Rescale<0>(x - 1)
}

/// gemmlowp::logistic for a Q4.27 input; Q0.31 result.
int32_t fixedLogisticQ4(int32_t a) {
  const bool positive = a > 0;
  const int32_t absInput = positive ? a : sub(0, a);
  const int32_t resultIfPositive =
      oneOverOnePlusX(expOnNegativeValues(sub(0, absInput), 4));
  const int32_t resultIfNegative = sub(kInt32Max, resultIfPositive);
  if (a == 0)
    return 1 << 30; // one half
  return positive ? resultIfPositive : resultIfNegative;
}

/// gemmlowp::tanh for a Q4.27 input; Q0.31 result.
int32_t fixedTanhQ4(int32_t a) {
  const bool negative = a < 0;
  const int32_t n = negative ? a : sub(0, a);
  // neg_tanh_on_negative_values: ExactMulByPot<1> makes n a Q5.26 value of
  // 2n with the same raw bits.
  const int32_t t = oneMinusXOverOnePlusX(expOnNegativeValues(n, 5));
  if (a == 0)
    return 0;
  return negative ? sub(0, t) : t;
}

/// CalculateInputRadius (quantization_util.cc), the double version.
int32_t calculateInputRadius(int inputIntegerBits, int inputLeftShift,
                             int totalSignedBits = 31) {
  const double maxInputRescaled =
      1.0 * ((1 << inputIntegerBits) - 1) *
      static_cast<double>(1LL << (totalSignedBits - inputIntegerBits)) /
      std::ldexp(1.0, inputLeftShift);
  return static_cast<int32_t>(std::floor(maxInputRescaled));
}

/// The logistic/tanh Prepare: frexp(double(scale) * 2^27) and a Q31 mantissa
/// rounded with TfLiteRound, without QuantizeMultiplier's renormalization. For
/// a float scale the mantissa has 24 bits, so it never rounds up to 2^31.
void prepareQ4Input(float inScale, int32_t &multiplier, int32_t &leftShift,
                    int32_t &radius) {
  constexpr int kInputIntegerBits = 4;
  const double inputRealMultiplier =
      static_cast<double>(inScale) *
      static_cast<double>(1 << (31 - kInputIntegerBits));
  int shift = 0;
  const double q = std::frexp(inputRealMultiplier, &shift);
  multiplier = static_cast<int32_t>(std::round(q * (1LL << 31)));
  leftShift = shift;
  radius = calculateInputRadius(kInputIntegerBits, shift, 31);
}

//===----------------------------------------------------------------------===//
// int16 gemmlowp primitives for HARD_SWISH
//===----------------------------------------------------------------------===//

/// SaturatingRoundingDoublingHighMul, the std::int16_t specialization.
int16_t srdhm16(int16_t a, int16_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int16_t>::min();
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int16_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  const int16_t high = static_cast<int16_t>((ab + nudge) / (1 << 15));
  return overflow ? std::numeric_limits<int16_t>::max() : high;
}

/// RoundingDivideByPOT<std::int16_t>: every intermediate is an int16_t.
int16_t roundingDivideByPOT16(int16_t x, int exponent) {
  const int16_t mask = static_cast<int16_t>((1LL << exponent) - 1);
  const int16_t remainder = static_cast<int16_t>(x & mask);
  const int16_t threshold =
      static_cast<int16_t>(static_cast<int16_t>(mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>(static_cast<int16_t>(x >> exponent) +
                              (remainder > threshold ? 1 : 0));
}

/// reference_ops::SaturatingLeftShift (hard_swish.h).
int16_t saturatingLeftShift16(int16_t value, int amount) {
  int64_t result = static_cast<int64_t>(value) * (int64_t{1} << amount);
  result = std::min<int64_t>(result, std::numeric_limits<int16_t>::max());
  result = std::max<int64_t>(result, std::numeric_limits<int16_t>::min());
  return static_cast<int16_t>(result);
}

/// reference_ops::SaturatingDoublingHighMul (hard_swish.h): like SRDHM but
/// truncating toward zero.
int16_t saturatingDoublingHighMul16(int16_t a, int16_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int16_t>::min();
  const int32_t ab = static_cast<int32_t>(a) * static_cast<int32_t>(b);
  const int16_t high = static_cast<int16_t>(ab / (1 << 15));
  return overflow ? std::numeric_limits<int16_t>::max() : high;
}

/// DownScaleInt32ToInt16Multiplier (common.h).
int16_t downScaleInt32ToInt16Multiplier(int32_t m) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (m >= kInt32Max - kRoundingOffset)
    return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((m + kRoundingOffset) >> 16);
}
} // namespace

//===----------------------------------------------------------------------===//
// SOFTMAX
//===----------------------------------------------------------------------===//

SoftmaxParams prepareSoftmaxInt8(float beta, float inScale) {
  constexpr int kScaledDiffIntegerBits = 5;
  // PreprocessSoftmaxScaling, non-TFLITE_SINGLE_ROUNDING.
  const double maxRealMultiplier = (1LL << 31) - 1.0;
  const double inputBetaRealMultiplier =
      std::min<double>(static_cast<double>(beta) * static_cast<double>(inScale) *
                           (1 << (31 - kScaledDiffIntegerBits)),
                       maxRealMultiplier);
  const QuantizedMultiplier m = quantizeMultiplier(inputBetaRealMultiplier);
  SoftmaxParams p;
  p.inputMultiplier = m.multiplier;
  p.inputLeftShift = m.shift;
  // op_data->diff_min = -1.0 * CalculateInputRadius(...), stored as int32.
  p.diffMin = static_cast<int32_t>(
      -1.0 * calculateInputRadius(kScaledDiffIntegerBits, p.inputLeftShift));
  return p;
}

int32_t softmaxExpOfDiff(const SoftmaxParams &p, int32_t inputDiff) {
  constexpr int kScaledDiffIntegerBits = 5;
  // MultiplyByQuantizedMultiplierGreaterThanOne then exp, in Q0.31; the
  // left shift cannot overflow for diffs >= diffMin, by construction of the
  // radius. (TFLM rejects beta * scale <= 2^-26, where the shift would be
  // negative; it is taken as 0 here rather than left undefined.)
  const int leftShift = std::max<int32_t>(p.inputLeftShift, 0);
  const int32_t rescaled = saturatingRoundingDoublingHighMul(
      static_cast<int32_t>(static_cast<uint32_t>(inputDiff) << leftShift),
      p.inputMultiplier);
  return expOnNegativeValues(rescaled, kScaledDiffIntegerBits);
}

void softmaxInt8(const SoftmaxParams &p, const int8_t *in, int8_t *out,
                 int64_t depth) {
  constexpr int kAccumulationIntegerBits = 12;
  int8_t maxInRow = std::numeric_limits<int8_t>::min();
  for (int64_t c = 0; c < depth; ++c)
    maxInRow = std::max(maxInRow, in[c]);

  auto expOfDiff = [&](int32_t inputDiff) {
    return softmaxExpOfDiff(p, inputDiff);
  };

  int32_t sumOfExps = 0; // Q12.19
  for (int64_t c = 0; c < depth; ++c) {
    const int32_t inputDiff = static_cast<int32_t>(in[c]) - maxInRow;
    if (inputDiff >= p.diffMin)
      sumOfExps = add(sumOfExps, roundingDivideByPOT(expOfDiff(inputDiff),
                                                     kAccumulationIntegerBits));
  }

  // GetReciprocal (common.h).
  const uint32_t sumBits = static_cast<uint32_t>(sumOfExps);
  const int headroomPlusOne = sumBits == 0 ? 32 : __builtin_clz(sumBits);
  const int numBitsOverUnit = kAccumulationIntegerBits - headroomPlusOne;
  const int32_t shiftedSumMinusOne = static_cast<int32_t>(
      (headroomPlusOne >= 32 ? 0u : (sumBits << headroomPlusOne)) -
      (static_cast<uint32_t>(1) << 31));
  const int32_t shiftedScale = oneOverOnePlusX(shiftedSumMinusOne);

  // TFLM's TFLITE_CHECK(0 <= exponent && exponent <= 31) aborts once the sum
  // of exponentials reaches 512 (e.g. 512 equal maxima in a row); every
  // probability is then at most 1/512, and these rows give -128 here.
  const int exponent = numBitsOverUnit + 31 - 8;
  for (int64_t c = 0; c < depth; ++c) {
    const int32_t inputDiff = static_cast<int32_t>(in[c]) - maxInRow;
    if (inputDiff >= p.diffMin && exponent <= 31) {
      const int32_t unsatOutput =
          roundingDivideByPOT(mul(shiftedScale, expOfDiff(inputDiff)), exponent);
      const int32_t shiftedOutput = unsatOutput - 128;
      out[c] = static_cast<int8_t>(std::max(-128, std::min(shiftedOutput, 127)));
    } else {
      out[c] = std::numeric_limits<int8_t>::min();
    }
  }
}

//===----------------------------------------------------------------------===//
// LOGISTIC and TANH
//===----------------------------------------------------------------------===//

namespace {

Q4InputParams prepareQ4InputInt8(float inScale, int32_t inZp) {
  Q4InputParams p;
  p.inputZeroPoint = inZp;
  prepareQ4Input(inScale, p.inputMultiplier, p.inputLeftShift,
                 p.inputRangeRadius);
  return p;
}

/// The shared input stage, `fixedQ4` on the Q4.27 value, then a rounding
/// shift by `outShift` and `outOffset` added.
int8_t q4Activation(const Q4InputParams &p, int8_t x,
                    int32_t (*fixedQ4)(int32_t), int outShift,
                    int32_t outOffset) {
  const int32_t input = static_cast<int32_t>(x) - p.inputZeroPoint;
  if (input <= -p.inputRangeRadius)
    return std::numeric_limits<int8_t>::min();
  if (input >= p.inputRangeRadius)
    return std::numeric_limits<int8_t>::max();
  const int32_t inputInQ4 = multiplyByQuantizedMultiplier(
      input, {p.inputMultiplier, p.inputLeftShift});
  const int32_t out = roundingDivideByPOT(fixedQ4(inputInQ4), outShift);
  return static_cast<int8_t>(std::min(std::max(out + outOffset, -128), 127));
}

} // namespace

LogisticParams prepareLogisticInt8(float inScale, int32_t inZp) {
  return prepareQ4InputInt8(inScale, inZp);
}

int8_t logisticInt8(const LogisticParams &p, int8_t x) {
  return q4Activation(p, x, fixedLogisticQ4, 31 - 8, -128);
}

TanhParams prepareTanhInt8(float inScale, int32_t inZp) {
  return prepareQ4InputInt8(inScale, inZp);
}

int8_t tanhInt8(const TanhParams &p, int8_t x) {
  return q4Activation(p, x, fixedTanhQ4, 31 - 7, 0);
}

//===----------------------------------------------------------------------===//
// HARD_SWISH
//===----------------------------------------------------------------------===//

HardSwishParams prepareHardSwishInt8(float inScale, int32_t inZp,
                                     float outScale, int32_t outZp) {
  HardSwishParams p;
  p.inputZeroPoint = inZp;
  p.outputZeroPoint = outZp;
  const float hiresInputScale = (1.0f / 128.0f) * inScale;
  const float reluishScale = 3.0f / 32768.0f;
  const QuantizedMultiplier out =
      quantizeMultiplier(static_cast<double>(hiresInputScale / outScale));
  p.outputMultiplierFixedpointInt16 =
      downScaleInt32ToInt16Multiplier(out.multiplier);
  p.outputMultiplierExponent = out.shift; // TFLM requires <= 0.
  const QuantizedMultiplier reluish =
      quantizeMultiplier(static_cast<double>(hiresInputScale / reluishScale));
  p.reluishMultiplierFixedpointInt16 =
      downScaleInt32ToInt16Multiplier(reluish.multiplier);
  p.reluishMultiplierExponent = reluish.shift;
  return p;
}

int8_t hardSwishInt8(const HardSwishParams &p, int8_t x) {
  const int16_t inputValue = static_cast<int16_t>(x - p.inputZeroPoint);
  const int16_t inputValueOnHiresInputScale =
      static_cast<int16_t>(inputValue * (1 << 7));
  const int16_t inputValueOnPreshiftOutputScale = srdhm16(
      inputValueOnHiresInputScale, p.outputMultiplierFixedpointInt16);
  int16_t reluishValue = inputValueOnHiresInputScale;
  if (p.reluishMultiplierExponent > 0)
    reluishValue =
        saturatingLeftShift16(reluishValue, p.reluishMultiplierExponent - 1);
  reluishValue = srdhm16(reluishValue, p.reluishMultiplierFixedpointInt16);
  if (p.reluishMultiplierExponent > 0)
    reluishValue = saturatingLeftShift16(reluishValue, 1);
  if (p.reluishMultiplierExponent < 0)
    reluishValue =
        roundingDivideByPOT16(reluishValue, -p.reluishMultiplierExponent);
  // [-1, 1] -> [0, 1] in Q0.15.
  reluishValue = static_cast<int16_t>((reluishValue + (1 << 15)) >> 1);
  const int16_t preshiftOutputValue = saturatingDoublingHighMul16(
      reluishValue, inputValueOnPreshiftOutputScale);
  int16_t outputValue =
      roundingDivideByPOT16(preshiftOutputValue, -p.outputMultiplierExponent);
  outputValue = static_cast<int16_t>(outputValue + p.outputZeroPoint);
  outputValue = std::min<int16_t>(outputValue, 127);
  outputValue = std::max<int16_t>(outputValue, -128);
  return static_cast<int8_t>(outputValue);
}

} // namespace kiln::tfl
