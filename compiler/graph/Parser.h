//===- Parser.h - Reading the text form of graphs --------------*- C++ -*-===//
//
// Reads what printGraph writes, so that pass tests are text IR in and
// expected IR out, as LLVM's are. Each node goes through Graph::addNode, so
// attribute kinds, domains and the op's type rule are checked as the
// importer's nodes are; a result type in the text that differs from the
// type rule's is an error.
//
// A constant printed without data (more than kPrintedElements elements)
// reads back with values from a generator seeded by its name: floats in
// [-1, 1), signed integers in [-8, 8), unsigned ones in [0, 8), bools 0 or 1,
// f16 zeros. A test writes out the data of the constants whose values matter.
//
// Names are read up to whitespace, ',', '(' or ')'. `//` starts a comment
// that runs to the end of the line (FileCheck directives live there).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_PARSER_H
#define KILN_GRAPH_PARSER_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace kiln {

/// Parses one or more `graph NAME { ... }` blocks. Errors read
/// "BUFFER:LINE:COLUMN: message".
llvm::Expected<std::vector<std::unique_ptr<Graph>>>
parseGraphs(llvm::StringRef text, llvm::StringRef bufferName);

/// Data for a constant the text gives without data, as described above.
Tensor generatedConstantData(const TensorType &type, llvm::StringRef name);

} // namespace kiln

#endif
