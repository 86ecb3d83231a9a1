//===- ModelImporter.h - Any model file to a kiln graph --------*- C++ -*-===//
//
// kilnc and kiln_bundle take ONNX and TFLite models alike, told apart by
// content (TFLite's "TFL3" file identifier), not by file name.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_MODELIMPORTER_H
#define KILN_FRONTEND_MODELIMPORTER_H

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>

namespace kiln {

/// Reads the model at `path` and imports it with the frontend its content
/// names; the graph is named after the file's stem. `onnx` applies to ONNX
/// models (a TFLite model's shapes are all static: dimension bindings are
/// an error there).
llvm::Expected<std::unique_ptr<Graph>>
importModelFile(llvm::StringRef path, const OnnxImportOptions &onnx);

/// The same for a model already in memory; `modelName` names the graph and
/// prefixes model-level errors, and an ONNX model's external data is read
/// from `modelDir` (importOnnxBuffer).
llvm::Expected<std::unique_ptr<Graph>>
importModelBuffer(llvm::StringRef bytes, llvm::StringRef modelName,
                  const OnnxImportOptions &onnx,
                  std::optional<llvm::StringRef> modelDir = std::nullopt);

} // namespace kiln

#endif
