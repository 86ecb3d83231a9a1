//===- Int16ActivationsTest.cpp - TFLite's int16 logistic and tanh --------===//
//
// Int16Activations.h against values worked out by hand from TFLite's
// reference/integer_ops/logistic.h and tanh.h (the same values the numpy
// oracle tools/tflite_refs/integer_lstm_oracle.py gives), the table's
// published ends, and the real functions over every int16 input.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/Int16Activations.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kiln::tfl {
namespace {

/// Q3.12 in, as the LSTM's gates.
constexpr Int16ActivationInput kQ3_12{};

TEST(Int16Activations, Table) {
  EXPECT_EQ(kSigmoidTableQ16[0], 32768);
  EXPECT_EQ(kSigmoidTableQ16[1], 33451);
  EXPECT_EQ(kSigmoidTableQ16[128], 65221);
  EXPECT_EQ(kSigmoidTableQ16[255], 65535);
  for (int i = 1; i < 256; ++i)
    EXPECT_GE(kSigmoidTableQ16[i], kSigmoidTableQ16[i - 1]) << i;
}

TEST(Int16Activations, LogisticByHand) {
  EXPECT_EQ(logisticInt16(kQ3_12, 0), 16384);
  EXPECT_EQ(logisticInt16(kQ3_12, 4096), 23956);   // sigmoid(1)
  EXPECT_EQ(logisticInt16(kQ3_12, -4096), 8812);   // sigmoid(-1)
  EXPECT_EQ(logisticInt16(kQ3_12, -32768), 11);    // sigmoid(-8)
  EXPECT_EQ(logisticInt16(kQ3_12, 32767), 32757);  // sigmoid(8)
}

TEST(Int16Activations, TanhByHand) {
  const Int16ActivationInput gate = tanhInputForScalePower(-12);
  EXPECT_EQ(gate.multiplier, 0);
  EXPECT_EQ(gate.leftShift, 0);
  EXPECT_EQ(tanhInt16(gate, 0), 0);
  EXPECT_EQ(tanhInt16(gate, 2048), 15143);   // tanh(0.5)
  EXPECT_EQ(tanhInt16(gate, -2048), -15143);
  EXPECT_EQ(tanhInt16(gate, 32767), 32767);
  EXPECT_EQ(tanhInt16(gate, -32768), -32767);
  // A Q0.15 cell state: multiplier 3 and a right shift of 3.
  const Int16ActivationInput q15 = tanhInputForScalePower(-15);
  EXPECT_EQ(q15.multiplier, 3);
  EXPECT_EQ(q15.leftShift, 3);
  EXPECT_EQ(tanhInt16(q15, 32767), 24956);   // tanh(1)
  EXPECT_EQ(tanhInt16(q15, -32768), -24956);
  EXPECT_EQ(tanhInt16(q15, 4), 5);
  // A Q4.11 cell state shifts left by 1.
  EXPECT_EQ(tanhInputForScalePower(-11).leftShift, 1);
}

TEST(Int16Activations, WithinATableStepOfTheRealFunctions) {
  const Int16ActivationInput gate = tanhInputForScalePower(-12);
  for (int32_t x = -32768; x <= 32767; ++x) {
    double real = x / 4096.0;
    EXPECT_NEAR(logisticInt16(kQ3_12, int16_t(x)) / 32768.0, 1 / (1 + std::exp(-real)), 1e-4)
        << x;
    EXPECT_NEAR(tanhInt16(gate, int16_t(x)) / 32768.0, std::tanh(real), 1e-4) << x;
  }
}

} // namespace
} // namespace kiln::tfl
