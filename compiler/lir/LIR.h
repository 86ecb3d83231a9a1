//===- LIR.h - Low-level IR: instructions over buffers ---------*- C++ -*-===//
//
// The low-level IR is a straight-line list of instructions over buffers. Each
// buffer lives in one of the bundle's three caller-owned regions (weights,
// I/O, scratch) at a byte offset fixed at compile time by the memory planner.
// A kernel instruction carries the primitive graph node it implements (op
// kind, attributes and the static types of its operands); the node's Graph
// outlives the LIR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_LIR_H
#define KILN_LIR_LIR_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {
namespace lir {

enum class Region { Weights, IO, Scratch };

llvm::StringRef regionName(Region r);

/// Every buffer starts at a multiple of this, in every region.
constexpr uint64_t kBufferAlignment = 64;

struct Buffer {
  unsigned id;
  std::string name;
  Region region;
  uint64_t size;       ///< bytes
  uint64_t offset = 0; ///< bytes from the region's base; set by the planner
                       ///< for scratch, by generateLIR for weights and I/O
  /// The data of a weights buffer.
  const Tensor *constant = nullptr;
};

struct Instr {
  enum class Kind {
    Kernel, ///< runs `node`'s op: inputs in node input order, outputs likewise
    Copy,   ///< copies inputs[0] to outputs[0] (same size)
  };
  Kind kind = Kind::Kernel;
  const Node *node = nullptr;
  /// Operand buffers; nullptr for an absent optional input.
  llvm::SmallVector<Buffer *, 3> inputs;
  llvm::SmallVector<Buffer *, 1> outputs;
  /// Scratch the kernel needs while it runs (e.g. a zero-padded input copy).
  Buffer *temp = nullptr;
};

/// A bundle interface tensor.
struct IOTensor {
  std::string name;
  TensorType type;
  Buffer *buffer;
};

struct Function {
  std::string name;
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<Instr> instrs;
  std::vector<IOTensor> inputs, outputs;
  uint64_t weightsSize = 0, ioSize = 0, scratchSize = 0;

  Buffer *addBuffer(llvm::StringRef name, Region region, uint64_t size);
};

/// Builds the LIR of a lowered graph (only primitive ops): weights laid out in
/// first-use order, I/O tensors inputs then outputs, scratch buffers for the
/// intermediates (offsets left for planMemory). Reshape becomes a view of its
/// input's buffer where it can, a copy where it must (a graph output).
llvm::Expected<Function> generateLIR(const Graph &g);

/// The contents of the weights region: every weights buffer's constant at
/// its offset, zero padding between (f.weightsSize bytes).
std::vector<uint8_t> buildWeightsImage(const Function &f);

/// Prints the LIR, one instruction per line, with buffer regions/offsets.
void printLIR(const Function &f, llvm::raw_ostream &os);

} // namespace lir
} // namespace kiln

#endif
