//===- OnnxModelImporter.h - The ONNX model importer's state ----*- C++ -*-===//
//
// Internal to the ONNX frontend: the importer of one model, shared by
// OnnxImporter.cpp (the model: inputs, initializers, nodes, outputs),
// ControlFlow.cpp (If and Loop, whose subgraphs import into the same graph)
// and NonZeroImport.cpp (NonZero of a constant).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_ONNXMODELIMPORTER_H
#define KILN_FRONTEND_ONNX_ONNXMODELIMPORTER_H

#include "compiler/frontend/onnx/ExternalData.h"
#include "compiler/frontend/onnx/NodeEmitter.h"
#include "compiler/frontend/onnx/OnnxImporter.h"

#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <memory>
#include <optional>

namespace kiln {

class OnnxModelImporter {
public:
  OnnxModelImporter(onnx::ModelProto &model, llvm::StringRef graphName,
                    const OnnxImportOptions &opts, std::optional<llvm::StringRef> modelDir)
      : model_(model), opts_(opts), graph_(std::make_unique<Graph>(graphName)),
        external_(modelDir ? std::optional<std::string>(modelDir->str())
                           : std::nullopt) {
    graph_->setLimits(opts.limits);
  }

  llvm::Expected<std::unique_ptr<Graph>> run();

private:
  llvm::Expected<int64_t> defaultOpset() const;
  llvm::Error checkOpsSupported(const onnx::GraphProto &g) const;
  llvm::Error checkNesting(const onnx::GraphProto &g, uint64_t depth,
                           uint64_t &nodes) const;
  llvm::Error importInitializers(const onnx::GraphProto &g);
  llvm::Error importInputs();
  llvm::Expected<TensorType> inputType(const onnx::ValueInfoProto &vi) const;
  llvm::Error importConstantNode(const onnx::NodeProto &np,
                                 llvm::StringRef name);
  llvm::Error importNode(NodeEmitter &emitter, const onnx::NodeProto &np,
                         int index);
  llvm::Error importGradientNode(NodeEmitter &emitter,
                                 const onnx::NodeProto &np,
                                 llvm::StringRef name);
  // ControlFlow.cpp.
  llvm::Error importIf(NodeEmitter &emitter, const onnx::NodeProto &np,
                       llvm::StringRef name);
  llvm::Error importLoop(NodeEmitter &emitter, const onnx::NodeProto &np,
                         llvm::StringRef name);
  llvm::Error importSubgraph(NodeEmitter &emitter, const onnx::GraphProto &g);
  // NonZeroImport.cpp.
  llvm::Error importNonZero(const onnx::NodeProto &np, llvm::StringRef name);
  llvm::Error importOutputs();
  llvm::Error checkDeclaredType(const onnx::ValueInfoProto &vi,
                                const Value *v) const;
  /// Binds the ONNX value name `name`; names are SSA in ONNX.
  llvm::Error define(const std::string &name, Value *v);
  /// The value named `value`, the input of node `node` (op `op`) that
  /// importIf, importLoop and importNonZero read, or an error naming them.
  llvm::Expected<Value *> inputValue(llvm::StringRef node, llvm::StringRef op,
                                     const std::string &value) const;

  onnx::ModelProto &model_;
  const OnnxImportOptions &opts_;
  std::unique_ptr<Graph> graph_;
  ExternalDataFiles external_;
  /// ONNX value name -> kiln value. Only looked up, never iterated.
  llvm::StringMap<Value *> values_;
  /// ONNX sequence name -> its tensors (SequenceImport.h).
  llvm::StringMap<ValueList> sequences_;
  /// Loop iterations unrolled so far, over all the model's Loops (nested
  /// ones multiply): at most --max-unrolled-steps.
  uint64_t unrolled_ = 0;
};

} // namespace kiln

#endif
