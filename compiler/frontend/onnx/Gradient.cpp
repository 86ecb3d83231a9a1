//===- Gradient.cpp - ONNX Gradient by reverse-mode differentiation -------===//

#include "compiler/frontend/onnx/Gradient.h"
#include "compiler/frontend/onnx/AdapterUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace kiln {
namespace {

/// `v` (a derivative of a broadcast result) summed over the axes that
/// broadcasting added or stretched, back to `shape`.
Value *unbroadcast(Formula &f, Value *v, llvm::ArrayRef<int64_t> shape) {
  if (!v || llvm::equal(v->getType().shape, shape))
    return v;
  llvm::ArrayRef<int64_t> from = v->getType().shape;
  int64_t lead = from.size() - shape.size();
  Shape axes;
  for (int64_t d = 0; d < static_cast<int64_t>(from.size()); ++d)
    if (d < lead || (shape[d - lead] == 1 && from[d] != 1))
      axes.push_back(d);
  Value *summed = f.reduce("unbroadcast", OpKind::ReduceSum, v, axes, true);
  return f.add("unbroadcast_shape", OpKind::Reshape, {summed},
               {{"shape", Attr::ofInts(shape)}});
}

Value *filled(Formula &f, llvm::StringRef role, const TensorType &type,
              double value) {
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setFromDouble(i, value);
  return f.constant(role, std::move(t));
}

} // namespace

llvm::Expected<ValueList> emitGradient(NodeEmitter &e, const PendingNode &n,
                                       Value *y, llvm::ArrayRef<Value *> xs) {
  if (y->getType().dtype != DType::F32)
    return n.error("differentiates f32 tensors only; y is " +
                   y->getType().str());
  std::vector<Node *> nodes = e.getGraph().getNodes();
  // Values that depend on an x, in graph (topological) order.
  llvm::DenseSet<const Value *> dependsOnX(xs.begin(), xs.end());
  for (Node *node : nodes)
    if (llvm::any_of(node->getInputs(),
                     [&](Value *v) { return v && dependsOnX.count(v); }))
      for (Value *out : node->getOutputs())
        dependsOnX.insert(out);

  Formula f(e, n);
  llvm::DenseMap<const Value *, Value *> grad;
  if (dependsOnX.count(y))
    grad[y] = filled(f, "dy", y->getType(), 1.0);
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    Node *node = *it;
    if (node->getNumOutputs() != 1 || !grad.count(node->getOutput()))
      continue;
    Value *dy = grad[node->getOutput()];
    auto input = [&](unsigned i) { return node->getInput(i); };
    auto accumulate = [&](unsigned i, Value *d) {
      Value *in = input(i);
      if (!dependsOnX.count(in))
        return;
      d = unbroadcast(f, d, in->getType().shape);
      auto [slot, inserted] = grad.try_emplace(in, d);
      if (!inserted)
        slot->second = f.add("accumulate", OpKind::Add, {slot->second, d});
    };
    switch (node->getKind()) {
    case OpKind::Identity:
      accumulate(0, dy);
      break;
    case OpKind::Neg:
      accumulate(0, f.add("d_neg", OpKind::Neg, {dy}));
      break;
    case OpKind::Add:
      accumulate(0, dy);
      accumulate(1, dy);
      break;
    case OpKind::Sub:
      accumulate(0, dy);
      accumulate(1, f.add("d_sub", OpKind::Neg, {dy}));
      break;
    case OpKind::Mul:
      accumulate(0, f.add("d_mul", OpKind::Mul, {dy, input(1)}));
      accumulate(1, f.add("d_mul", OpKind::Mul, {dy, input(0)}));
      break;
    case OpKind::Div: {
      // d(a/b)/da = 1/b, d(a/b)/db = -a/b^2 = -(a/b)/b.
      Value *quotient = f.add("d_div", OpKind::Div, {dy, input(1)});
      accumulate(0, quotient);
      accumulate(1, f.add("d_div_b", OpKind::Neg,
                          {f.add("d_div_q", OpKind::Mul,
                                 {quotient, node->getOutput()})}));
      break;
    }
    default:
      llvm::consumeError(f.takeError());
      return n.error("cannot differentiate through node '" + node->getName() +
                     "' (" + node->getOpName() +
                     "): only Add, Sub, Mul, Div, Neg and Identity are");
    }
  }
  ValueList results;
  for (size_t i = 0; i < xs.size(); ++i) {
    auto d = grad.find(xs[i]);
    Value *dx =
        d != grad.end() ? d->second : filled(f, "zero", xs[i]->getType(), 0.0);
    results.push_back(f.add("d", OpKind::Identity, {dx}, {},
                            i < n.outputs.size() ? n.outputs[i] : ""));
  }
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return results;
}

} // namespace kiln
