#include "compiler/frontend/ModelImporter.h"

#include "compiler/frontend/tflite/TFLiteImporter.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

namespace kiln {

llvm::Expected<std::unique_ptr<Graph>>
importModelFile(llvm::StringRef path, const OnnxImportOptions &onnx) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": cannot read file: " +
                                       buf.getError().message());
  return importModelBuffer((*buf)->getBuffer(), llvm::sys::path::stem(path),
                           onnx, llvm::sys::path::parent_path(path));
}

llvm::Expected<std::unique_ptr<Graph>>
importModelBuffer(llvm::StringRef bytes, llvm::StringRef modelName,
                  const OnnxImportOptions &onnx,
                  std::optional<llvm::StringRef> modelDir) {
  if (!isTFLiteModel(bytes))
    return importOnnxBuffer(bytes, modelName, onnx, modelDir);
  if (!onnx.dimBindings.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        modelName + ": --dim applies to ONNX models; a TFLite model's shapes "
                    "are static");
  if (!onnx.constantInputs.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        modelName + ": --const-input applies to ONNX models; a TFLite model's "
                    "inputs are all run-time data");
  return importTFLiteBuffer(bytes, modelName, onnx.limits);
}

} // namespace kiln
