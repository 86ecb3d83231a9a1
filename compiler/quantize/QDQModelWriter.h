//===- QDQModelWriter.h - A QDQ graph as an ONNX model ---------*- C++ -*-===//
//
// --save-qdq gives the quantized model to tools that read quantized ONNX
// (ONNX Runtime first): the graph as insertQDQ leaves it is made of ONNX ops
// with their ONNX attributes, so it is written node for node.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANTIZE_QDQMODELWRITER_H
#define KILN_QUANTIZE_QDQMODELWRITER_H

#include "compiler/graph/Graph.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kiln {

/// The opset the written models declare.
inline constexpr int64_t kQDQModelOpset = 13;

/// The serialized ONNX ModelProto of `g`; an error names a node that has no
/// ONNX form (a kiln op or attribute).
llvm::Expected<std::string> writeQDQModel(const Graph &g);

} // namespace kiln

#endif
