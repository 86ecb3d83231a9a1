//===- Lowering.h - Lowering to the primitive ops -------------*- C++ -*-===//
//
// The code generator implements a small set of primitive ops. Lowering
// rewrites every other op in terms of them and puts the primitives into the
// one canonical form the code generator reads (e.g. Conv with explicit
// pads, strides, dilations and kernel_shape, no auto_pad), so the back end
// never re-derives defaults.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_LOWERING_H
#define KILN_LOWERING_LOWERING_H

#include "compiler/graph/Graph.h"
#include "compiler/passes/Pass.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace kiln {

/// An error listing every node of `g` the code generator cannot run (an op
/// that is not primitive, or a Conv that is not 2-D), or success.
llvm::Error checkLowered(const Graph &g);

/// Rewrites every non-primitive op it knows into primitives and makes the
/// primitives' attributes explicit. Returns whether the graph changed.
/// Ops without a rule stay (checkLowered reports them); a node whose rule
/// cannot apply (a BatchNormalization in training mode or with non-constant
/// parameters, a training-mode Dropout or one whose mask is used) is an
/// error naming it.
llvm::Expected<bool> lowerGraph(Graph &g);

/// "lower": lowerGraph, then checkLowered. Ops that only a constant input
/// keeps alive (Shape, Gather, Cast, ...) are expected to have been folded
/// by an earlier constant-folding; one that survives is an error naming the
/// node and op.
std::unique_ptr<Pass> createLowerPass();

} // namespace kiln

#endif
