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
#include "compiler/graph/ResourceLimits.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace kiln {

/// The ONNX default-domain opsets the importer accepts.
constexpr int64_t kMinOnnxOpset = 1;
constexpr int64_t kMaxOnnxOpset = 22;

struct OnnxImportOptions {
  /// Values for symbolic dimensions of graph inputs (dim_param NAME -> VALUE).
  /// Ordered so that anything iterating it is deterministic.
  std::map<std::string, int64_t> dimBindings;
  /// Graph inputs given a fixed value: each becomes a constant, as if the
  /// model had an initializer for it. Its type must be the declared one.
  /// ONNX's node tests feed data that kiln needs constant (Reshape's shape,
  /// Slice's starts, ...) as graph inputs; their harness fixes it here.
  std::map<std::string, Tensor> constantInputs;
  /// What the model may make kiln allocate; the graph keeps them
  /// (Graph::getLimits) for every later stage. The TFLite importer takes
  /// them too.
  ResourceLimits limits;
};

/// The import error for an input that kiln needs constant (a shape, pads,
/// axes, ...) but the model computes at run time; `getValueName()` is the
/// value's name, a graph input's ONNX name where it comes straight from one.
class NonConstantInputError : public llvm::ErrorInfo<NonConstantInputError> {
public:
  static char ID;
  NonConstantInputError(std::string message, std::string valueName)
      : message_(std::move(message)), valueName_(std::move(valueName)) {}
  const std::string &getValueName() const { return valueName_; }
  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string message_;
  std::string valueName_;
};

/// Reads and imports the model at `path`; the graph is named after the
/// file's stem, and external data is read from the file's directory.
llvm::Expected<std::unique_ptr<Graph>>
importOnnxFile(llvm::StringRef path, const OnnxImportOptions &opts);

/// Imports a serialized ModelProto; `modelName` names the graph and prefixes
/// model-level errors. `modelDir` is the directory the model's external data
/// locations are relative to (ExternalData.h); without it, external data is
/// an error.
llvm::Expected<std::unique_ptr<Graph>>
importOnnxBuffer(llvm::StringRef bytes, llvm::StringRef modelName,
                 const OnnxImportOptions &opts,
                 std::optional<llvm::StringRef> modelDir = std::nullopt);

/// Reads a serialized TensorProto (e.g. ONNX test data's input_0.pb).
/// tensorFromProto, for an in-memory proto, is in TensorProto.h.
llvm::Expected<Tensor> readTensorProtoFile(llvm::StringRef path);

/// Whether kiln imports ONNX op type `opType` (of the default domain), as
/// its own op or as another (CastLike as Cast, Compress as Gather, ...).
bool isKnownOnnxOp(llvm::StringRef opType);

} // namespace kiln

#endif
