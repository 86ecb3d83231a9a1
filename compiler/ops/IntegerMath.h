//===- IntegerMath.h - TFLite Micro's int8 requantization arithmetic -*- C++ -*-===//
//
// The exact integer semantics of TensorFlow Lite Micro's int8 reference
// kernels, so that kiln's reference interpreter and code generator give the
// same bits as TFLM (and CMSIS-NN, which is bit-exact with it). Users file bugs
// for a one-step difference, so nothing here is "close enough": every Prepare
// computation is done in the same types (float vs double) and the same order
// as TFLM's, and every kernel step uses the same rounding.
//
// Conventions followed:
//  - MultiplyByQuantizedMultiplier is the DEFAULT (double-rounding) variant of
//    kernels/internal/common.cc, not TFLITE_SINGLE_ROUNDING.
//  - QuantizeMultiplier is the frexp-based one of quantization_util.cc, not the
//    TFLITE_EMULATE_FLOAT one.
//  - Where TFLite and TFLM differ, this follows TFLM's reference kernels
//    (tensorflow/lite/micro/kernels/*_common.cc), e.g. SUB's Prepare works in
//    float while ADD's works in double; TFLM's MEAN divides by truncation when
//    input and output quantization are equal.
// Where TFLM would abort (a TFLITE_CHECK in Prepare) these functions carry on
// with the same arithmetic; callers validate parameters first.
//
// The activations with fixed-point tables (softmax, logistic, tanh, hard-swish)
// are in QuantizedActivations.h.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_INTEGERMATH_H
#define KILN_OPS_INTEGERMATH_H

#include <cstdint>

namespace kiln::tfl {

//===----------------------------------------------------------------------===//
// Requantization primitives
//===----------------------------------------------------------------------===//

/// TFLite convention: real ~= multiplier * 2^(shift - 31); shift > 0 is a left
/// shift. multiplier is in [2^30, 2^31) for a positive real, 0 for zero.
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int32_t shift = 0;
};
inline bool operator==(QuantizedMultiplier a, QuantizedMultiplier b) {
  return a.multiplier == b.multiplier && a.shift == b.shift;
}
inline bool operator!=(QuantizedMultiplier a, QuantizedMultiplier b) {
  return !(a == b);
}

/// QuantizeMultiplier (quantization_util.cc): frexp, round the Q31 mantissa
/// half away from zero, renormalize a mantissa that rounded up to 2^31, and
/// flush multipliers below ~2^-31 (shift < -31) to {0, 0}. 0 gives {0, 0}; a
/// multiplier that is not finite gives a shift past any double's.
QuantizedMultiplier quantizeMultiplier(double realMultiplier);

/// gemmlowp's SaturatingRoundingDoublingHighMul (ARM VQRDMULH): (a*b + 2^30)
/// >> 31 with ties toward +infinity; INT32_MIN * INT32_MIN saturates to
/// INT32_MAX.
int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b);

/// gemmlowp's RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties
/// away from zero. exponent in [0, 31].
int32_t roundingDivideByPOT(int32_t x, int exponent);

/// MultiplyByQuantizedMultiplier(int32) of common.cc, default rounding:
/// roundingDivideByPOT(SRDHM(x << max(shift, 0), m), max(-shift, 0)). The left
/// shift wraps on overflow (TFLite's is undefined behaviour there).
int32_t multiplyByQuantizedMultiplier(int32_t x, QuantizedMultiplier m);

/// Conv/depthwise per-channel (and per-tensor) multiplier exactly as TFLM's
/// PopulateConvolutionQuantizationParams (kernels/kernel_util.cc) computes it:
/// double(inScale) * double(weightScale) / double(outScale). FULLY_CONNECTED
/// with per-channel weights (fully_connected_common.cc) uses the same formula.
QuantizedMultiplier convMultiplier(float inScale, float weightScale,
                                   float outScale);

/// FULLY_CONNECTED with per-tensor weights: TFLM goes through
/// GetQuantizedConvolutionMultipler, whose product is taken in float:
/// double(inScale * weightScale) / double(outScale). Not the same bits as
/// convMultiplier in general.
QuantizedMultiplier fullyConnectedMultiplier(float inScale, float weightScale,
                                             float outScale);

//===----------------------------------------------------------------------===//
// Fused activation clamp
//===----------------------------------------------------------------------===//

enum class FusedActivation { None, Relu, ReluN1To1, Relu6 };
struct ActivationRange {
  int32_t min = -128, max = 127;
};

/// CalculateActivationRangeQuantized (kernels/kernel_util.cc) for int8: the
/// bounds are zp + round(bound / scale) in float, round half away from zero,
/// intersected with [-128, 127]. (TFLM fails Prepare when round(bound / scale)
/// leaves int32; this saturates it.)
ActivationRange quantizedActivationRange(FusedActivation act, float outScale,
                                         int32_t outZeroPoint);

//===----------------------------------------------------------------------===//
// RELU, RELU6, RELU_N1_TO_1 and LEAKY_RELU
//===----------------------------------------------------------------------===//

/// ReluQuantized (micro/kernels/activations_common.cc, ReluPrepare) with
/// bounds [lo, hi] in real values: x - inZp rescaled by
/// QuantizeMultiplier(double(inScale / outScale)), the quotient in float,
/// + outZp, clamped
/// to the bounds quantized as a fused activation's are. TFLM's RELU6 skips the
/// rescale, assuming equal quantization, where the two agree.
struct ReluParams {
  int32_t inputZeroPoint = 0, outputZeroPoint = 0;
  QuantizedMultiplier multiplier;
  ActivationRange range;
};
ReluParams prepareReluInt8(float inScale, int32_t inZp, float outScale,
                           int32_t outZp, float lo, float hi);
int8_t reluInt8(const ReluParams &p, int8_t x);

/// QuantizeLeakyRelu (reference/leaky_relu.h); Prepare (micro/kernels/
/// leaky_relu_common.cc) takes the multipliers of float inScale * alpha /
/// outScale and inScale / outScale.
struct LeakyReluParams {
  int32_t inputZeroPoint = 0, outputZeroPoint = 0;
  QuantizedMultiplier identity, alpha;
};
LeakyReluParams prepareLeakyReluInt8(float inScale, int32_t inZp,
                                     float outScale, int32_t outZp,
                                     float alpha);
int8_t leakyReluInt8(const LeakyReluParams &p, int8_t x);

//===----------------------------------------------------------------------===//
// ADD / SUB
//===----------------------------------------------------------------------===//

/// Both inputs are brought to a common scale 2*max(s1, s2) / 2^20 with 20 bits
/// of headroom, added (or subtracted), and rescaled to the output.
struct AddParams {
  int32_t input1Offset = 0, input2Offset = 0; // -zero points
  int32_t outputOffset = 0;                   // output zero point
  int32_t leftShift = 20;
  QuantizedMultiplier input1, input2, output;
  bool subtract = false;
};

/// ADD: CalculateOpDataAdd (micro/kernels/add_common.cc), whose
/// twice_max_input_scale and real multipliers are doubles. SUB:
/// CalculateOpDataSub (micro/kernels/sub_common.cc), where twice_max_input_scale
/// and the divisions are float and only the quotients are widened to double.
AddParams prepareAdd(float in1Scale, int32_t in1Zp, float in2Scale,
                     int32_t in2Zp, float outScale, int32_t outZp,
                     bool subtract);
/// AddFunc (reference/integer_ops/add.h) / the element function of
/// BroadcastQuantSubSlow (reference/sub.h).
int8_t addInt8(const AddParams &p, int8_t a, int8_t b, ActivationRange r);

//===----------------------------------------------------------------------===//
// MUL
//===----------------------------------------------------------------------===//

struct MulParams {
  int32_t input1ZeroPoint = 0, input2ZeroPoint = 0, outputZeroPoint = 0;
  QuantizedMultiplier output;
};
/// CalculateOpDataMul (micro/kernels/mul_common.cc): one multiplier
/// double(s1) * double(s2) / double(so).
MulParams prepareMul(float in1Scale, int32_t in1Zp, float in2Scale,
                     int32_t in2Zp, float outScale, int32_t outZp);
/// MulElementwise (reference/integer_ops/mul.h).
int8_t mulInt8(const MulParams &p, int8_t a, int8_t b, ActivationRange r);

//===----------------------------------------------------------------------===//
// QUANTIZE / DEQUANTIZE
//===----------------------------------------------------------------------===//

/// AffineQuantize (reference/quantize.h): round(x / scale) in float, half away
/// from zero, + zeroPoint, saturated to int8. NaN gives the zero point (TFLM
/// leaves it undefined).
int8_t quantizeToInt8(float x, float scale, int32_t zeroPoint);
/// Dequantize (reference/dequantize.h): scale * float(q - zeroPoint).
float dequantizeInt8(int8_t q, float scale, int32_t zeroPoint);

/// QUANTIZE int8 -> int8: PrepareQuantizeReference (micro/kernels/
/// quantize_common.cc) takes QuantizeMultiplier(double(in) / double(out)), and
/// Requantize (reference/requantize.h) applies it to x - inZp.
struct RequantizeParams {
  int32_t inputZeroPoint = 0, outputZeroPoint = 0;
  QuantizedMultiplier multiplier;
};
RequantizeParams prepareRequantize(float inScale, int32_t inZp, float outScale,
                                   int32_t outZp);
int8_t requantizeInt8(const RequantizeParams &p, int8_t x);

//===----------------------------------------------------------------------===//
// AVERAGE_POOL_2D and MEAN
//===----------------------------------------------------------------------===//

/// AveragePool (reference/integer_ops/pooling.h): the window sum of raw int8
/// values divided by the number of in-bounds taps, ties away from zero:
/// (sum +- count/2) / count with C++ truncating division. (No requantization:
/// TFLM's int8 AVERAGE_POOL_2D requires equal input and output quantization.)
/// The caller then clamps to the fused activation range.
int32_t averagePoolRound(int32_t sum, int32_t count);

/// MEAN over some axes, int8 (micro/kernels/reduce_common.cc EvalIntegerMean).
/// TFLM takes one of two paths:
///  - input and output zero point and scale equal: reference_ops::Mean
///    (reference/reduce.h), sum / count with C++ truncating division, no
///    zero-point correction (so e.g. a mean of 39.67 gives 39);
///  - otherwise: reference_ops::QuantizedMeanOrSum, which folds 1/count into
///    QuantizeMultiplier(double(in) / double(out)) as
///    (multiplier << s) / count, s = min(floor(log2(count)), 32, 31 + shift),
///    and applies it to sum - inZp * count.
struct MeanParams {
  bool sameQuantization = false;
  int64_t count = 0;
  int32_t inputZeroPoint = 0, outputZeroPoint = 0;
  QuantizedMultiplier multiplier; // already includes 1/count
};
MeanParams prepareMeanInt8(float inScale, int32_t inZp, float outScale,
                           int32_t outZp, int64_t numElementsInAxes);
/// sumOfInputs is the sum of the raw int8 values of one output's window; TFLM
/// accumulates it in int32 (wrapping). An empty reduction gives 0, as TFLM.
int8_t meanInt8(const MeanParams &p, int64_t sumOfInputs);

} // namespace kiln::tfl

#endif // KILN_OPS_INTEGERMATH_H
