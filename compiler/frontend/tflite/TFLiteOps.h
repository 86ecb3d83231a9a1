//===- TFLiteOps.h - TFLite builtin ops as kiln ops ------------*- C++ -*-===//
//
// Internal to the TFLite frontend: one entry per builtin op kiln imports,
// each turning one TFLite operator into kiln nodes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_TFLITE_TFLITEOPS_H
#define KILN_FRONTEND_TFLITE_TFLITEOPS_H

#include "compiler/frontend/tflite/TFLiteModel.h"
#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace kiln {
namespace tflite_import {

/// What an op importer sees of one TFLite operator.
class OpContext {
public:
  OpContext(Graph &g, const tflite::Operator &op, std::string name,
            std::string opName, llvm::ArrayRef<Value *> inputs,
            llvm::ArrayRef<TensorType> outputTypes)
      : g(g), op(op), name(std::move(name)), opName(std::move(opName)),
        inputs(inputs.begin(), inputs.end()),
        outputTypes(outputTypes.begin(), outputTypes.end()) {}

  Graph &g;
  const tflite::Operator &op;
  /// The node name: the first output tensor's name.
  std::string name;
  std::string opName;
  /// nullptr for an absent optional input (index -1).
  llvm::SmallVector<Value *, 3> inputs;
  /// The types TFLite declares for the outputs.
  llvm::SmallVector<TensorType, 1> outputTypes;
  /// Filled by the importer: one value per TFLite output.
  llvm::SmallVector<Value *, 1> results;

  llvm::Error error(const llvm::Twine &msg) const {
    return nodeError(name, opName, msg);
  }
  /// Input `i`, or an error naming it when absent.
  llvm::Expected<Value *> input(unsigned i) const;
  /// The data of constant input `i`, or an error when it is not constant.
  llvm::Expected<const Tensor *> constantInput(unsigned i) const;
  /// Records `v` as the op's result (TFLite output 0).
  llvm::Error result(llvm::Expected<Value *> v) {
    if (!v)
      return v.takeError();
    results.push_back(*v);
    return llvm::Error::success();
  }
  /// Adds a node named after this op (with `suffix` for helpers).
  llvm::Expected<Value *> add(OpKind kind, llvm::ArrayRef<Value *> in,
                              AttrMap attrs = {}, llvm::StringRef suffix = "");
};

using OpImportFn = llvm::Error (*)(OpContext &ctx);

/// UNIDIRECTIONAL_SEQUENCE_LSTM, float (TFLiteLSTM.cpp).
llvm::Error importUnidirectionalSequenceLSTM(OpContext &ctx);

/// The importer of builtin op `code`, or nullptr when kiln lacks one.
OpImportFn findOpImporter(int32_t code);

} // namespace tflite_import
} // namespace kiln

#endif
