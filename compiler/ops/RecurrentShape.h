//===- RecurrentShape.h - The dimensions of RNN, GRU and LSTM --*- C++ -*-===//
//
// Shared by the recurrent ops' type rule and reference semantics
// (RecurrentOps.cpp), their lowering (compiler/lowering) and the ONNX
// importer: the dimensions, and the activations f, g and h.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_RECURRENTSHAPE_H
#define KILN_OPS_RECURRENTSHAPE_H

#include "compiler/graph/Activation.h"
#include "compiler/graph/Graph.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

struct RecurrentDims {
  int64_t seq, batch, input, hidden, dirs;
  /// Gates per direction: RNN 1, GRU 3, LSTM 4.
  int64_t gates;
  /// 0: X is [seq, batch, input]; 1: [batch, seq, input].
  int64_t layout;
  std::string direction;

  /// Y: [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]).
  Shape outputShape() const;
  /// Y_h, Y_c: [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]).
  Shape stateShape() const;
};

/// Checks a RNN, GRU or LSTM node's inputs and attributes and returns its
/// dimensions, or an error naming the node.
llvm::Expected<RecurrentDims> recurrentDims(const Node &n);

/// The attributes that hold a recurrent op's activations f, g and h (ONNX's
/// `activations`, the same in both directions): RNN has f, GRU f and g,
/// LSTM all three. Each defaults to ONNX's (RNN: Tanh; GRU: Sigmoid, Tanh;
/// LSTM: Sigmoid, Tanh, Tanh).
inline constexpr const char *kRecurrentActivationAttrs[3] = {
    "kiln.activation_f", "kiln.activation_g", "kiln.activation_h"};

/// Whether `kind` is RNN, GRU or LSTM.
inline bool isRecurrentOp(OpKind kind) {
  return kind == OpKind::RNN || kind == OpKind::GRU || kind == OpKind::LSTM;
}

/// How many of f, g and h op `kind` (RNN, GRU or LSTM) has.
unsigned recurrentActivationCount(OpKind kind);

/// ONNX's default for activation `slot` (0: f, 1: g, 2: h) of `kind`.
Activation defaultRecurrentActivation(OpKind kind, unsigned slot);

/// Activation `slot` of RNN, GRU or LSTM node `n`.
const Activation &recurrentActivation(const Node &n, unsigned slot);

} // namespace kiln

#endif
