//===- RecurrentActivations.h - RNN, GRU and LSTM activations ---*- C++ -*-===//
//
// Internal to the ONNX frontend. ONNX's RNN, GRU and LSTM name their
// activations in a STRINGS attribute (`activations`, f g h per direction)
// with their parameters in two FLOATS lists consumed in order; kiln holds
// them as typed activations, one attribute per slot (RecurrentShape.h).
// PyTorch writes `activations` for nn.RNN(nonlinearity='relu').
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_RECURRENTACTIVATIONS_H
#define KILN_FRONTEND_ONNX_RECURRENTACTIVATIONS_H

#include "compiler/frontend/onnx/NodeEmitter.h"

#include "onnx/onnx_pb.h"

namespace kiln {

/// Whether `attr` is one of the attributes recurrentActivations reads.
bool isRecurrentActivationAttr(llvm::StringRef attr);

/// Adds to `n` (an RNN, GRU or LSTM) the activations its ONNX node `np`
/// names, or returns an error naming the node: an activation kiln lacks, a
/// list of the wrong length, or directions that differ.
llvm::Error recurrentActivations(const onnx::NodeProto &np, PendingNode &n);

} // namespace kiln

#endif
