//===- ExternalData.h - ONNX tensors stored beside the model ----*- C++ -*-===//
//
// ONNX external data: a TensorProto whose data_location is EXTERNAL keeps its
// bytes in a file beside the model, named by its external_data entries
// (location, offset, length). Exporters write weights this way for models
// over protobuf's 2 GB, and PyTorch's torch.export-based exporter by default
// (model.onnx and model.onnx.data).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_EXTERNALDATA_H
#define KILN_FRONTEND_ONNX_EXTERNALDATA_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace kiln {

/// Whether `t` declares its data external.
bool hasExternalData(const onnx::TensorProto &t);

/// The files a model's external data is read from, each opened once.
class ExternalDataFiles {
public:
  /// `modelDir`: the directory of the model file, which locations are
  /// relative to; std::nullopt for a model read from memory, whose external
  /// data is then an error.
  explicit ExternalDataFiles(std::optional<std::string> modelDir)
      : modelDir_(std::move(modelDir)) {}

  /// The `expectedBytes` bytes of `t`'s data (tensorFromProto has checked
  /// that the model holds none of its values). A location is a relative path
  /// inside the model's directory (absolute paths and ".." are refused, as
  /// ONNX's IR spec says), and offset and length must lie within the file.
  llvm::Expected<llvm::StringRef> read(const onnx::TensorProto &t,
                                       uint64_t expectedBytes);

private:
  llvm::Expected<const llvm::MemoryBuffer *> open(llvm::StringRef location);

  std::optional<std::string> modelDir_;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> files_;
};

} // namespace kiln

#endif
