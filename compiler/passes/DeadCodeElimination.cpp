//===- DeadCodeElimination.cpp - Remove unused nodes and constants --------===//
//
// Rewrites leave dead producers behind (a folded BatchNorm's parameters, a
// Gemm's transposed weights); removing them here keeps every rewrite simple
// and keeps unused weights out of the bundle.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln {
namespace {

class DeadCodeEliminationPass : public Pass {
public:
  llvm::StringRef getName() const override { return "dce"; }

  llvm::Expected<bool> run(Graph &g) override {
    bool changed = false;
    // Users come after producers, so walking backwards has already removed
    // every dead user of a node when the node is reached: one sweep clears
    // whole dead chains.
    std::vector<Node *> nodes = g.getNodes();
    for (Node *n : llvm::reverse(nodes)) {
      if (llvm::any_of(n->getOutputs(),
                       [&](const Value *v) { return g.hasUses(v); }))
        continue;
      g.eraseNode(n);
      changed = true;
    }
    if (g.eraseUnusedConstants() != 0)
      changed = true;
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createDeadCodeEliminationPass() {
  return std::make_unique<DeadCodeEliminationPass>();
}

} // namespace kiln
