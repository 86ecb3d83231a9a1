//===- MemoryPlanner.h - Static scratch memory planning --------*- C++ -*-===//
//
// Assigns every scratch buffer an offset in the scratch region so that two
// buffers whose live ranges overlap never share bytes. Live ranges come from
// the instruction schedule: a buffer is live from the instruction that first
// touches it to the last one that reads it (views share their buffer, so they
// extend it). Placement is greedy (the lowest offset that fits) in two
// orders, largest first as TFLite's arena planner and Glow's allocator do,
// and first use first; the smaller plan wins. With overwriteInputs the
// caller's inputs and outputs are planned with the intermediates, as TFLM's
// arena and X-CUBE-AI's allocated inputs are: one region, the smallest RAM.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_MEMORYPLANNER_H
#define KILN_LIR_MEMORYPLANNER_H

#include "compiler/lir/LIR.h"

namespace kiln {
namespace lir {

struct LiveRange {
  unsigned begin, end; ///< instruction indices, inclusive
};

/// Live range of every scratch and I/O buffer, indexed by Buffer::id (the
/// weights and unused buffers get {UINT_MAX, 0}). Inputs are live from the
/// first instruction, outputs to the last. A slice's uses count as its
/// root's; the slice itself gets {UINT_MAX, 0}.
std::vector<LiveRange> computeLiveRanges(const Function &f);

/// Sets the offsets of the scratch buffers and f.scratchSize (with
/// opts.overwriteInputs: of every buffer but the weights, all moved to the
/// I/O region, and f.ioSize), then every slice's offset from its parent's.
void planMemory(Function &f, const LIROptions &opts = {});

/// Checks that no two buffers of one region with overlapping live ranges
/// overlap in memory, that every buffer lies inside its region and every slice inside
/// its parent.
llvm::Error verifyMemoryPlan(const Function &f);

/// Sum of the (aligned) sizes of all scratch buffers: the size without reuse.
uint64_t unplannedScratchSize(const Function &f);

} // namespace lir
} // namespace kiln

#endif
