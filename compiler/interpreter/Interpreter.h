//===- Interpreter.h - Reference execution of a Graph ----------*- C++ -*-===//
//
// Runs nodes and whole graphs with the reference semantics of their OpDefs.
// It is the oracle for the compiled code and the engine of constant folding,
// so it favours plain, checkable behaviour over speed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_INTERPRETER_INTERPRETER_H
#define KILN_INTERPRETER_INTERPRETER_H

#include "compiler/graph/Graph.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace kiln {

/// Evaluates one node. `inputs` match the node's inputs one to one (nullptr
/// for an absent optional input) and must have the types of the node's input
/// values; the results have the node's output types.
llvm::Expected<std::vector<Tensor>>
evaluateNode(const Node &n, llvm::ArrayRef<const Tensor *> inputs);

/// Runs the whole graph. `inputs` are in graph-input order and must match the
/// inputs' types; the results are in graph-output order. Intermediate values
/// are freed after their last use, so memory stays near the live set.
llvm::Expected<std::vector<Tensor>> runGraph(const Graph &g,
                                             llvm::ArrayRef<Tensor> inputs);

} // namespace kiln

#endif
