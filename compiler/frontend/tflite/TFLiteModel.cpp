#include "compiler/frontend/tflite/TFLiteModel.h"
#include "compiler/graph/CheckedMath.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

namespace kiln {
namespace tflite_import {
namespace {

llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

llvm::Error tensorError(const tflite::Tensor &t, int index,
                        const llvm::Twine &msg) {
  return error("tensor '" + tensorName(t, index) + "': " + msg);
}

} // namespace

llvm::Expected<const tflite::Model *> verifyModel(llvm::StringRef bytes,
                                                  llvm::StringRef modelName) {
  // The flatbuffers Verifier reads 32-bit offsets; anything at or past
  // 2 GiB is a model stored with external buffers, which kiln does not read.
  if (bytes.size() < 8 || !tflite::ModelBufferHasIdentifier(bytes.data()))
    return error(modelName + ": not a TFLite model (no \"TFL3\" file identifier)");
  if (bytes.size() >= (size_t(1) << 31))
    return error(modelName + ": TFLite models of 2 GiB or more are not supported");
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t *>(bytes.data()),
                                 bytes.size());
  if (!tflite::VerifyModelBuffer(verifier))
    return error(modelName + ": malformed TFLite model (the flatbuffer does "
                             "not verify: truncated, or an offset out of range)");
  const tflite::Model *model = tflite::GetModel(bytes.data());
  if (!model->subgraphs() || model->subgraphs()->size() == 0)
    return error(modelName + ": the TFLite model has no subgraph");
  if (model->subgraphs()->size() > 1)
    return error(modelName + llvm::formatv(": the TFLite model has {0} "
                                           "subgraphs; kiln compiles models "
                                           "with one (no control flow)",
                                           model->subgraphs()->size()));
  if (!model->operator_codes())
    return error(modelName + ": the TFLite model has no operator codes");
  return model;
}

int32_t builtinCode(const tflite::OperatorCode &code) {
  return std::max<int32_t>(code.deprecated_builtin_code(), code.builtin_code());
}

std::string builtinName(int32_t code) {
  if (code >= tflite::BuiltinOperator_MIN && code <= tflite::BuiltinOperator_MAX)
    if (const char *name =
            tflite::EnumNameBuiltinOperator(tflite::BuiltinOperator(code));
        name && *name)
      return name;
  return "BUILTIN_" + std::to_string(code);
}

std::string tensorName(const tflite::Tensor &t, int index) {
  if (t.name() && t.name()->size())
    return t.name()->str();
  return "#" + std::to_string(index);
}

llvm::Expected<TensorType> tensorType(const tflite::Tensor &t, int index) {
  DType dtype;
  switch (t.type()) {
  case tflite::TensorType_FLOAT32: dtype = DType::F32; break;
  case tflite::TensorType_INT8: dtype = DType::I8; break;
  case tflite::TensorType_INT16: dtype = DType::I16; break;
  case tflite::TensorType_INT32: dtype = DType::I32; break;
  case tflite::TensorType_INT64: dtype = DType::I64; break;
  case tflite::TensorType_BOOL: dtype = DType::Bool; break;
  default: {
    const char *name = tflite::EnumNameTensorType(t.type());
    return tensorError(t, index,
                       llvm::Twine("element type ") +
                           (name && *name ? name : "?") +
                           " is not supported (kiln handles FLOAT32, INT8 "
                           "activations and weights, INT32 biases)");
  }
  }
  if (t.sparsity())
    return tensorError(t, index, "sparse tensors are not supported");
  TensorType type;
  type.dtype = dtype;
  if (t.shape())
    for (int32_t d : *t.shape()) {
      if (d < 0)
        return tensorError(t, index, llvm::formatv("dimension {0} is negative", d));
      type.shape.push_back(d);
    }
  if (!checkedElementCount(type.shape, kMaxTensorElements))
    return tensorError(t, index, "has too many elements");

  const tflite::QuantizationParameters *q = t.quantization();
  if (!q || !q->scale() || q->scale()->size() == 0)
    return type;
  if (q->details_type() != tflite::QuantizationDetails_NONE)
    return tensorError(t, index, "custom quantization is not supported");
  size_t n = q->scale()->size();
  if (!q->zero_point() || q->zero_point()->size() != n)
    return tensorError(t, index,
                       llvm::formatv("has {0} quantization scales but {1} zero "
                                     "points",
                                     n, q->zero_point() ? q->zero_point()->size() : 0));
  int32_t axis = q->quantized_dimension();
  // Converters leave the filter's axis (3) on depthwise biases; a 1-D
  // tensor has one axis to quantize along.
  if (n > 1 && type.rank() == 1)
    axis = 0;
  if (n > 1) {
    if (axis < 0 || size_t(axis) >= type.rank())
      return tensorError(t, index,
                         llvm::formatv("quantized dimension {0} is out of range "
                                       "for rank {1}",
                                       axis, type.rank()));
    if (type.shape[axis] != int64_t(n))
      return tensorError(t, index,
                         llvm::formatv("has {0} per-channel scales for {1} "
                                       "channels (dimension {2})",
                                       n, type.shape[axis], axis));
    type.quant.axis = axis;
  }
  int64_t lo = dtype == DType::I8    ? -128
               : dtype == DType::I16 ? -32768
                                     : std::numeric_limits<int32_t>::min();
  int64_t hi = dtype == DType::I8    ? 127
               : dtype == DType::I16 ? 32767
                                     : std::numeric_limits<int32_t>::max();
  for (size_t i = 0; i < n; ++i) {
    float scale = q->scale()->Get(i);
    // The Verifier checks a vector's length word, not that 8-byte elements
    // are 8-byte aligned: read them unaligned.
    int64_t zp = int64_t(llvm::support::endian::read64le(
        q->zero_point()->Data() + i * sizeof(int64_t)));
    if (!(scale > 0) || !std::isfinite(scale))
      return tensorError(t, index,
                         llvm::formatv("quantization scale {0} is not a positive "
                                       "finite number",
                                       scale));
    if (zp < lo || zp > hi)
      return tensorError(t, index,
                         llvm::formatv("zero point {0} is out of range", zp));
    type.quant.scales.push_back(scale);
    type.quant.zeroPoints.push_back(int32_t(zp));
  }
  return type;
}

bool hasData(const tflite::Model &model, const tflite::Tensor &t) {
  const auto *buffers = model.buffers();
  if (!buffers || t.buffer() == 0 || t.buffer() >= buffers->size())
    return false;
  const tflite::Buffer *b = buffers->Get(t.buffer());
  return b && ((b->data() && b->data()->size()) || b->offset() > 1);
}

llvm::Expected<Tensor> constantData(const tflite::Model &model,
                                    const tflite::Tensor &t, int index,
                                    const TensorType &type) {
  const auto *buffers = model.buffers();
  if (!buffers || t.buffer() >= buffers->size())
    return tensorError(t, index,
                       llvm::formatv("buffer {0} is out of range", t.buffer()));
  const tflite::Buffer *b = buffers->Get(t.buffer());
  if (b->offset() > 1)
    return tensorError(t, index, "buffers stored outside the flatbuffer "
                                 "(models over 2 GiB) are not supported");
  size_t have = b->data() ? b->data()->size() : 0;
  if (have != type.sizeInBytes())
    return tensorError(t, index,
                       llvm::formatv("buffer holds {0} bytes, but {1} needs {2}",
                                     have, type.str(), type.sizeInBytes()));
  return Tensor(type, llvm::ArrayRef<uint8_t>(b->data()->data(), have));
}

} // namespace tflite_import
} // namespace kiln
