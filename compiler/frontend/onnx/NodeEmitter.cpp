//===- NodeEmitter.cpp - Adding imported nodes with eager folding ---------===//

#include "compiler/frontend/onnx/NodeEmitter.h"

#include "compiler/interpreter/Interpreter.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace kiln {

llvm::Error PendingNode::error(const llvm::Twine &msg) const {
  return nodeError(name, getOpDef(kind).name, msg);
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
  if (n->is(OpKind::Shape))
    return foldShape(n, resultNames);
  bool allConstant =
      n->getNumInputs() > 0 && llvm::all_of(n->getInputs(), [](Value *v) {
        return !v || v->isConstant();
      });
  if (allConstant)
    return foldConstant(n, resultNames);
  ValueList results(n->getOutputs().begin(), n->getOutputs().end());
  for (unsigned i = 0; i < results.size() && i < resultNames.size(); ++i)
    if (!resultNames[i].empty())
      graph_.renameValue(results[i], resultNames[i]);
  return results;
}

/// Shape only reads its input's type, which is always static, so it folds
/// even when the input is computed at run time. ONNX-15 semantics: the dims
/// in [start, end), negative indices counting from the back, clamped.
llvm::Expected<ValueList>
NodeEmitter::foldShape(Node *n, llvm::ArrayRef<std::string> resultNames) {
  llvm::ArrayRef<int64_t> dims = n->getInput(0)->getType().shape;
  int64_t rank = dims.size();
  auto bound = [&](llvm::StringRef attrName, int64_t dflt) {
    const Attr *a = n->getAttr(attrName);
    int64_t v = a && a->getKind() == AttrKind::Int ? a->getInt() : dflt;
    if (v < 0)
      v = std::max<int64_t>(v, -rank) + rank;
    return std::min(v, rank);
  };
  int64_t start = bound("start", 0);
  int64_t end = std::max(start, bound("end", rank));
  llvm::SmallVector<int64_t, 6> values(dims.begin() + start,
                                       dims.begin() + end);
  Tensor t = Tensor::fromValues<int64_t>(
      DType::I64, {static_cast<int64_t>(values.size())}, values);
  if (n->getNumOutputs() != 1 || t.getType() != n->getOutput(0)->getType())
    return nodeError(*n, "folding gives " + t.getType().str() +
                             ", which the op's type rule does not");
  std::vector<Tensor> results;
  results.push_back(std::move(t));
  return replaceByConstants(n, std::move(results), resultNames);
}

llvm::Expected<ValueList>
NodeEmitter::foldConstant(Node *n, llvm::ArrayRef<std::string> resultNames) {
  llvm::SmallVector<const Tensor *, 4> inputs;
  for (Value *v : n->getInputs())
    inputs.push_back(v ? &v->getConstant() : nullptr);
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
