//===- ReuseInPlace.cpp - Elementwise results over dying operands ---------===//

#include "compiler/lir/BufferReaders.h"
#include "compiler/lir/LIRPasses.h"

namespace kiln {
namespace lir {

void reuseBuffersInPlace(Function &f) {
  BufferReaders readers(f);
  // The last instruction that reads each buffer, by id; a result moved into
  // an operand's buffer extends that buffer's life to its own last read.
  std::vector<int64_t> lastRead(f.buffers.size(), -1);
  for (const auto &b : f.buffers)
    if (!readers.of(*b).empty())
      lastRead[b->id] = readers.of(*b).back().instr;
  std::vector<Buffer *> movedTo(f.buffers.size(), nullptr);
  for (unsigned k = 0; k < f.instrs.size(); ++k) {
    Instr &in = f.instrs[k];
    for (Buffer *&b : in.inputs)
      if (b && movedTo[b->id])
        b = movedTo[b->id];
    if (in.kind != Instr::Kind::Kernel || !isElementwise(in.node->getKind()))
      continue;
    Buffer *result = in.outputs[0];
    if (result->region != Region::Scratch || result->parent)
      continue;
    DType dtype = (in.fused.empty() ? in.node : in.fused.back())->getOutput()->getType().dtype;
    llvm::SmallVector<const Value *, 4> operands = operandValues(in);
    for (unsigned p = 0; p < in.inputs.size(); ++p) {
      Buffer *b = in.inputs[p];
      if (b && b->region == Region::Scratch && !b->parent && lastRead[b->id] == k &&
          operands[p]->getType().dtype == dtype && b->size == result->size) {
        movedTo[result->id] = b;
        lastRead[b->id] = lastRead[result->id];
        in.outputs[0] = b;
        break;
      }
    }
  }
}

} // namespace lir
} // namespace kiln
