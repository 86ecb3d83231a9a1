//===- FuseElementwise.cpp - Chains of elementwise instructions -----------===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/LIRPasses.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln {
namespace lir {

namespace {
/// f32 throughout: the fused kernel keeps intermediates in f32 registers,
/// which for other dtypes would skip a rounding or wrap-around.
bool chainable(const Instr &in) {
  auto f32 = [](const Value *v) { return v && v->getType().dtype == DType::F32; };
  return in.kind == Instr::Kind::Kernel && in.fused.empty() &&
         isElementwise(in.node->getKind()) && llvm::all_of(in.node->getInputs(), f32) &&
         llvm::all_of(in.node->getOutputs(), f32);
}
} // namespace

void fuseElementwiseChains(Function &f) {
  BufferReaders readers(f);
  std::vector<bool> inChain(f.instrs.size());
  std::vector<bool> erased(f.instrs.size());
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    if (inChain[i] || !chainable(f.instrs[i]))
      continue;
    llvm::SmallVector<unsigned, 4> chain{i};
    const TensorType &type = f.instrs[i].node->getOutput()->getType();
    while (auto slot = readers.soleUser(f, f.instrs[chain.back()])) {
      const Instr &next = f.instrs[slot->instr];
      if (inChain[slot->instr] || !chainable(next) || next.node->getOutput()->getType() != type)
        break;
      chain.push_back(slot->instr);
    }
    if (chain.size() < 2)
      continue;
    // The first node's operands, then each later node's other than the
    // previous result (Instr::fused).
    llvm::SmallVector<const Node *, 4> nodes;
    for (unsigned k : chain)
      nodes.push_back(f.instrs[k].node);
    Instr fusedInstr = std::move(f.instrs[i]);
    for (size_t k = 1; k < chain.size(); ++k) {
      const Instr &in = f.instrs[chain[k]];
      for (unsigned p = 0; p < in.inputs.size(); ++p)
        if (nodes[k]->getInput(p) != nodes[k - 1]->getOutput())
          fusedInstr.inputs.push_back(in.inputs[p]);
      fusedInstr.fused.push_back(nodes[k]);
    }
    fusedInstr.outputs = f.instrs[chain.back()].outputs;
    for (unsigned k : chain) {
      inChain[k] = true;
      erased[k] = k != chain.back();
    }
    f.instrs[chain.back()] = std::move(fusedInstr);
  }
  f.eraseInstrs(erased);
}

} // namespace lir
} // namespace kiln
