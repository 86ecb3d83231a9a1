//===- TensorProto.h - ONNX tensors to kiln Tensors ------------*- C++ -*-===//
//
// Converts ONNX TensorProtos (initializers, Constant values, TENSOR attributes
// and the .pb files of ONNX's test data) into kiln Tensors. Kept apart from
// OnnxImporter.h so only code that handles protobufs sees the ONNX headers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_TENSORPROTO_H
#define KILN_FRONTEND_ONNX_TENSORPROTO_H

#include "compiler/graph/Tensor.h"

#include "llvm/Support/Error.h"

#include "onnx/onnx_pb.h"

namespace kiln {

/// The kiln element type of an ONNX TensorProto::DataType number, or an
/// error naming the ONNX type ("element type DOUBLE is not supported").
llvm::Expected<DType> onnxElementType(int64_t onnxType);

/// The type a TensorProto's data_type and dims declare, checked (a known
/// element type, no negative dimension, an element count within int64;
/// its bytes may not be) without looking at its data.
llvm::Expected<TensorType> declaredTensorType(const onnx::TensorProto &t);

/// The bytes of `t`'s declared type, UINT64_MAX where they overflow.
llvm::Expected<uint64_t> declaredTensorBytes(const onnx::TensorProto &t);

class ExternalDataFiles;

/// Converts a TensorProto holding its data in raw_data, in the typed field
/// for its type (float, int8/16/32/64, uint8, bool, float16 as bits), or in
/// an external file read through `external` (ExternalData.h; without it,
/// external data is an error). The data size is checked against the dims
/// before anything is allocated, so a malformed proto yields an error rather
/// than a huge allocation.
llvm::Expected<Tensor> tensorFromProto(const onnx::TensorProto &t,
                                       ExternalDataFiles *external = nullptr);

} // namespace kiln

#endif
