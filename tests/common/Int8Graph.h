//===- Int8Graph.h - What end-to-end int8 tests read off a graph -*- C++ -*-===//
#ifndef KILN_TESTS_COMMON_INT8GRAPH_H
#define KILN_TESTS_COMMON_INT8GRAPH_H

#include "compiler/graph/Graph.h"

namespace kiln {

/// How many `kind` nodes of `g` compute int8.
unsigned countInt8(const Graph &g, OpKind kind);

/// One step of the output `v`: 1 for integers, the scale of the int8 value
/// a float output is dequantized from (0 when it is not one).
double outputStep(const Value *v);

} // namespace kiln

#endif
