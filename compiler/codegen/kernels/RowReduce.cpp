//===- RowReduce.cpp - A row of vectors combined into one value -----------===//

#include "compiler/codegen/kernels/RowReduce.h"

#include <algorithm>

namespace kiln {
namespace codegen {

llvm::Value *reduceRow(KernelBuilder &kb, llvm::Value *base, int64_t full, unsigned tail,
                       RowTerm term, Combine combine, llvm::Value *identity) {
  auto &b = kb.b;
  unsigned lanes = kb.vec.lanes;
  auto at = [&](llvm::Value *k) { return b.CreateAdd(base, b.CreateMul(k, kb.idx(lanes))); };
  llvm::Value *identityVec = kb.splat(identity, lanes);
  unsigned accs = unsigned(std::clamp<int64_t>(full, 1, 4));
  llvm::SmallVector<llvm::Value *, 32> parts(accs, identityVec);
  parts = kb.loopCarried(full / accs, parts, [&](llvm::Value *k, llvm::ArrayRef<llvm::Value *> in) {
    llvm::SmallVector<llvm::Value *, 32> out;
    for (unsigned j = 0; j < accs; ++j)
      out.push_back(combine(
          in[j], term(at(b.CreateAdd(b.CreateMul(k, kb.idx(accs)), kb.idx(j))), lanes)));
    return out;
  });
  for (int64_t k = full / accs * accs; k < full; ++k)
    parts[k % accs] = combine(parts[k % accs], term(at(kb.idx(k)), lanes));
  if (tail)
    parts[0] = combine(parts[0], b.CreateSelect(kb.laneMask(lanes, tail),
                                                term(at(kb.idx(full)), tail), identityVec));
  llvm::Value *part = parts[0];
  for (unsigned j = 1; j < accs; ++j)
    part = combine(part, parts[j]);
  return kb.reduceLanes(part, combine);
}

} // namespace codegen
} // namespace kiln
