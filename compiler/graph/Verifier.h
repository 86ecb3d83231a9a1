//===- Verifier.h - Graph well-formedness checks ---------------*- C++ -*-===//
//
// The verifier is the contract every pass leaves the graph in: the pipeline
// runs it after each pass so a broken rewrite is caught where it happened,
// not as a wrong number three stages later.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_VERIFIER_H
#define KILN_GRAPH_VERIFIER_H

#include "compiler/graph/Graph.h"

#include "llvm/Support/Error.h"

namespace kiln {

/// Checks that `g` is well formed:
///  - value names, node names and graph output names are unique;
///  - each node's input and result counts are within its OpDef's range and
///    its required inputs are present;
///  - each node's attributes are known to its op and of the right kind, and
///    required and defaulted attributes are present;
///  - every input of a node is a graph input, a constant or the result of an
///    earlier node (topological order);
///  - re-running each op's type rule gives the stored result types, and each
///    constant's type is that of its data;
///  - every graph output refers to a defined value.
/// All problems are collected into one error, one per line.
llvm::Error verifyGraph(const Graph &g);

} // namespace kiln

#endif
