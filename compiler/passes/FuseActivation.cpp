//===- FuseActivation.cpp - Fold activations into Conv / MatMul -----------===//
//
// An activation after a Conv or MatMul costs a full pass over the result;
// applied inside the producer's kernel as each output is written it is
// nearly free. Every record of compiler/ops/Activations.def fuses; SiLU has
// no ONNX op: exporters write x * Sigmoid(x), which is matched as one
// activation. The fused form is the typed kiln.activation attribute.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/ActivationOps.h"
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln {
namespace {

/// For Mul(x, Sigmoid(x)) (either order): the Sigmoid node.
Node *siluSigmoid(const Node &mul) {
  if (!mul.is(OpKind::Mul))
    return nullptr;
  for (unsigned i = 0; i < 2; ++i) {
    Value *s = mul.getInput(i), *x = mul.getInput(1 - i);
    if (s->isResult() && s->getProducer()->is(OpKind::Sigmoid) &&
        s->getProducer()->getInput(0) == x)
      return s->getProducer();
  }
  return nullptr;
}

/// The activation `act` computes from its first input (the value it would
/// fuse into): a single-node activation, or Mul(x, Sigmoid(x)) as SiLU.
struct Match {
  Value *in;
  Activation activation;
  /// Nodes the activation consists of besides `act` (SiLU's Sigmoid).
  Node *inner = nullptr;
};

std::optional<Match> matchActivation(const Graph &g, Node &act) {
  if (std::optional<Activation> a = activationOf(act))
    return Match{act.getInput(0), *a};
  Node *sigmoid = siluSigmoid(act);
  if (!sigmoid || !hasSingleUser(g, sigmoid->getOutput(), &act))
    return std::nullopt;
  Value *x = sigmoid->getInput(0);
  // x's users must be just the two nodes of the pattern.
  if (g.getUsers(x).size() != 2 ||
      llvm::any_of(g.getOutputs(),
                   [&](const GraphOutput &o) { return o.value == x; }))
    return std::nullopt;
  return Match{x, *Activation::make(ActivationKind::SiLU), sigmoid};
}

class FuseActivationPass : public Pass {
public:
  llvm::StringRef getName() const override { return "fuse-activation"; }

  llvm::Expected<bool> run(Graph &g) override {
    bool changed = false;
    for (Node *act : g.getNodes()) {
      auto m = matchActivation(g, *act);
      if (!m)
        continue;
      Value *in = m->in;
      // An int8 activation requantizes to its own result parameters; the
      // int8 producer's fused clamp cannot stand in for it.
      if (!in->isResult() || in->getType().quant.isQuantized())
        continue;
      Node *p = in->getProducer();
      if (!p->is(OpKind::Conv) && !p->is(OpKind::MatMul))
        continue;
      if (!fusedActivation(*p).isNone() ||
          (!m->inner && !hasSingleUser(g, in, act)))
        continue;
      p->setAttr(kActivationAttr, Attr::ofActivation(m->activation));
      if (auto err = replaceValue(g, *act, act->getOutput(), in))
        return std::move(err);
      g.eraseNode(act);
      if (m->inner)
        g.eraseNode(m->inner);
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
