//===- OnnxDTypes.h - ONNX's dtype numbers ----------------------*- C++ -*-===//
//
// ONNX's TensorProto.DataType numbers, which Cast's `to`, EyeLike's and the
// random ops' `dtype` attributes hold in kiln's IR too, and their names.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_ONNXDTYPES_H
#define KILN_OPS_ONNXDTYPES_H

#include "compiler/graph/Type.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace kiln {

/// The kiln dtype of an ONNX TensorProto.DataType number (FLOAT = 1, ...),
/// or nullopt for types kiln has no dtype for.
std::optional<DType> dtypeFromOnnx(int64_t onnxType);
/// The ONNX TensorProto.DataType number of a kiln dtype.
int64_t onnxFromDType(DType t);
/// The ONNX name of a TensorProto.DataType number ("DOUBLE"), for messages.
llvm::StringRef onnxDTypeName(int64_t onnxType);

} // namespace kiln

#endif
