//===- CommonSubexpressionElimination.cpp - One node per computation ------===//
//
// Exported graphs repeat work: the same Shape/Reshape/Transpose of one
// tensor taken for several branches, the same activation applied twice,
// lowering's helper nodes duplicated per use. Every op is a pure function
// of its inputs and attributes, so two nodes of the same op with the same
// inputs and attributes compute the same results: the later one goes.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace kiln {
namespace {

bool sameComputation(const Node &a, const Node &b) {
  return a.getKind() == b.getKind() && a.getInputs() == b.getInputs() &&
         a.getNumOutputs() == b.getNumOutputs() && a.getAttrs() == b.getAttrs();
}

class CommonSubexpressionEliminationPass : public Pass {
public:
  llvm::StringRef getName() const override { return "cse"; }

  llvm::Expected<bool> run(Graph &g) override {
    // Candidates by op and first input; the nodes come in topological
    // order, so the kept node always precedes the ones it replaces.
    llvm::DenseMap<std::pair<unsigned, const Value *>, llvm::SmallVector<Node *, 2>>
        seen;
    bool changed = false;
    for (Node *n : g.getNodes()) {
      auto &bucket = seen[{static_cast<unsigned>(n->getKind()), n->getInput(0)}];
      auto it = llvm::find_if(bucket, [&](Node *m) { return sameComputation(*m, *n); });
      if (it == bucket.end()) {
        bucket.push_back(n);
        continue;
      }
      for (unsigned i = 0; i < n->getNumOutputs(); ++i)
        if (auto err = replaceValue(g, *n, n->getOutput(i), (*it)->getOutput(i)))
          return std::move(err);
      g.eraseNode(n);
      changed = true;
    }
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createCommonSubexpressionEliminationPass() {
  return std::make_unique<CommonSubexpressionEliminationPass>();
}

} // namespace kiln
