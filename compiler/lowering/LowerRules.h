//===- LowerRules.h - The per-op lowering rules ----------------*- C++ -*-===//
//
// Internal to compiler/lowering. Each rule rewrites one node (a copy of the
// node list is walked, so nodes a rule creates are not visited again: a rule
// creates them in their final, explicit form) and returns whether it changed
// the graph.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_LOWERRULES_H
#define KILN_LOWERING_LOWERRULES_H

#include "compiler/graph/Graph.h"

#include "llvm/Support/Error.h"

namespace kiln {

/// Gemm -> [Transpose] MatMul [Mul alpha] [Add beta*C]; transposes and
/// scalings of constant operands are applied to the constants.
llvm::Expected<bool> lowerGemm(Graph &g, Node *gemm);

/// Inference BatchNormalization -> Mul + Add with per-channel constants.
llvm::Expected<bool> lowerBatchNorm(Graph &g, Node *bn);

/// GlobalAveragePool -> AveragePool over the whole spatial extent.
llvm::Expected<bool> lowerGlobalAveragePool(Graph &g, Node *gap);

/// Conv, MaxPool, AveragePool: auto_pad resolved to explicit pads;
/// kernel_shape, strides, pads and dilations always present.
llvm::Expected<bool> makeWindowExplicit(Graph &g, Node *n);

/// Flatten, Squeeze, Unsqueeze -> Reshape to the (static) result shape.
llvm::Expected<bool> lowerToReshape(Graph &g, Node *n);

/// Identity, inference Dropout, Cast to the same type and Pad with all pads
/// zero forward their input: they are removed and their uses read the input.
llvm::Expected<bool> removeForwarding(Graph &g, Node *n);

/// Transpose: the default permutation (reversed axes) made explicit.
llvm::Expected<bool> makePermExplicit(Graph &g, Node *n);

} // namespace kiln

#endif
