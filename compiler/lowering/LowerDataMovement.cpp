//===- LowerDataMovement.cpp - Shape-only ops -> Reshape or nothing -------===//
//
// Flatten, Squeeze and Unsqueeze only relabel a row-major buffer, which is
// what Reshape (a view in the code generator) does; Identity, inference
// Dropout (whose mask is then all true), a no-op Cast and a Pad by nothing
// (exporters emit those) do not even relabel it.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/LowerRules.h"
#include "compiler/ops/OpViews.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace kiln {

llvm::Expected<bool> lowerToReshape(Graph &g, Node *n) {
  Value *out = n->getOutput();
  auto reshape =
      addReplacementNode(g, *n, OpKind::Reshape, {n->getInput(0)},
                         {{"shape", Attr::ofInts(out->getType().shape)}});
  if (!reshape)
    return reshape.takeError();
  return replaceNode(g, n, (*reshape)->getOutput());
}

namespace {

/// Checks that a Dropout runs in inference mode, in which it forwards its
/// input and its mask is all true.
llvm::Error checkInferenceDropout(const Node &n) {
  if (const Value *mode = n.getInput(2)) {
    const Tensor *t = constantData(mode);
    if (!t)
      return nodeError(n, "training_mode must be a constant");
    for (int64_t i = 0; i < t->numElements(); ++i)
      if (t->getAsInt(i) != 0)
        return nodeError(n, "training_mode=true is not supported "
                            "(inference only)");
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<bool> removeForwarding(Graph &g, Node *n) {
  if (n->is(OpKind::Dropout)) {
    if (auto err = checkInferenceDropout(*n))
      return std::move(err);
    if (n->getNumOutputs() > 1 && g.hasUses(n->getOutput(1))) {
      Value *mask = n->getOutput(1);
      Tensor ones(mask->getType());
      std::fill(ones.rawData(), ones.rawData() + ones.sizeInBytes(), 1);
      if (auto err = replaceValue(
              g, *n, mask,
              g.addConstant(n->getName().str() + "/mask", std::move(ones))))
        return std::move(err);
    }
  }
  Value *in = n->getInput(0), *out = n->getOutput();
  if (n->is(OpKind::Cast) && in->getType() != out->getType())
    return false;
  if (n->is(OpKind::Pad) &&
      llvm::any_of(PadView(*n).pads(), [](int64_t p) { return p != 0; }))
    return false;
  return replaceNode(g, n, in);
}

llvm::Expected<bool> makePermExplicit(Graph &g, Node *n) {
  TransposeView transpose(*n);
  if (transpose.perm())
    return false;
  size_t rank = transpose.input()->getType().rank();
  Shape perm;
  for (size_t i = rank; i-- > 0;)
    perm.push_back(i);
  n->setAttr("perm", Attr::ofInts(perm));
  if (auto err = checkTypesUnchanged(g, *n))
    return std::move(err);
  return true;
}

} // namespace kiln
