//===- FuseResidual.cpp - Conv + residual Add [+ activation] --------------===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/ops/ActivationOps.h"

namespace kiln {
namespace lir {

void fuseResidualAdds(Function &f) {
  BufferReaders readers(f);
  std::vector<bool> erased(f.instrs.size());
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    Instr &conv = f.instrs[i];
    if (conv.kind != Instr::Kind::Kernel || !conv.node->is(OpKind::Conv) ||
        !conv.fused.empty() || isDepthwiseConv(*conv.node) ||
        conv.node->getOutput()->getType().dtype != DType::F32)
      continue;
    auto addSlot = readers.soleUser(f, conv);
    // When both operands are convolutions, the first one fuses: the Add's
    // place then holds a Conv.
    if (!addSlot || !f.instrs[addSlot->instr].node->is(OpKind::Add))
      continue;
    Instr &add = f.instrs[addSlot->instr];
    const TensorType &y = conv.node->getOutput()->getType();
    unsigned residual = 1 - addSlot->input;
    if (add.node->getInput(residual)->getType() != y || add.node->getOutput()->getType() != y)
      continue;
    Instr fusedInstr = std::move(conv);
    fusedInstr.inputs.push_back(add.inputs[residual]);
    fusedInstr.fused.push_back(add.node);
    fusedInstr.outputs = add.outputs;
    if (auto actSlot = readers.soleUser(f, add)) {
      Instr &act = f.instrs[actSlot->instr];
      if (activationOf(*act.node)) {
        fusedInstr.fused.push_back(act.node);
        fusedInstr.outputs = act.outputs;
        erased[actSlot->instr] = true;
      }
    }
    erased[i] = true;
    add = std::move(fusedInstr);
  }
  f.eraseInstrs(erased);
}

} // namespace lir
} // namespace kiln
