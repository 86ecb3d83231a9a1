//===- TFLiteImporter.h - TFLite models to kiln graphs ---------*- C++ -*-===//
//
// The TFLite frontend: verifies a .tflite flatbuffer and builds a Graph of
// kiln's ops. Float and int8 models both import; int8 tensors keep TFLite's
// quantization (scale, zero point, per-channel axis) in their types, and the
// ops then follow TFLite's integer semantics (compiler/ops/IntegerMath.h).
//
// Layout: TFLite is NHWC, kiln's spatial ops are NCHW (one set of op records
// and kernels for every frontend). The graph's inputs and outputs keep the
// model's NHWC; each Conv and pooling is wrapped in a pair of Transposes,
// which the simplify-layout pass cancels between consecutive layers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_TFLITE_TFLITEIMPORTER_H
#define KILN_FRONTEND_TFLITE_TFLITEIMPORTER_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace kiln {

/// Whether `bytes` is a TFLite flatbuffer: its file identifier "TFL3".
bool isTFLiteModel(llvm::StringRef bytes);

/// Imports a serialized TFLite model; `modelName` names the graph and
/// prefixes model-level errors. Unsupported ops, custom ops and tensor types
/// kiln does not handle are all reported in one error. The graph is held to
/// `limits`.
llvm::Expected<std::unique_ptr<Graph>>
importTFLiteBuffer(llvm::StringRef bytes, llvm::StringRef modelName,
                   const ResourceLimits &limits);

} // namespace kiln

#endif
