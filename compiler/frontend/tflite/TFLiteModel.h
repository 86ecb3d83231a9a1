//===- TFLiteModel.h - A verified TFLite flatbuffer ------------*- C++ -*-===//
//
// Internal to the TFLite frontend: the checks and conversions between the
// flatbuffer and kiln's types. Nothing here reads a byte the flatbuffers
// Verifier has not checked, and every size is checked before it is used.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_TFLITE_TFLITEMODEL_H
#define KILN_FRONTEND_TFLITE_TFLITEMODEL_H

#include "compiler/frontend/tflite/TFLiteSchema_generated.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace kiln {
namespace tflite_import {

/// Verifies `bytes` as a TFLite model (identifier, offsets, vector bounds)
/// and returns its root, which lives in `bytes`.
llvm::Expected<const tflite::Model *> verifyModel(llvm::StringRef bytes,
                                                  llvm::StringRef modelName);

/// The op's builtin code: the larger of the two code fields, as TFLite reads
/// them.
int32_t builtinCode(const tflite::OperatorCode &code);
/// "CONV_2D", or "BUILTIN_<n>" for codes newer than the schema kiln reads.
std::string builtinName(int32_t code);

/// A printable name for tensor `index`: its name, or "#index" without one.
std::string tensorName(const tflite::Tensor &t, int index);

/// The kiln type of a TFLite tensor, quantization included. Checks the shape
/// (non-negative, within kMaxTensorElements) and the quantization parameters
/// (counts, axis, positive finite scales, zero points in the type's range).
llvm::Expected<TensorType> tensorType(const tflite::Tensor &t, int index);

/// The data of a constant tensor (one with a non-empty buffer), checked
/// against its type's size. `type` is tensorType's result.
llvm::Expected<Tensor> constantData(const tflite::Model &model,
                                    const tflite::Tensor &t, int index,
                                    const TensorType &type);

/// Whether tensor `t` has data in the model (a weight, bias or shape).
bool hasData(const tflite::Model &model, const tflite::Tensor &t);

} // namespace tflite_import
} // namespace kiln

#endif
