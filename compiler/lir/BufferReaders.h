//===- BufferReaders.h - Which operands read each LIR buffer ---*- C++ -*-===//
//
// The LIR passes' one analysis: the input operands that read each buffer.
// From it, a buffer that one operand alone reads is what the graph calls a
// value's sole user, and the last reader is where its bytes die.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_BUFFERREADERS_H
#define KILN_LIR_BUFFERREADERS_H

#include "compiler/lir/LIR.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace kiln {
namespace lir {

/// An input operand: f.instrs[instr].inputs[input].
struct InputSlot {
  unsigned instr, input;
};

/// The input slots reading each buffer of a function, in instruction order,
/// as they were when it was built (buffers are known by id, so the function
/// must not gain buffers meanwhile).
class BufferReaders {
public:
  explicit BufferReaders(const Function &f);

  llvm::ArrayRef<InputSlot> of(const Buffer &b) const { return readers_[b.id]; }

  /// The one slot that reads `b`, when `b` holds an intermediate of its own
  /// (scratch, not a slice of another buffer) and exactly one operand reads
  /// it; a graph output or a value read twice has none.
  std::optional<InputSlot> sole(const Buffer &b) const;

  /// The kernel operand that alone reads the result of `producer` (a kernel
  /// of one output), as that very value rather than a view of it: what the
  /// graph calls the result's sole user.
  std::optional<InputSlot> soleUser(const Function &f, const Instr &producer) const;

private:
  std::vector<llvm::SmallVector<InputSlot, 2>> readers_;
};

} // namespace lir
} // namespace kiln

#endif
