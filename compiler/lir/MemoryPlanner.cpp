//===- MemoryPlanner.cpp - Static scratch memory planning -----------------===//

#include "compiler/lir/MemoryPlanner.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <climits>

namespace kiln {
namespace lir {

namespace {
bool overlaps(LiveRange a, LiveRange b) {
  return a.begin <= b.end && b.begin <= a.end;
}
bool isUsed(LiveRange r) { return r.begin <= r.end; }

/// Places `order` greedily, each at the lowest offset clear of the placed
/// buffers live at the same time; returns the region size.
uint64_t placeGreedy(llvm::ArrayRef<Buffer *> order,
                     const std::vector<LiveRange> &ranges) {
  std::vector<Buffer *> placed;
  uint64_t total = 0;
  for (Buffer *b : order) {
    std::vector<const Buffer *> conflicts;
    for (Buffer *p : placed)
      if (overlaps(ranges[p->id], ranges[b->id]))
        conflicts.push_back(p);
    llvm::sort(conflicts, [](const Buffer *x, const Buffer *y) {
      return x->offset < y->offset || (x->offset == y->offset && x->id < y->id);
    });
    uint64_t offset = 0;
    for (const Buffer *c : conflicts) {
      if (offset + b->size <= c->offset)
        break;
      offset = std::max(offset,
                        llvm::alignTo(c->offset + c->size, kBufferAlignment));
    }
    b->offset = offset;
    placed.push_back(b);
    total = std::max(total, llvm::alignTo(offset + b->size, kBufferAlignment));
  }
  return total;
}
} // namespace

std::vector<LiveRange> computeLiveRanges(const Function &f) {
  std::vector<LiveRange> ranges(f.buffers.size(), LiveRange{UINT_MAX, 0});
  auto touch = [&](const Buffer *b, unsigned i) {
    if (!b || b->region == Region::Weights)
      return;
    LiveRange &r = ranges[b->root()->id];
    r.begin = std::min(r.begin, i);
    r.end = std::max(r.end, i);
  };
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    const Instr &in = f.instrs[i];
    for (const Buffer *b : in.inputs)
      touch(b, i);
    for (const Buffer *b : in.outputs)
      touch(b, i);
    touch(in.temp, i);
  }
  // The caller writes the inputs before the run and reads the outputs after.
  unsigned last = f.instrs.empty() ? 0 : f.instrs.size() - 1;
  for (const IOTensor &t : f.inputs) {
    LiveRange &r = ranges[t.buffer->id];
    r = {0, isUsed(r) ? r.end : 0};
  }
  for (const IOTensor &t : f.outputs) {
    LiveRange &r = ranges[t.buffer->id];
    r = {isUsed(r) ? r.begin : 0, last};
  }
  return ranges;
}

void planMemory(Function &f, const LIROptions &opts) {
  std::vector<LiveRange> ranges = computeLiveRanges(f);
  auto placed = [&](const Buffer &b) {
    return (b.region == Region::Scratch ||
            (opts.overwriteInputs && b.region == Region::IO)) &&
           !b.parent && isUsed(ranges[b.id]);
  };
  std::vector<Buffer *> bySize;
  for (auto &b : f.buffers)
    if (placed(*b))
      bySize.push_back(b.get());
  // Largest first, and first use first: each greedy order wins on some
  // schedules; the smaller plan is kept. Ties by id keep it deterministic.
  llvm::stable_sort(bySize, [](const Buffer *a, const Buffer *b) {
    return a->size > b->size;
  });
  std::vector<Buffer *> byStart = bySize;
  llvm::stable_sort(byStart, [&](const Buffer *a, const Buffer *b) {
    return ranges[a->id].begin < ranges[b->id].begin;
  });
  uint64_t total = placeGreedy(byStart, ranges);
  std::vector<uint64_t> startOffsets;
  for (const Buffer *b : byStart)
    startOffsets.push_back(b->offset);
  uint64_t sizeTotal = placeGreedy(bySize, ranges);
  if (total < sizeTotal) {
    for (size_t i = 0; i < byStart.size(); ++i)
      byStart[i]->offset = startOffsets[i];
  } else {
    total = sizeTotal;
  }
  if (opts.overwriteInputs) {
    // One arena: everything lives in the I/O region.
    for (auto &b : f.buffers)
      if (b->region == Region::Scratch)
        b->region = Region::IO;
    f.ioSize = total;
    f.scratchSize = 0;
  } else {
    f.scratchSize = total;
  }
  // Parents are created before their slices.
  for (auto &b : f.buffers)
    if (b->parent)
      b->offset = b->parent->offset + b->offsetInParent;
}

llvm::Error verifyMemoryPlan(const Function &f) {
  std::vector<LiveRange> ranges = computeLiveRanges(f);
  auto fail = [](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "memory plan: " + msg);
  };
  for (auto &b : f.buffers) {
    if (b->parent &&
        (b->region != b->parent->region || b->offset != b->parent->offset + b->offsetInParent ||
         b->offsetInParent + b->size > b->parent->size))
      return fail(llvm::formatv("slice '{0}' not inside its parent '{1}'", b->name,
                                b->parent->name));
    uint64_t limit = b->region == Region::Weights ? f.weightsSize
                     : b->region == Region::IO    ? f.ioSize
                                                  : f.scratchSize;
    if (b->region != Region::Weights && !isUsed(ranges[b->root()->id]))
      continue;
    if (b->offset % kBufferAlignment != 0 || b->offset + b->size > limit)
      return fail(llvm::formatv("buffer '{0}' [{1},{2}) outside {3} region of {4} bytes or misaligned",
                                b->name, b->offset, b->offset + b->size,
                                regionName(b->region), limit));
  }
  for (size_t i = 0; i < f.buffers.size(); ++i) {
    const Buffer &a = *f.buffers[i];
    if (a.region == Region::Weights || !isUsed(ranges[a.id]))
      continue;
    for (size_t j = i + 1; j < f.buffers.size(); ++j) {
      const Buffer &b = *f.buffers[j];
      if (b.region != a.region || !isUsed(ranges[b.id]) ||
          !overlaps(ranges[a.id], ranges[b.id]))
        continue;
      if (a.offset < b.offset + b.size && b.offset < a.offset + a.size)
        return fail(llvm::formatv("live buffers '{0}' and '{1}' overlap",
                                  a.name, b.name));
    }
  }
  return llvm::Error::success();
}

uint64_t unplannedScratchSize(const Function &f) {
  std::vector<LiveRange> ranges = computeLiveRanges(f);
  uint64_t sum = 0;
  for (auto &b : f.buffers)
    if (b->region == Region::Scratch && isUsed(ranges[b->id]))
      sum += llvm::alignTo(b->size, kBufferAlignment);
  return sum;
}

} // namespace lir
} // namespace kiln
