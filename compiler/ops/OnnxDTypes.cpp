//===- OnnxDTypes.cpp - ONNX's dtype numbers ------------------------------===//

#include "compiler/ops/OnnxDTypes.h"

#include <iterator>

namespace kiln {

std::optional<DType> dtypeFromOnnx(int64_t onnxType) {
  switch (onnxType) {
  case 1: return DType::F32;
  case 2: return DType::U8;
  case 3: return DType::I8;
  case 4: return DType::U16;
  case 5: return DType::I16;
  case 6: return DType::I32;
  case 7: return DType::I64;
  case 9: return DType::Bool;
  case 10: return DType::F16;
  case 11: return DType::F64;
  case 12: return DType::U32;
  case 13: return DType::U64;
  default: return std::nullopt;
  }
}

int64_t onnxFromDType(DType t) {
  for (int64_t onnx = 1; onnx <= 16; ++onnx)
    if (dtypeFromOnnx(onnx) == t)
      return onnx;
  return 0;
}

llvm::StringRef onnxDTypeName(int64_t onnxType) {
  static const char *const names[] = {
      "UNDEFINED", "FLOAT",     "UINT8",      "INT8",    "UINT16",
      "INT16",     "INT32",     "INT64",      "STRING",  "BOOL",
      "FLOAT16",   "DOUBLE",    "UINT32",     "UINT64",  "COMPLEX64",
      "COMPLEX128", "BFLOAT16"};
  if (onnxType < 0 || onnxType >= int64_t(std::size(names)))
    return "unknown";
  return names[onnxType];
}

} // namespace kiln
