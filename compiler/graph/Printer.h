//===- Printer.h - Text and Graphviz forms of a graph ----------*- C++ -*-===//
//
// The text form is what tests compare against and what `kilnc` dumps between
// passes, so it is deterministic: values in graph order, attributes sorted by
// name. Attributes equal to their op's default are left out, so a line shows
// what is particular to that node (a Conv does not repeat auto_pad="NOTSET"
// and an empty kiln.activation on every line).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_PRINTER_H
#define KILN_GRAPH_PRINTER_H

#include "compiler/graph/Graph.h"

#include "llvm/Support/raw_ostream.h"

namespace kiln {

/// Prints
///   graph NAME {
///     input %x : f32[1,1,28,28]
///     const %w : f32[8,1,3,3]
///     const %shape : i64[2] = [1,-1]
///     %conv1 = Conv(%x, %w, none) {pads=[1,1,1,1]} : f32[1,8,28,28]
///     output "y" = %conv1
///   }
/// Constants of up to kPrintedElements elements are listed with their data,
/// larger ones without; an absent optional input prints as `none`; a node
/// with several results prints `%a:0, %a:1 = ...` with one type per result.
/// Parser.h reads this form back.
void printGraph(const Graph &g, llvm::raw_ostream &os);

/// Prints a Graphviz digraph: one vertex per node labelled with op, name and
/// result types; graph inputs (invhouse), constants (note) and graph outputs
/// (house) as their own vertices; edges from producers to consumers.
void printGraphDot(const Graph &g, llvm::raw_ostream &os);

} // namespace kiln

#endif
