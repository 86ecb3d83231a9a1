//===- LowerLoss.cpp - Loss ops -> gathers and reductions -----------------===//
//
// NegativeLogLikelihoodLoss picks -input[n, t, ...] with GatherElements
// along the class axis, weighs it by weight[t] (Gather) and by whether t is
// not ignore_index (ignored targets first become class 0, so every gather
// stays in range), then reduces: none, ReduceSum, or ReduceSum of the losses
// divided by ReduceSum of the weights. SoftmaxCrossEntropyLoss is the same
// over LogSoftmax(scores, axis 1), which is also its second result.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpViews.h"
#include "compiler/graph/Rewrite.h"

namespace kiln {

llvm::Expected<bool> lowerLoss(Graph &g, Node *n) {
  HelperNodeBuilder b(g, *n);
  LossView view(*n);
  Value *x = view.scores(), *target = view.labels(), *weight = view.weights();
  const TensorType &tt = target->getType();
  if (n->is(OpKind::SoftmaxCrossEntropyLoss)) {
    x = b.add("log_prob", OpKind::LogSoftmax, {x},
              {{"axis", Attr::ofInt(1)}});
    if (x && n->getNumOutputs() > 1)
      if (auto err = replaceValue(g, *n, n->getOutput(1), x))
        return std::move(err);
  }
  // Ignored targets read class 0 and count with weight 0.
  Value *safe = target, *keep = nullptr;
  if (std::optional<int64_t> ignoreIndex = view.ignoreIndex()) {
    Tensor ignore(TensorType(tt.dtype, {}));
    ignore.setFromDouble(0, double(*ignoreIndex));
    Value *isIgnored = b.add("ignored", OpKind::Equal,
                             {target, b.constant("ignore_index", ignore)});
    safe = b.add("safe_target", OpKind::Where,
                 {isIgnored, b.constant("zero", Tensor(TensorType(tt.dtype, {}))),
                  target});
    keep = b.add("keep", OpKind::Cast, {b.add("kept", OpKind::Not, {isIgnored})},
                 {{"to", Attr::ofInt(1)}});
  }
  Shape unsqueezed = tt.shape;
  unsqueezed.insert(unsqueezed.begin() + 1, 1);
  Value *index = b.add("index", OpKind::Reshape, {safe}, reshapeAttrs(unsqueezed));
  Value *picked = b.add("picked", OpKind::GatherElements, {x, index},
                        {{"axis", Attr::ofInt(1)}});
  picked = b.add("picked_flat", OpKind::Reshape, {picked}, reshapeAttrs(tt.shape));
  Value *w = weight ? b.add("weight", OpKind::Gather, {weight, safe}) : nullptr;
  if (keep)
    w = w ? b.add("weight_kept", OpKind::Mul, {w, keep}) : keep;
  Value *loss = b.add("neg", OpKind::Neg, {picked});
  if (w)
    loss = b.add("weighted", OpKind::Mul, {loss, w});
  llvm::StringRef reduction = view.reduction();
  if (reduction != "none") {
    Shape axes;
    for (size_t d = 0; d < tt.rank(); ++d)
      axes.push_back(d);
    AttrMap all{{"axes", Attr::ofInts(axes)}, {"keepdims", Attr::ofInt(0)}};
    Value *sum = b.add("sum", OpKind::ReduceSum, {loss}, all);
    if (reduction == "sum")
      loss = sum;
    else if (w)
      loss = b.add("mean", OpKind::Div,
                   {sum, b.add("weight_sum", OpKind::ReduceSum, {w}, all)});
    else
      loss = b.add("mean", OpKind::ReduceMean, {loss}, all);
  }
  return b.replaceOrigin({loss});
}

} // namespace kiln
