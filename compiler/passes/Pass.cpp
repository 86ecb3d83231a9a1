#include "compiler/passes/Pass.h"

namespace kiln {

// Out of line so the vtable has one home.
Pass::~Pass() = default;

llvm::Expected<bool> NodeRewritePass::run(Graph &g) {
  bool changed = false;
  Graph::ErasedNodes erased(g);
  for (Node *n : g.getNodes()) {
    if (erased.contains(n) || !n->is(root_))
      continue;
    auto rewritten = rewrite_(g, n);
    if (!rewritten)
      return rewritten.takeError();
    changed |= *rewritten;
  }
  return changed;
}

} // namespace kiln
