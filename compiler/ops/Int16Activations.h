//===- Int16Activations.h - TFLite's int16 logistic and tanh -*- C++ -*-===//
//
// The int16 -> int16 LOGISTIC and TANH of TFLite's reference kernels
// (reference/integer_ops/logistic.h and tanh.h): a 256-entry table of the
// sigmoid, interpolated, for an input in fixed point (Q3.12 at the power-of-
// two scale TFLite's integer LSTM uses) to a Q0.15 result. TFLite Micro's
// integer LSTM gates run through these.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_INT16ACTIVATIONS_H
#define KILN_OPS_INT16ACTIVATIONS_H

#include <cstdint>

namespace kiln::tfl {

/// sigmoid(i / 24) for i in [0, 256) in unsigned Q0.16, as TFLite's
/// sigmoid_table_uint16 (kernels/internal/common.h, the same as CMSIS-NN's
/// arm_nntables.c). Its entries are not a plain rounding of the sigmoid, so
/// they are data.
extern const uint16_t kSigmoidTableQ16[256];

/// The input scaling of both: x * multiplier, plus half of 2^leftShift,
/// arithmetically shifted right by leftShift. A multiplier of 0 means 3 <<
/// leftShift with no shift (the power-of-two case).
struct Int16ActivationInput {
  int32_t multiplier = 0;
  int32_t leftShift = 0;
};

/// The LSTM's tanh of a value at scale 2^scalePower (lstm_eval.cc's Tanh):
/// leftShift = 15 + scalePower - 3, or multiplier 3 with the negated shift
/// where that is negative.
Int16ActivationInput tanhInputForScalePower(int32_t scalePower);

/// reference_integer_ops::Logistic(int16): the scaled input's magnitude
/// indexes the table in steps of 2^9, interpolated by its low 9 bits, mirrored
/// for negative inputs, then rounded to Q0.15. Saturates from index 255.
int16_t logisticInt16(Int16ActivationInput p, int16_t x);

/// reference_integer_ops::Tanh(int16): tanh(x) = 2 sigmoid(2x) - 1 on the same
/// table in steps of 2^8, to Q0.15.
int16_t tanhInt16(Int16ActivationInput p, int16_t x);

} // namespace kiln::tfl

#endif // KILN_OPS_INT16ACTIVATIONS_H
