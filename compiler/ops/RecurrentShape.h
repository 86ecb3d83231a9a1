//===- RecurrentShape.h - The dimensions of RNN, GRU and LSTM --*- C++ -*-===//
//
// Shared by the recurrent ops' type rule and reference semantics
// (RecurrentOps.cpp) and their lowering (compiler/lowering).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_RECURRENTSHAPE_H
#define KILN_OPS_RECURRENTSHAPE_H

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

} // namespace kiln

#endif
