//===- LayOutBuffers.cpp - Buffer numbering and the weights layout --------===//

#include "compiler/lir/LIRPasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
namespace lir {

void layOutBuffers(Function &f) {
  std::vector<bool> listed(f.buffers.size());
  std::vector<Buffer *> order;
  // `b`, after its parent.
  auto use = [&](Buffer *b) {
    llvm::SmallVector<Buffer *, 2> unlisted;
    for (; b && !listed[b->id]; b = b->parent)
      unlisted.push_back(b);
    for (Buffer *u : llvm::reverse(unlisted)) {
      listed[u->id] = true;
      order.push_back(u);
    }
  };
  for (const IOTensor &t : f.inputs)
    use(t.buffer);
  for (const IOTensor &t : f.outputs)
    use(t.buffer);
  // A kernel's own operands, its temp, then its fused nodes' operands, as
  // they come into use.
  for (const Instr &in : f.instrs) {
    size_t own = in.node ? std::min<size_t>(in.node->getNumInputs(), in.inputs.size())
                         : in.inputs.size();
    for (size_t i = 0; i < own; ++i)
      use(in.inputs[i]);
    use(in.temp);
    for (size_t i = own; i < in.inputs.size(); ++i)
      use(in.inputs[i]);
    for (Buffer *b : in.outputs)
      use(b);
  }
  std::vector<std::unique_ptr<Buffer>> kept;
  kept.reserve(order.size());
  for (Buffer *b : order) {
    kept.push_back(std::move(f.buffers[b->id]));
    b->id = kept.size() - 1;
  }
  f.buffers = std::move(kept);
  f.weightsSize = 0;
  for (auto &b : f.buffers)
    if (b->region == Region::Weights) {
      b->offset = f.weightsSize;
      f.weightsSize = llvm::alignTo(f.weightsSize + b->size, kBufferAlignment);
    }
}

} // namespace lir
} // namespace kiln
