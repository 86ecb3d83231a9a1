//===- OnnxImporter.h - ONNX models to kiln graphs -------------*- C++ -*-===//
//
// The ONNX frontend: parses a ModelProto and builds a Graph whose ops have
// kiln's single (newest-opset) semantics, with every shape static and
// verified by the ops' type rules. Opset differences are absorbed here, and
// constant subgraphs are folded while importing so that shape computations
// exported as Shape -> Gather -> Concat chains become attributes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_ONNXIMPORTER_H
#define KILN_FRONTEND_ONNX_ONNXIMPORTER_H

#include "compiler/graph/Graph.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace kiln {

/// The ONNX default-domain opsets the importer accepts.
constexpr int64_t kMinOnnxOpset = 7;
constexpr int64_t kMaxOnnxOpset = 17;

struct OnnxImportOptions {
  /// Values for symbolic dimensions of graph inputs (dim_param NAME -> VALUE).
  /// Ordered so that anything iterating it is deterministic.
  std::map<std::string, int64_t> dimBindings;
};

/// Reads and imports the model at `path`; the graph is named after the
/// file's stem.
llvm::Expected<std::unique_ptr<Graph>>
importOnnxFile(llvm::StringRef path, const OnnxImportOptions &opts);

/// Imports a serialized ModelProto; `modelName` names the graph and prefixes
/// model-level errors.
llvm::Expected<std::unique_ptr<Graph>>
importOnnxBuffer(llvm::StringRef bytes, llvm::StringRef modelName,
                 const OnnxImportOptions &opts);

/// Reads a serialized TensorProto (e.g. ONNX test data's input_0.pb).
/// tensorFromProto, for an in-memory proto, is in TensorProto.h.
llvm::Expected<Tensor> readTensorProtoFile(llvm::StringRef path);

} // namespace kiln

#endif
