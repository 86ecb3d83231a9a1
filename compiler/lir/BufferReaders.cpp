//===- BufferReaders.cpp - Which operands read each LIR buffer ------------===//

#include "compiler/lir/BufferReaders.h"

namespace kiln {
namespace lir {

BufferReaders::BufferReaders(const Function &f) : readers_(f.buffers.size()) {
  for (unsigned i = 0; i < f.instrs.size(); ++i)
    for (unsigned p = 0; p < f.instrs[i].inputs.size(); ++p)
      if (const Buffer *b = f.instrs[i].inputs[p])
        readers_[b->id].push_back({i, p});
}

std::optional<InputSlot> BufferReaders::sole(const Buffer &b) const {
  if (b.region != Region::Scratch || b.parent || readers_[b.id].size() != 1)
    return std::nullopt;
  return readers_[b.id].front();
}

std::optional<InputSlot> BufferReaders::soleUser(const Function &f,
                                                const Instr &producer) const {
  std::optional<InputSlot> slot = sole(*producer.outputs[0]);
  if (!slot)
    return std::nullopt;
  const Instr &user = f.instrs[slot->instr];
  if (user.kind != Instr::Kind::Kernel || slot->input >= user.node->getNumInputs() ||
      user.node->getInput(slot->input) != producer.node->getOutput())
    return std::nullopt;
  return slot;
}

} // namespace lir
} // namespace kiln
