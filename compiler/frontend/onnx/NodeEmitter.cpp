//===- NodeEmitter.cpp - Adding imported nodes with eager folding ---------===//

#include "compiler/frontend/onnx/NodeEmitter.h"

#include "compiler/interpreter/Interpreter.h"
#include "compiler/ops/TypeRuleHelpers.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <deque>

namespace kiln {

llvm::Error PendingNode::error(const llvm::Twine &msg) const {
  return nodeError(name, opType.empty() ? getOpDef(kind).name : opType, msg);
}

std::string NodeEmitter::uniqueNodeName(llvm::StringRef base) {
  if (nodeNames_.insert(base).second)
    return base.str();
  for (unsigned i = 1;; ++i) {
    std::string candidate = (base + "_" + llvm::Twine(i)).str();
    if (nodeNames_.insert(candidate).second)
      return candidate;
  }
}

llvm::Expected<ValueList> NodeEmitter::emit(const PendingNode &n) {
  return emit(n.kind, n.name, n.inputs, n.attrs, n.outputs);
}

llvm::Expected<ValueList>
NodeEmitter::emit(OpKind kind, llvm::StringRef name,
                  llvm::ArrayRef<Value *> inputs, AttrMap attrs,
                  llvm::ArrayRef<std::string> resultNames) {
  auto added =
      graph_.addNode(kind, uniqueNodeName(name), inputs, std::move(attrs));
  if (!added)
    return added.takeError();
  Node *n = *added;
  bool allConstant = llvm::all_of(n->getInputs(), [](Value *v) {
    return !v || v->isConstant();
  });
  // DequantizeLinear of constant integers stays: the fold-qdq pass computes
  // with the integers and their parameters (constant-folding folds it when
  // nothing does).
  if ((allConstant && !n->is(OpKind::DequantizeLinear)) ||
      readsOnlyInputTypes(n->getKind()))
    return foldConstant(n, resultNames);
  ValueList results(n->getOutputs().begin(), n->getOutputs().end());
  for (unsigned i = 0; i < results.size() && i < resultNames.size(); ++i)
    if (!resultNames[i].empty())
      graph_.renameValue(results[i], resultNames[i]);
  return results;
}

llvm::Expected<ValueList>
NodeEmitter::foldConstant(Node *n, llvm::ArrayRef<std::string> resultNames) {
  if (auto err = graph_.checkFold(*n))
    return std::move(err);
  // Stand-ins for the run-time inputs of an op that reads only their types.
  std::deque<Tensor> placeholders;
  llvm::SmallVector<const Tensor *, 4> inputs;
  for (Value *v : n->getInputs())
    inputs.push_back(!v               ? nullptr
                     : v->isConstant() ? &v->getConstant()
                                       : &placeholders.emplace_back(v->getType()));
  auto results = evaluateNode(*n, inputs);
  if (!results)
    return results.takeError();
  if (results->size() != n->getNumOutputs())
    return nodeError(*n, "evaluation gave the wrong number of results");
  return replaceByConstants(n, std::move(*results), resultNames);
}

ValueList
NodeEmitter::replaceByConstants(Node *n, std::vector<Tensor> results,
                                llvm::ArrayRef<std::string> resultNames) {
  llvm::SmallVector<std::string, 2> names;
  for (unsigned i = 0; i < results.size(); ++i)
    names.push_back(i < resultNames.size() && !resultNames[i].empty()
                        ? resultNames[i]
                        : n->getName().str());
  graph_.eraseNode(n);
  ValueList constants;
  for (unsigned i = 0; i < results.size(); ++i)
    constants.push_back(graph_.addConstant(names[i], std::move(results[i])));
  return constants;
}

} // namespace kiln
