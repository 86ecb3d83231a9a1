//===- IntegerMath.cpp - TFLite Micro's int8 requantization arithmetic ----===//
//
// Each function names the TFLM / TFLite / gemmlowp function it reproduces; the
// order and types of the floating-point steps are theirs, since a different
// order changes the 31-bit multiplier and with it the output bits.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/IntegerMath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::tfl {

namespace {
constexpr int32_t kInt8Min = std::numeric_limits<int8_t>::min();
constexpr int32_t kInt8Max = std::numeric_limits<int8_t>::max();

int8_t clampToInt8(int32_t v, int32_t lo = kInt8Min, int32_t hi = kInt8Max) {
  return static_cast<int8_t>(std::min(hi, std::max(lo, v)));
}

/// Two's-complement wrap of a 64-bit value to 32 bits, the result TFLite's
/// int32 accumulators give on the targets it runs on.
int32_t wrapToInt32(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}
} // namespace

//===----------------------------------------------------------------------===//
// Requantization primitives
//===----------------------------------------------------------------------===//

QuantizedMultiplier quantizeMultiplier(double realMultiplier) {
  // QuantizeMultiplier, quantization_util.cc (non-TFLITE_EMULATE_FLOAT path).
  if (realMultiplier == 0.)
    return {0, 0};
  // A ratio of scales that overflowed (float's, as TFLite computes some):
  // larger than any double, so that callers' range checks reject it.
  if (!std::isfinite(realMultiplier))
    return {1 << 30, std::numeric_limits<double>::max_exponent + 1};
  int shift = 0;
  const double q = std::frexp(realMultiplier, &shift);
  // TfLiteRound is std::round: half away from zero.
  int64_t qFixed = static_cast<int64_t>(std::round(q * (1LL << 31)));
  if (qFixed == (1LL << 31)) {
    qFixed /= 2;
    ++shift;
  }
  // Everything would be shifted out: TFLite flushes such multipliers to zero.
  if (shift < -31) {
    shift = 0;
    qFixed = 0;
  }
  return {static_cast<int32_t>(qFixed), shift};
}

int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  // gemmlowp fixedpoint.h, the std::int32_t specialization.
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  // C++ division truncates toward zero, which with the nudge above rounds
  // ties toward +infinity.
  const int32_t high = static_cast<int32_t>((ab + nudge) / (1LL << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : high;
}

int32_t roundingDivideByPOT(int32_t x, int exponent) {
  // gemmlowp fixedpoint.h RoundingDivideByPOT, scalar form.
  const int32_t mask = static_cast<int32_t>((1LL << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t multiplyByQuantizedMultiplier(int32_t x, QuantizedMultiplier m) {
  // MultiplyByQuantizedMultiplier(int32_t, int32_t, int), common.cc, the
  // double-rounding branch.
  const int leftShift = m.shift > 0 ? m.shift : 0;
  const int rightShift = m.shift > 0 ? 0 : -m.shift;
  const int32_t shifted =
      static_cast<int32_t>(static_cast<uint32_t>(x) << leftShift);
  return roundingDivideByPOT(
      saturatingRoundingDoublingHighMul(shifted, m.multiplier), rightShift);
}

QuantizedMultiplier convMultiplier(float inScale, float weightScale,
                                   float outScale) {
  const double effective = static_cast<double>(inScale) *
                           static_cast<double>(weightScale) /
                           static_cast<double>(outScale);
  return quantizeMultiplier(effective);
}

QuantizedMultiplier fullyConnectedMultiplier(float inScale, float weightScale,
                                             float outScale) {
  // GetQuantizedConvolutionMultipler: the input*filter product is a float.
  const double inputProductScale = static_cast<double>(inScale * weightScale);
  return quantizeMultiplier(inputProductScale / static_cast<double>(outScale));
}

//===----------------------------------------------------------------------===//
// Fused activation clamp
//===----------------------------------------------------------------------===//

namespace {
/// The Quantize helper of kernel_util.cc: zp + TfLiteRound(f / scale), in
/// float.
int32_t quantizeBound(float scale, int32_t zeroPoint, float f) {
  const float tmp = std::round(f / scale);
  const float lo = static_cast<float>(std::numeric_limits<int32_t>::min());
  const float hi = static_cast<float>(std::numeric_limits<int32_t>::max());
  if (!(tmp >= lo))
    return kInt8Min;
  if (!(tmp < hi))
    return kInt8Max;
  return static_cast<int32_t>(std::max<int64_t>(
      std::numeric_limits<int32_t>::min(),
      std::min<int64_t>(std::numeric_limits<int32_t>::max(),
                        static_cast<int64_t>(zeroPoint) +
                            static_cast<int64_t>(tmp))));
}
} // namespace

ActivationRange quantizedActivationRange(FusedActivation act, float outScale,
                                         int32_t outZeroPoint) {
  // CalculateActivationRangeQuantizedImpl, kernel_util.cc.
  ActivationRange r;
  switch (act) {
  case FusedActivation::None:
    break;
  case FusedActivation::Relu:
    r.min = std::max(kInt8Min, quantizeBound(outScale, outZeroPoint, 0.0f));
    break;
  case FusedActivation::Relu6:
    r.min = std::max(kInt8Min, quantizeBound(outScale, outZeroPoint, 0.0f));
    r.max = std::min(kInt8Max, quantizeBound(outScale, outZeroPoint, 6.0f));
    break;
  case FusedActivation::ReluN1To1:
    r.min = std::max(kInt8Min, quantizeBound(outScale, outZeroPoint, -1.0f));
    r.max = std::min(kInt8Max, quantizeBound(outScale, outZeroPoint, 1.0f));
    break;
  }
  return r;
}

//===----------------------------------------------------------------------===//
// ADD / SUB
//===----------------------------------------------------------------------===//

AddParams prepareAdd(float in1Scale, int32_t in1Zp, float in2Scale,
                     int32_t in2Zp, float outScale, int32_t outZp,
                     bool subtract) {
  AddParams p;
  p.input1Offset = -in1Zp;
  p.input2Offset = -in2Zp;
  p.outputOffset = outZp;
  p.leftShift = 20;
  p.subtract = subtract;
  double real1, real2, realOut;
  if (!subtract) {
    // CalculateOpDataAdd: everything in double.
    const double twiceMaxInputScale =
        2 * static_cast<double>(std::max(in1Scale, in2Scale));
    real1 = static_cast<double>(in1Scale) / twiceMaxInputScale;
    real2 = static_cast<double>(in2Scale) / twiceMaxInputScale;
    realOut = twiceMaxInputScale /
              ((1 << p.leftShift) * static_cast<double>(outScale));
  } else {
    // CalculateOpDataSub: the scale arithmetic is float.
    const float twiceMaxInputScale = 2 * std::max(in1Scale, in2Scale);
    real1 = static_cast<double>(in1Scale / twiceMaxInputScale);
    real2 = static_cast<double>(in2Scale / twiceMaxInputScale);
    realOut = static_cast<double>(twiceMaxInputScale /
                                  ((1 << p.leftShift) * outScale));
  }
  // QuantizeMultiplierSmallerThanOneExp is QuantizeMultiplier plus checks.
  p.input1 = quantizeMultiplier(real1);
  p.input2 = quantizeMultiplier(real2);
  p.output = quantizeMultiplier(realOut);
  return p;
}

int8_t addInt8(const AddParams &p, int8_t a, int8_t b, ActivationRange r) {
  // MultiplyByQuantizedMultiplierSmallerThanOneExp equals
  // MultiplyByQuantizedMultiplier for the shift <= 0 that Prepare guarantees.
  const int32_t shifted1 = (p.input1Offset + a) * (1 << p.leftShift);
  const int32_t shifted2 = (p.input2Offset + b) * (1 << p.leftShift);
  const int32_t scaled1 = multiplyByQuantizedMultiplier(shifted1, p.input1);
  const int32_t scaled2 = multiplyByQuantizedMultiplier(shifted2, p.input2);
  const int32_t raw = p.subtract ? scaled1 - scaled2 : scaled1 + scaled2;
  const int32_t out =
      multiplyByQuantizedMultiplier(raw, p.output) + p.outputOffset;
  return clampToInt8(out, r.min, r.max);
}

//===----------------------------------------------------------------------===//
// MUL
//===----------------------------------------------------------------------===//

MulParams prepareMul(float in1Scale, int32_t in1Zp, float in2Scale,
                     int32_t in2Zp, float outScale, int32_t outZp) {
  MulParams p;
  p.input1ZeroPoint = in1Zp;
  p.input2ZeroPoint = in2Zp;
  p.outputZeroPoint = outZp;
  const double real = static_cast<double>(in1Scale) *
                      static_cast<double>(in2Scale) /
                      static_cast<double>(outScale);
  p.output = quantizeMultiplier(real);
  return p;
}

int8_t mulInt8(const MulParams &p, int8_t a, int8_t b, ActivationRange r) {
  const int32_t v1 = a - p.input1ZeroPoint;
  const int32_t v2 = b - p.input2ZeroPoint;
  const int32_t out =
      p.outputZeroPoint + multiplyByQuantizedMultiplier(v1 * v2, p.output);
  return clampToInt8(out, r.min, r.max);
}

//===----------------------------------------------------------------------===//
// QUANTIZE / DEQUANTIZE
//===----------------------------------------------------------------------===//

int8_t quantizeToInt8(float x, float scale, int32_t zeroPoint) {
  const float rounded = std::round(x / scale);
  if (std::isnan(rounded))
    return clampToInt8(zeroPoint);
  // Clamp in double, as TFLite's AffineQuantize does, so that huge values
  // saturate instead of overflowing the int32 conversion.
  const double unclamped =
      static_cast<double>(rounded) + static_cast<double>(zeroPoint);
  const double clamped =
      std::min(std::max(unclamped, static_cast<double>(kInt8Min)),
               static_cast<double>(kInt8Max));
  return static_cast<int8_t>(clamped);
}

float dequantizeInt8(int8_t q, float scale, int32_t zeroPoint) {
  return scale * static_cast<float>(q - zeroPoint);
}

RequantizeParams prepareRequantize(float inScale, int32_t inZp, float outScale,
                                   int32_t outZp) {
  RequantizeParams p;
  p.inputZeroPoint = inZp;
  p.outputZeroPoint = outZp;
  p.multiplier = quantizeMultiplier(static_cast<double>(inScale) /
                                    static_cast<double>(outScale));
  return p;
}

int8_t requantizeInt8(const RequantizeParams &p, int8_t x) {
  const int32_t input = x - p.inputZeroPoint;
  return clampToInt8(multiplyByQuantizedMultiplier(input, p.multiplier) +
                     p.outputZeroPoint);
}

//===----------------------------------------------------------------------===//
// RELU and LEAKY_RELU
//===----------------------------------------------------------------------===//

ReluParams prepareReluInt8(float inScale, int32_t inZp, float outScale,
                           int32_t outZp, float lo, float hi) {
  ReluParams p;
  p.inputZeroPoint = inZp;
  p.outputZeroPoint = outZp;
  p.multiplier = quantizeMultiplier(static_cast<double>(inScale / outScale));
  p.range.min = std::max(kInt8Min, quantizeBound(outScale, outZp, lo));
  p.range.max = std::min(kInt8Max, quantizeBound(outScale, outZp, hi));
  return p;
}

int8_t reluInt8(const ReluParams &p, int8_t x) {
  return clampToInt8(p.outputZeroPoint + multiplyByQuantizedMultiplier(
                                             x - p.inputZeroPoint, p.multiplier),
                     p.range.min, p.range.max);
}

LeakyReluParams prepareLeakyReluInt8(float inScale, int32_t inZp,
                                     float outScale, int32_t outZp,
                                     float alpha) {
  LeakyReluParams p;
  p.inputZeroPoint = inZp;
  p.outputZeroPoint = outZp;
  p.alpha = quantizeMultiplier(static_cast<double>(inScale * alpha / outScale));
  p.identity = quantizeMultiplier(static_cast<double>(inScale / outScale));
  return p;
}

int8_t leakyReluInt8(const LeakyReluParams &p, int8_t x) {
  const int32_t input = x - p.inputZeroPoint;
  return clampToInt8(p.outputZeroPoint +
                     multiplyByQuantizedMultiplier(
                         input, input >= 0 ? p.identity : p.alpha));
}

//===----------------------------------------------------------------------===//
// AVERAGE_POOL_2D and MEAN
//===----------------------------------------------------------------------===//

int32_t averagePoolRound(int32_t sum, int32_t count) {
  return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

MeanParams prepareMeanInt8(float inScale, int32_t inZp, float outScale,
                           int32_t outZp, int64_t numElementsInAxes) {
  MeanParams p;
  p.count = numElementsInAxes;
  p.inputZeroPoint = inZp;
  p.outputZeroPoint = outZp;
  // EvalIntegerMean compares the float scales exactly.
  p.sameQuantization = inZp == outZp && inScale == outScale;
  // PrepareMeanOrSumHelper.
  QuantizedMultiplier m = quantizeMultiplier(static_cast<double>(inScale) /
                                             static_cast<double>(outScale));
  if (!p.sameQuantization && p.count > 0) {
    // QuantizedMeanOrSum with compute_sum == false.
    int shift = 0;
    for (uint64_t n = static_cast<uint64_t>(p.count); n > 1; n >>= 1)
      ++shift; // 63 - CountLeadingZeros(count) == floor(log2(count))
    shift = std::min(shift, 32);
    shift = std::min(shift, 31 + m.shift);
    m.multiplier = static_cast<int32_t>(
        (static_cast<int64_t>(m.multiplier) << shift) / p.count);
    m.shift -= shift;
  }
  p.multiplier = m;
  return p;
}

int8_t meanInt8(const MeanParams &p, int64_t sumOfInputs) {
  if (p.count <= 0)
    return 0; // Both TFLM paths leave the zero-initialized output.
  const int32_t sum = wrapToInt32(sumOfInputs);
  if (p.sameQuantization) {
    // reference_ops::Mean<int8_t, int32_t>: temp_sum / int32(count).
    return static_cast<int8_t>(sum / static_cast<int32_t>(p.count));
  }
  const int32_t shiftedSum =
      wrapToInt32(static_cast<int64_t>(sum) -
                  static_cast<int64_t>(p.inputZeroPoint) * p.count);
  return clampToInt8(multiplyByQuantizedMultiplier(shiftedSum, p.multiplier) +
                     p.outputZeroPoint);
}

} // namespace kiln::tfl
