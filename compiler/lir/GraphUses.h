//===- GraphUses.h - Who reads a value, for LIR decisions ------*- C++ -*-===//
#ifndef KILN_LIR_GRAPHUSES_H
#define KILN_LIR_GRAPHUSES_H

#include "compiler/graph/Graph.h"

namespace kiln {
namespace lir {

/// The single node reading `v`, once, if `v` is not a graph output: only then
/// may the LIR keep `v` out of memory (fusion) or place it for its reader
/// (Concat elimination).
Node *soleUser(const Graph &g, const Value *v);

} // namespace lir
} // namespace kiln

#endif
