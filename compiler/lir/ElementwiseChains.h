//===- ElementwiseChains.h - Elementwise fusion decision -------*- C++ -*-===//
//
// Which elementwise nodes run as one instruction (LIROptions::fuseElementwise):
// a chain of f32 elementwise nodes of one output type, each the only user of
// the previous one's result, evaluated per element in registers, emitted
// where its last node is (by then every operand of every node exists).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_ELEMENTWISECHAINS_H
#define KILN_LIR_ELEMENTWISECHAINS_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {
namespace lir {

/// Last node of a chain -> the chain, first node first (two nodes or more).
using ElementwiseChains = llvm::DenseMap<const Node *, llvm::SmallVector<const Node *, 4>>;

/// The chains of `g`, leaving out the nodes `taken` says another
/// instruction already does (a Conv's fused Add and activation).
ElementwiseChains findElementwiseChains(const Graph &g,
                                        llvm::function_ref<bool(const Node &)> taken);

} // namespace lir
} // namespace kiln

#endif
