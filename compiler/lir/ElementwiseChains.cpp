//===- ElementwiseChains.cpp - Elementwise fusion decision ----------------===//

#include "compiler/lir/ElementwiseChains.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

namespace kiln {
namespace lir {

ElementwiseChains findElementwiseChains(const Graph &g,
                                        llvm::function_ref<bool(const Node &)> taken) {
  // f32 throughout: the fused kernel keeps intermediates in f32 registers,
  // which for other dtypes would skip a rounding or wrap-around.
  auto chainable = [&](const Node &n) {
    auto f32 = [](const Value *v) { return v && v->getType().dtype == DType::F32; };
    return isElementwise(n.getKind()) && !taken(n) && llvm::all_of(n.getInputs(), f32) &&
           llvm::all_of(n.getOutputs(), f32);
  };
  ElementwiseChains chains;
  llvm::DenseSet<const Node *> inChain;
  for (Node *n : g.getNodes()) {
    if (inChain.count(n) || !chainable(*n))
      continue;
    llvm::SmallVector<const Node *, 4> chain{n};
    const TensorType &type = n->getOutput()->getType();
    while (Node *next = g.getSoleUser(chain.back()->getOutput())) {
      if (inChain.count(next) || !chainable(*next) || next->getOutput()->getType() != type)
        break;
      chain.push_back(next);
    }
    if (chain.size() < 2)
      continue;
    inChain.insert(chain.begin(), chain.end());
    chains[chain.back()] = std::move(chain);
  }
  return chains;
}

} // namespace lir
} // namespace kiln
