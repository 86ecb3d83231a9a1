//===- TensorProto.cpp - ONNX tensors to kiln Tensors ---------------------===//

#include "compiler/frontend/onnx/TensorProto.h"
#include "compiler/frontend/onnx/ExternalData.h"
#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/CheckedMath.h"
#include "compiler/ops/OnnxDTypes.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SwapByteOrder.h"

#include <cstring>
#include <limits>

namespace kiln {

// raw_data is little-endian; copying it verbatim is only right on such hosts.
static_assert(llvm::sys::IsLittleEndianHost, "raw_data is copied verbatim");

using onnx::TensorProto;

llvm::Expected<DType> onnxElementType(int64_t onnxType) {
  if (std::optional<DType> t = dtypeFromOnnx(onnxType))
    return *t;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "element type " + onnxDTypeName(onnxType) +
                                     " is not supported");
}

namespace {

llvm::Error tensorError(const TensorProto &t, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "tensor '" + t.name() + "': " + msg);
}

/// Copies `field` (the typed field the type stores its values in) into `out`,
/// converting each value to the element type.
template <typename Elem, typename Field>
void copyTyped(const Field &field, Tensor &out) {
  Elem *dst = out.data<Elem>();
  for (int i = 0; i < field.size(); ++i)
    dst[i] = static_cast<Elem>(field.Get(i));
}

} // namespace

llvm::Expected<TensorType> declaredTensorType(const TensorProto &t) {
  auto dtype = onnxElementType(t.data_type());
  if (!dtype)
    return tensorError(t, llvm::toString(dtype.takeError()));
  Shape shape;
  for (int64_t d : t.dims()) {
    if (d < 0)
      return tensorError(t, llvm::formatv("negative dimension {0}", d));
    shape.push_back(d);
  }
  if (!checkedElementCount(shape))
    return tensorError(t, "element count overflows");
  return TensorType(*dtype, shape);
}

llvm::Expected<uint64_t> declaredTensorBytes(const TensorProto &t) {
  auto type = declaredTensorType(t);
  if (!type)
    return type.takeError();
  return llvm::checkedMulUnsigned<uint64_t>(type->numElements(), dtypeSize(type->dtype))
      .value_or(std::numeric_limits<uint64_t>::max());
}

llvm::Expected<Tensor> tensorFromProto(const TensorProto &t,
                                       ExternalDataFiles *external) {
  if (t.has_segment())
    return tensorError(t, "segmented tensors are not supported");
  auto declared = declaredTensorType(t);
  if (!declared)
    return declared.takeError();
  TensorType type = std::move(*declared);
  int64_t count = type.numElements();
  size_t elemSize = dtypeSize(type.dtype);

  // Values in two fields are ambiguous: which would the model's author mean?
  int typedFields = (t.float_data_size() > 0) + (t.int32_data_size() > 0) +
                    (t.int64_data_size() > 0) + (t.double_data_size() > 0) +
                    (t.uint64_data_size() > 0);
  if (typedFields + t.has_raw_data() > 1)
    return tensorError(t, "holds values in more than one data field");

  if (hasExternalData(t)) {
    if (typedFields + t.has_raw_data() > 0)
      return tensorError(t, "holds values both in the model and in an external "
                            "file");
    std::optional<uint64_t> bytes =
        llvm::checkedMulUnsigned<uint64_t>(count, elemSize);
    if (!bytes)
      return tensorError(t, "its size in bytes overflows");
    ExternalDataFiles fromMemory(std::nullopt);
    auto data = (external ? external : &fromMemory)->read(t, *bytes);
    if (!data)
      return data.takeError();
    return Tensor(type, llvm::ArrayRef<uint8_t>(
                            reinterpret_cast<const uint8_t *>(data->data()),
                            data->size()));
  }

  if (t.has_raw_data()) {
    const std::string &raw = t.raw_data();
    if (raw.size() / elemSize != static_cast<uint64_t>(count) ||
        raw.size() % elemSize != 0)
      return tensorError(
          t,
          llvm::formatv("raw_data holds {0} bytes, the dims need {1}",
                        raw.size(), static_cast<uint64_t>(count) * elemSize));
    return Tensor(
        type, llvm::ArrayRef<uint8_t>(
                  reinterpret_cast<const uint8_t *>(raw.data()), raw.size()));
  }

  // The typed field for this type and its length.
  int64_t stored = 0;
  switch (type.dtype) {
  case DType::F32: stored = t.float_data_size(); break;
  case DType::I64: stored = t.int64_data_size(); break;
  case DType::F64: stored = t.double_data_size(); break;
  case DType::U32:
  case DType::U64: stored = t.uint64_data_size(); break;
  default: stored = t.int32_data_size(); break;
  }
  if (stored != count)
    return tensorError(
        t, llvm::formatv("holds {0} values, the dims need {1}", stored, count));
  Tensor out(type);
  switch (type.dtype) {
  case DType::F32: copyTyped<float>(t.float_data(), out); break;
  case DType::I64: copyTyped<int64_t>(t.int64_data(), out); break;
  case DType::I32: copyTyped<int32_t>(t.int32_data(), out); break;
  case DType::I16: copyTyped<int16_t>(t.int32_data(), out); break;
  case DType::I8: copyTyped<int8_t>(t.int32_data(), out); break;
  case DType::U8: copyTyped<uint8_t>(t.int32_data(), out); break;
  case DType::U16: copyTyped<uint16_t>(t.int32_data(), out); break;
  case DType::F64: copyTyped<double>(t.double_data(), out); break;
  case DType::U32: copyTyped<uint32_t>(t.uint64_data(), out); break;
  case DType::U64: copyTyped<uint64_t>(t.uint64_data(), out); break;
  // float16 values travel as their bit patterns in the low 16 bits.
  case DType::F16: copyTyped<uint16_t>(t.int32_data(), out); break;
  case DType::Bool: {
    uint8_t *dst = out.data<uint8_t>();
    for (int i = 0; i < t.int32_data_size(); ++i)
      dst[i] = t.int32_data(i) != 0;
    break;
  }
  }
  return out;
}

llvm::Expected<Tensor> readTensorProtoFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return llvm::createStringError(buf.getError(), "%s: cannot read file: %s",
                                   path.str().c_str(),
                                   buf.getError().message().c_str());
  TensorProto proto;
  llvm::StringRef bytes = (*buf)->getBuffer();
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        path + ": not a valid ONNX tensor (failed to parse protobuf)");
  ExternalDataFiles external(llvm::sys::path::parent_path(path).str());
  auto t = tensorFromProto(proto, &external);
  if (!t)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + llvm::toString(t.takeError()));
  return t;
}

} // namespace kiln
