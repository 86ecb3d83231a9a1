//===- ElideConcat.cpp - Concat inputs written in place --------------------===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/ops/OpViews.h"

namespace kiln {
namespace lir {

namespace {
/// Whether the instructions from the first producer of an input of `concat`
/// (instruction `at`) up to it produce only its inputs. Its output, live
/// from that producer on, then holds only bytes that were live there anyway.
bool inputsProducedJustBefore(const Function &f, unsigned at) {
  const Instr &concat = f.instrs[at];
  size_t left = concat.inputs.size();
  for (unsigned i = at; i-- > 0 && left;) {
    size_t produced = llvm::count_if(f.instrs[i].outputs, [&](const Buffer *b) {
      return llvm::is_contained(concat.inputs, b);
    });
    if (!produced)
      return false;
    left -= std::min(left, produced);
  }
  return !left;
}

/// Whether the inputs of `concat` (instruction `at`) can be slices of its
/// output: each an intermediate of its own (not a view, the caller's, or
/// already a slice), once in the Concat, at an aligned offset. An input that
/// others read too (they read the slice) keeps the Concat unless the inputs
/// are made just before it: else the output would live from that input on
/// (a U-Net's skip connection), most of it idle.
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
  bool shared = false;
  for (unsigned p = 0; p < concat.inputs.size(); ++p) {
    const Value *v = concat.node->getInput(p);
    const Buffer *b = concat.inputs[p];
    // A Reshape's result is a view of another buffer.
    if (!b || b->region != Region::Scratch || b->parent || !v->isResult() ||
        v->getProducer()->is(OpKind::Reshape) || llvm::count(concat.inputs, b) != 1 ||
        offset % kBufferAlignment || b->size == 0)
      return false;
    shared |= readers.of(*b).size() != 1;
    offset += b->size;
  }
  return !shared || inputsProducedJustBefore(f, at);
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
