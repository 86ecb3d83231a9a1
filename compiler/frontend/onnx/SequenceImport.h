//===- SequenceImport.h - ONNX sequences resolved while importing -*- C++
//-*-===//
//
// Internal to the ONNX frontend. kiln compiles tensors only, but a sequence
// built inside the model from tensors, at constant positions, is a list of
// tensor values known at compile time: its ops resolve while importing
// (SequenceAt picks a value, SequenceLength is a constant, ConcatFromSequence
// a Concat, SplitToSequence a Split) and no sequence reaches the graph.
// Sequence graph inputs and outputs stay unsupported.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ONNX_SEQUENCEIMPORT_H
#define KILN_FRONTEND_ONNX_SEQUENCEIMPORT_H

#include "compiler/frontend/onnx/NodeEmitter.h"

#include "llvm/ADT/StringMap.h"

namespace kiln {

/// Whether `opType` is a sequence op kiln resolves at import time.
bool isImportTimeSequenceOp(llvm::StringRef opType);

/// The ONNX values of the model being imported, by name.
struct ImportScope {
  llvm::StringMap<Value *> &tensors;
  llvm::StringMap<ValueList> &sequences;
};

/// Imports sequence op `n` (its tensor inputs resolved in `n.inputs`, its
/// sequence inputs given by name in `sequenceInputs`, "" where an input is a
/// tensor), defining its result in `scope`.
llvm::Error importSequenceOp(NodeEmitter &e, PendingNode &n,
                             llvm::ArrayRef<std::string> sequenceInputs,
                             ImportScope scope);

} // namespace kiln

#endif
