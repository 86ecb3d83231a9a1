#include "compiler/interpreter/Interpreter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace kiln {

llvm::Expected<std::vector<Tensor>>
evaluateNode(const Node &n, llvm::ArrayRef<const Tensor *> inputs) {
  if (inputs.size() != n.getNumInputs())
    return nodeError(n, llvm::formatv("got {0} input tensors for {1} inputs",
                                      inputs.size(), n.getNumInputs()));
  for (unsigned i = 0; i < inputs.size(); ++i) {
    const Value *v = n.getInput(i);
    if (!v && inputs[i])
      return nodeError(n, llvm::formatv("input {0} is absent but a tensor was "
                                        "given for it",
                                        i));
    if (!v)
      continue;
    if (!inputs[i])
      return nodeError(n, llvm::formatv("no tensor for input {0} ('{1}')", i,
                                        v->getName()));
    if (inputs[i]->getType() != v->getType())
      return nodeError(n, llvm::formatv("input {0} ('{1}') is {2}, expected {3}",
                                        i, v->getName(),
                                        inputs[i]->getType().str(),
                                        v->getType().str()));
  }
  std::vector<Tensor> outputs;
  outputs.reserve(n.getNumOutputs());
  for (const Value *v : n.getOutputs())
    outputs.emplace_back(v->getType());
  if (llvm::Error e = n.getDef().eval(n, inputs, outputs))
    return e;
  return outputs;
}

llvm::Expected<std::vector<Tensor>> runGraph(const Graph &g,
                                             llvm::ArrayRef<Tensor> inputs) {
  llvm::ArrayRef<Value *> graphInputs = g.getInputs();
  if (inputs.size() != graphInputs.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("graph '{0}' has {1} inputs, got {2} tensors",
                      g.getName(), graphInputs.size(), inputs.size()));
  llvm::DenseMap<const Value *, const Tensor *> inputData;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value *v = graphInputs[i];
    if (inputs[i].getType() != v->getType())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("graph input {0} ('{1}') expects {2}, got {3}", i,
                        v->getName(), v->getType().str(),
                        inputs[i].getType().str()));
    inputData[v] = &inputs[i];
  }

  std::vector<Node *> nodes = g.getNodes();
  llvm::DenseSet<const Value *> outputValues;
  for (const GraphOutput &o : g.getOutputs())
    outputValues.insert(o.value);
  // Index of the last node reading each value: results die right after it.
  llvm::DenseMap<const Value *, size_t> lastUse;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const Value *v : nodes[i]->getInputs())
      if (v)
        lastUse[v] = i;

  llvm::DenseMap<const Value *, Tensor> results;
  auto lookup = [&](const Value *v) -> const Tensor * {
    if (v->isConstant())
      return &v->getConstant();
    if (v->isInput())
      return inputData.lookup(v);
    auto it = results.find(v);
    return it == results.end() ? nullptr : &it->second;
  };

  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node &n = *nodes[i];
    llvm::SmallVector<const Tensor *, 4> args;
    for (const Value *v : n.getInputs()) {
      args.push_back(v ? lookup(v) : nullptr);
      if (v && !args.back())
        return nodeError(n, "input '" + v->getName() +
                                "' is read before it is computed");
    }
    auto outs = evaluateNode(n, args);
    if (!outs)
      return outs.takeError();
    for (unsigned j = 0; j < n.getNumOutputs(); ++j) {
      const Value *v = n.getOutput(j);
      if (outputValues.count(v) || lastUse.count(v))
        results[v] = std::move((*outs)[j]);
    }
    for (const Value *v : n.getInputs())
      if (v && v->isResult() && lastUse[v] == i && !outputValues.count(v))
        results.erase(v);
  }

  std::vector<Tensor> outputs;
  for (const GraphOutput &o : g.getOutputs()) {
    const Tensor *t = lookup(o.value);
    if (!t)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "graph output '" + o.name + "' has no value");
    outputs.push_back(*t);
  }
  return outputs;
}

} // namespace kiln
