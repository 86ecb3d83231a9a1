//===- FuseActivation.cpp - Fold activations into Conv / MatMul -----------===//
//
// An activation after a Conv or MatMul costs a full pass over the result;
// applied inside the producer's kernel as each output is written it is
// nearly free. The fused form is kiln.activation / kiln.activation_params,
// read with parseActivation (compiler/ops/OpHelpers.h).
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"
#include "compiler/passes/RewriteUtils.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln {
namespace {

/// The kiln.activation_params of `act`, or nullopt when it is not an
/// activation kiln fuses.
std::optional<llvm::SmallVector<float, 2>> activationParams(const Node &act) {
  switch (act.getKind()) {
  case OpKind::Relu:
  case OpKind::Sigmoid:
  case OpKind::Tanh:
    return llvm::SmallVector<float, 2>{};
  case OpKind::LeakyRelu:
    return llvm::SmallVector<float, 2>{act.getFloat("alpha")};
  case OpKind::Clip:
    return llvm::SmallVector<float, 2>{act.getFloat("min"),
                                       act.getFloat("max")};
  default:
    return std::nullopt;
  }
}

class FuseActivationPass : public Pass {
public:
  llvm::StringRef getName() const override { return "fuse-activation"; }

  llvm::Expected<bool> run(Graph &g) override {
    bool changed = false;
    for (Node *act : g.getNodes()) {
      auto params = activationParams(*act);
      if (!params)
        continue;
      Value *in = act->getInput(0);
      if (!in->isResult())
        continue;
      Node *p = in->getProducer();
      if (!p->is(OpKind::Conv) && !p->is(OpKind::MatMul))
        continue;
      if (!p->getString("kiln.activation").empty() ||
          !hasSingleUser(g, in, act))
        continue;
      p->setAttr("kiln.activation", Attr::ofString(act->getOpName()));
      p->setAttr("kiln.activation_params", Attr::ofFloats(*params));
      if (auto err = replaceValue(g, *act, act->getOutput(), in))
        return std::move(err);
      g.eraseNode(act);
      changed = true;
    }
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFuseActivationPass() {
  return std::make_unique<FuseActivationPass>();
}

} // namespace kiln
