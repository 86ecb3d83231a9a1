//===- IntegerLSTM.h - TFLite Micro's integer LSTM as kiln's LSTM -*- C++ -*-===//
//
// The int8 form of the LSTM op: TFLite Micro's integer sequence LSTM (int8
// activations and weights, an int16 cell state, int32 biases; lstm_eval.h's
// LstmStep with lstm_eval_common.cc's PrepareGateParametersInteger). Each
// gate is a fully connected layer of the step's input plus one of the hidden
// state, both requantized to Q3.12 int16 and added with saturation, then the
// int16 sigmoid or tanh to Q0.15 (Int16Activations.h). The cell state is
// forget * c + input * cell gate, requantized to its power-of-two scale,
// optionally clipped; the hidden state is tanh(c) * output gate,
// requantized to int8.
//
// Operands, in ONNX's places: X int8; W [1, 4H, I] and R [1, 4H, H] int8,
// symmetric, quantized per tensor or per row (axis 1: TFLite quantizes each
// gate's tensor on its own); optional B int32 [1, 8H] (the input gates'
// biases, then the recurrent ones); initial_h int8, whose quantization is the
// hidden state's; initial_c int16 at a power-of-two scale, zero point 0.
// Forward only, no peepholes, clip or sequence lengths. Y takes kQuantAttr;
// Y_h and Y_c the states' types.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_INTEGERLSTM_H
#define KILN_OPS_INTEGERLSTM_H

#include "compiler/ops/Int16Activations.h"
#include "compiler/ops/IntegerMath.h"
#include "compiler/ops/RecurrentShape.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include <optional>
#include <vector>

namespace kiln {

/// Whether `n` is an LSTM in its int8 form (its X is int8).
bool isInt8LSTM(const Node &n);

/// What TFLM's Prepare computes, per node.
struct IntegerLSTMParams {
  RecurrentDims dims;
  int32_t inputZeroPoint = 0, hiddenZeroPoint = 0;
  /// Per row of the stacked gates (ONNX's order i, o, f, c): the input's and
  /// the hidden state's fully connected multipliers to Q3.12.
  std::vector<tfl::QuantizedMultiplier> inputMultipliers, recurrentMultipliers;
  /// forget * c -> c, input * cell gate -> c, tanh(c) * output -> h.
  tfl::QuantizedMultiplier forgetCellMul, inputCellMul, hiddenMul;
  /// The tanh of the cell state at its scale.
  tfl::Int16ActivationInput cellTanh;
  /// kiln.cell_clip at the cell state's scale (TFLM clips only where given).
  std::optional<int16_t> cellClip;
};

/// The gates' tanh input: Q3.12 (lstm_eval.h's Tanh with scale power -12).
tfl::Int16ActivationInput gateTanhInput();

/// TFLM's gate parameters for int8 LSTM `n`, whose types are checked.
IntegerLSTMParams prepareIntegerLSTM(const Node &n);

/// The int8 LSTM's type rule.
llvm::Expected<TypeList> inferLSTMInt8(const Node &n);
/// The int8 LSTM's reference semantics, TFLM's LstmStep over the sequence.
llvm::Error evalLSTMInt8(const Node &n, llvm::ArrayRef<const Tensor *> in,
                         llvm::MutableArrayRef<Tensor> out);

} // namespace kiln

#endif
