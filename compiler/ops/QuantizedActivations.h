//===- QuantizedActivations.h - TFLM's int8 softmax, logistic, tanh -*- C++ -*-===//
//
// The int8 -> int8 activations whose TFLite Micro reference kernels compute
// in gemmlowp fixed point: SOFTMAX, LOGISTIC, TANH and HARD_SWISH. These
// follow TFLM, not TFLite: TFLite's own int8 LOGISTIC/TANH/SOFTMAX kernels use
// float-built lookup tables, whose results can differ by a step. TFLM's
// integer path is what microcontroller users (and CMSIS-NN) get.
//
// The output quantization of these ops is fixed by the TFLite int8 spec and is
// not a parameter: SOFTMAX and LOGISTIC output scale 1/256, zero point -128;
// TANH output scale 1/128, zero point 0. HARD_SWISH takes its output params.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_QUANTIZEDACTIVATIONS_H
#define KILN_OPS_QUANTIZEDACTIVATIONS_H

#include "compiler/ops/IntegerMath.h"

#include <cstdint>

namespace kiln::tfl {

/// SOFTMAX, int8 -> int8. Prepare: CalculateSoftmaxParams
/// (micro/kernels/softmax_common.cc) with kScaledDiffIntegerBits = 5, i.e.
/// PreprocessSoftmaxScaling (quantization_util.cc) on double(beta) and
/// double(inScale), and diff_min = -CalculateInputRadius(5, leftShift).
struct SoftmaxParams {
  int32_t inputMultiplier = 0;
  int32_t inputLeftShift = 0;
  int32_t diffMin = 0;
};
SoftmaxParams prepareSoftmaxInt8(float beta, float inScale);
/// reference_ops::Softmax<int8_t, int8_t> (reference/softmax.h) on one row of
/// `depth` values: exp via gemmlowp exp_on_negative_values in Q5.26, the sum in
/// Q12.19, GetReciprocal (common.h) and a rounding shift to 8 bits. TFLM
/// aborts on rows whose sum of exponentials reaches 512.0; those give -128.
/// exp(beta * inScale * inputDiff) in Q0.31 for inputDiff = x - max(row) <= 0
/// (meaningful for inputDiff >= diffMin): what softmaxInt8 sums and scales.
/// A row's diffs are int8 differences, so compiled code tabulates it.
int32_t softmaxExpOfDiff(const SoftmaxParams &p, int32_t inputDiff);
void softmaxInt8(const SoftmaxParams &p, const int8_t *in, int8_t *out,
                 int64_t depth);

/// The input stage LOGISTIC and TANH share: x - zero point, saturated past
/// +-inputRangeRadius, else scaled to Q4.27. Prepare (CalculateArithmeticOp
/// DataLogistic in micro/kernels/logistic_common.cc, and tanh.cc's, with the
/// same formula): frexp of double(inScale) * 2^27 rounded to a Q31 multiplier
/// (no renormalization), and input_range_radius = CalculateInputRadius(4,
/// leftShift, 31).
struct Q4InputParams {
  int32_t inputZeroPoint = 0;
  int32_t inputRangeRadius = 0;
  int32_t inputMultiplier = 0;
  int32_t inputLeftShift = 0;
};
using LogisticParams = Q4InputParams;
using TanhParams = Q4InputParams;

/// LOGISTIC, int8 -> int8.
LogisticParams prepareLogisticInt8(float inScale, int32_t inZp);
/// reference_integer_ops::Logistic (reference/integer_ops/logistic.h): gemmlowp
/// logistic on Q4.27, rounded to Q0.8 and offset by -128.
int8_t logisticInt8(const LogisticParams &p, int8_t x);

/// TANH, int8 -> int8.
TanhParams prepareTanhInt8(float inScale, int32_t inZp);
/// reference_integer_ops::Tanh (reference/integer_ops/tanh.h): gemmlowp tanh on
/// Q4.27, rounded to Q0.7.
int8_t tanhInt8(const TanhParams &p, int8_t x);

/// HARD_SWISH, int8 -> int8. Prepare: HardSwishPrepare
/// (micro/kernels/hard_swish_common.cc): float hires_input_scale = inScale /
/// 128, the output and "reluish" multipliers quantized to 32 bits then
/// DownScaleInt32ToInt16Multiplier'd to 16.
struct HardSwishParams {
  int32_t inputZeroPoint = 0, outputZeroPoint = 0;
  int16_t reluishMultiplierFixedpointInt16 = 0;
  int32_t reluishMultiplierExponent = 0;
  int16_t outputMultiplierFixedpointInt16 = 0;
  int32_t outputMultiplierExponent = 0;
};
HardSwishParams prepareHardSwishInt8(float inScale, int32_t inZp,
                                     float outScale, int32_t outZp);
/// reference_ops::HardSwish<int8_t> (reference/hard_swish.h), int16 fixed
/// point.
int8_t hardSwishInt8(const HardSwishParams &p, int8_t x);

} // namespace kiln::tfl

#endif // KILN_OPS_QUANTIZEDACTIVATIONS_H
