//===- FuseResidual.cpp - Conv + residual Add [+ activation] --------------===//

#include "compiler/graph/Rewrite.h"
#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/ops/ActivationOps.h"

namespace kiln {
namespace lir {

/// Whether `conv`'s kernel can add a residual in its epilogue: an f32 Conv
/// that is not depthwise, or an int8 GEMM, which runs TFLite's ADD on its
/// requantized result.
static bool takesResidual(const Instr &conv) {
  if (conv.kind != Instr::Kind::Kernel || !conv.node->is(OpKind::Conv) || !conv.fused.empty())
    return false;
  if (conv.strategy.kind == KernelStrategy::Kind::Int8Gemm)
    return true;
  return !isDepthwiseConv(*conv.node) && conv.node->getOutput()->getType().dtype == DType::F32;
}

/// Whether the Add's residual operand and result match the Conv's result
/// `y` element for element: of one shape and of `y`'s element count and
/// type (an int8 residual's quantization may differ: the Add rescales both
/// operands). `y`'s shape may differ by a Reshape.
static bool addsElementwise(const TensorType &residual, const TensorType &sum,
                            const TensorType &y) {
  return residual.shape == sum.shape && sum.numElements() == y.numElements() &&
         residual.dtype == y.dtype && sum.dtype == y.dtype;
}

/// The kernel operand that alone reads `conv`'s result, as that value or a
/// Reshape of it.
static std::optional<InputSlot> soleReader(const Function &f, const BufferReaders &readers,
                                           const Instr &conv) {
  std::optional<InputSlot> slot = readers.sole(*conv.outputs[0]);
  if (!slot)
    return std::nullopt;
  const Instr &user = f.instrs[slot->instr];
  if (user.kind != Instr::Kind::Kernel || slot->input >= user.node->getNumInputs() ||
      !isReshapeOf(user.node->getInput(slot->input), conv.node->getOutput()))
    return std::nullopt;
  return slot;
}

void fuseResidualAdds(Function &f) {
  BufferReaders readers(f);
  std::vector<bool> erased(f.instrs.size());
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    Instr &conv = f.instrs[i];
    if (!takesResidual(conv))
      continue;
    auto addSlot = soleReader(f, readers, conv);
    // When both operands are convolutions, the first one fuses: the Add's
    // place then holds a Conv.
    if (!addSlot || !f.instrs[addSlot->instr].node->is(OpKind::Add))
      continue;
    Instr &add = f.instrs[addSlot->instr];
    const TensorType &y = conv.node->getOutput()->getType();
    unsigned residual = 1 - addSlot->input;
    if (!addsElementwise(add.node->getInput(residual)->getType(),
                         add.node->getOutput()->getType(), y))
      continue;
    Instr fusedInstr = std::move(conv);
    fusedInstr.inputs.push_back(add.inputs[residual]);
    fusedInstr.fused.push_back(add.node);
    fusedInstr.outputs = add.outputs;
    // An int8 Add's activation is its output range already.
    std::optional<InputSlot> actSlot;
    if (y.dtype == DType::F32)
      actSlot = readers.soleUser(f, add);
    if (actSlot) {
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
