//===- MemoryPlanner.h - Static scratch memory planning --------*- C++ -*-===//
//
// Assigns every scratch buffer an offset in the scratch region so that two
// buffers whose live ranges overlap never share bytes. Live ranges come from
// the instruction schedule: a buffer is live from the instruction that first
// touches it to the last one that reads it (views share their buffer, so they
// extend it). Placement is greedy by size (largest first, lowest offset that
// fits), which is what TFLite's arena planner and Glow's allocator do too.
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

/// Live range of every scratch buffer, indexed by Buffer::id (buffers of
/// other regions and unused buffers get {UINT_MAX, 0}). A slice's uses
/// count as its root's; the slice itself gets {UINT_MAX, 0}.
std::vector<LiveRange> computeLiveRanges(const Function &f);

/// Sets the offsets of the scratch buffers and f.scratchSize, then every
/// slice's offset from its parent's.
void planMemory(Function &f);

/// Checks that no two scratch buffers with overlapping live ranges overlap in
/// memory, that every buffer lies inside its region and every slice inside
/// its parent.
llvm::Error verifyMemoryPlan(const Function &f);

/// Sum of the (aligned) sizes of all scratch buffers: the size without reuse.
uint64_t unplannedScratchSize(const Function &f);

} // namespace lir
} // namespace kiln

#endif
