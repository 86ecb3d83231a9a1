//===- ElideConcat.cpp - Concat inputs written in place --------------------===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/ops/OpViews.h"

namespace kiln {
namespace lir {

namespace {
/// Whether the inputs of `concat` (instruction `at`) can be slices of its
/// output.
bool elidable(const Function &f, const BufferReaders &readers, unsigned at) {
  const Instr &concat = f.instrs[at];
  const TensorType &t = concat.node->getOutput()->getType();
  int64_t axis = ConcatView(*concat.node).axis();
  if (axis < 0)
    axis += t.rank();
  for (int64_t d = 0; d < axis; ++d)
    if (t.shape[d] != 1)
      return false;
  uint64_t offset = 0;
  for (unsigned p = 0; p < concat.inputs.size(); ++p) {
    const Value *v = concat.node->getInput(p);
    const Buffer *b = concat.inputs[p];
    // A Reshape's result is a view of another buffer.
    auto slot = b ? readers.sole(*b) : std::nullopt;
    if (!slot || slot->instr != at || !v->isResult() || v->getProducer()->is(OpKind::Reshape) ||
        offset % kBufferAlignment || b->size == 0)
      return false;
    offset += b->size;
  }
  return true;
}
} // namespace

void elideConcats(Function &f) {
  BufferReaders readers(f);
  std::vector<bool> erased(f.instrs.size());
  for (unsigned i = f.instrs.size(); i-- > 0;) {
    Instr &concat = f.instrs[i];
    if (concat.kind != Instr::Kind::Kernel || !concat.node->is(OpKind::Concat) ||
        !elidable(f, readers, i))
      continue;
    Buffer *out = concat.outputs[0];
    uint64_t offset = 0;
    for (Buffer *slice : concat.inputs) {
      slice->parent = out;
      slice->region = out->region;
      slice->offsetInParent = offset;
      slice->offset = out->offset + offset;
      offset += slice->size;
    }
    erased[i] = true;
  }
  f.eraseInstrs(erased);
}

} // namespace lir
} // namespace kiln
