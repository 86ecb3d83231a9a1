//===- ConstantFolding.cpp - Evaluate nodes of constants ------------------===//
//
// Folding uses the reference interpreter, so a folded value is by
// construction what the unoptimized graph computes, for every op, with no
// second implementation of any op's semantics to keep in step.
//
//===----------------------------------------------------------------------===//
#include "compiler/interpreter/Interpreter.h"
#include "compiler/ops/TypeRuleHelpers.h"
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"

#include <deque>

namespace kiln {
namespace {

/// Shape reads only its input's type, which is static, so it folds whatever
/// produces that input; this is what lets shape arithmetic exported with a
/// model (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) fold away.
bool isFoldable(const Node &n) {
  if (readsOnlyInputTypes(n.getKind()))
    return true;
  return llvm::all_of(n.getInputs(),
                      [](const Value *v) { return !v || v->isConstant(); });
}

class ConstantFoldingPass : public Pass {
public:
  llvm::StringRef getName() const override { return "constant-folding"; }

  llvm::Expected<bool> run(Graph &g) override {
    bool changed = false;
    for (Node *n : g.getNodes()) {
      if (!isFoldable(*n))
        continue;
      if (auto err = g.checkFold(*n))
        return std::move(err);
      // Stand-ins for Shape's non-constant input: zero data of the right
      // type, of which Shape reads only the type.
      std::deque<Tensor> placeholders;
      llvm::SmallVector<const Tensor *, 4> inputs;
      for (const Value *v : n->getInputs()) {
        if (!v)
          inputs.push_back(nullptr);
        else if (v->isConstant())
          inputs.push_back(&v->getConstant());
        else
          inputs.push_back(&placeholders.emplace_back(v->getType()));
      }
      auto results = evaluateNode(*n, inputs);
      if (!results)
        return results.takeError();
      if (results->size() != n->getNumOutputs())
        return nodeError(*n, "evaluation gave a wrong number of results");
      for (unsigned i = 0; i < n->getNumOutputs(); ++i) {
        Value *out = n->getOutput(i);
        Value *c = g.addConstant(out->getName(), std::move((*results)[i]));
        if (auto err = replaceValue(g, *n, out, c))
          return std::move(err);
      }
      g.eraseNode(n);
      changed = true;
    }
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createConstantFoldingPass() {
  return std::make_unique<ConstantFoldingPass>();
}

} // namespace kiln
