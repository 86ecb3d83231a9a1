//===- FoldInputTranspose.cpp - int8 im2col from an NHWC input ------------===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/ops/OpViews.h"

namespace kiln {
namespace lir {

/// Whether `in` transposes a 4-D tensor from NHWC to NCHW.
static bool isNhwcToNchw(const Instr &in) {
  if (in.kind != Instr::Kind::Kernel || !in.node->is(OpKind::Transpose) ||
      in.node->getOutput()->getType().rank() != 4)
    return false;
  auto perm = TransposeView(*in.node).perm();
  return perm && llvm::ArrayRef<int64_t>(*perm) == llvm::ArrayRef<int64_t>({0, 3, 1, 2});
}

void foldInputTransposes(Function &f) {
  BufferReaders readers(f);
  std::vector<bool> erased(f.instrs.size());
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    Instr &transpose = f.instrs[i];
    if (!isNhwcToNchw(transpose))
      continue;
    auto slot = readers.soleUser(f, transpose);
    if (!slot || slot->input != 0)
      continue;
    Instr &conv = f.instrs[slot->instr];
    if (!conv.node->is(OpKind::Conv) ||
        conv.strategy.kind != KernelStrategy::Kind::Int8Gemm ||
        conv.strategy.columns != Int8Columns::Gathered)
      continue;
    conv.inputs[0] = transpose.inputs[0];
    conv.strategy.columns = Int8Columns::GatheredChannelsLast;
    erased[i] = true;
  }
  f.eraseInstrs(erased);
}

} // namespace lir
} // namespace kiln
