//===- MergeConstants.cpp - One constant per distinct tensor --------------===//
//
// A tied weight (ALBERT's shared layers, a recurrent convolution's repeated
// block) is one initializer, but exporters give each reader its own name
// through an Identity, which folding turns into a copy; per-reader rewrites
// (tap trimming, bias reshapes) copy again. Every copy would be a weights
// buffer of its own, so the bundle carried the tensor once per reader.
// Constants of the same type and bytes are one value: the later ones go.
//
//===----------------------------------------------------------------------===//
#include "compiler/passes/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/xxhash.h"

namespace kiln {
namespace {

bool sameTensor(const Value &a, const Value &b) {
  return a.getType() == b.getType() &&
         llvm::equal(a.getConstant().raw(), b.getConstant().raw());
}

class MergeConstantsPass : public Pass {
public:
  llvm::StringRef getName() const override { return "merge-constants"; }

  llvm::Expected<bool> run(Graph &g) override {
    // Candidates by a hash of the bytes; constants come in creation order,
    // so the kept one is always the first made.
    llvm::DenseMap<uint64_t, llvm::SmallVector<Value *, 1>> seen;
    bool changed = false;
    for (Value *c : g.getConstants()) {
      auto &bucket = seen[llvm::xxh3_64bits(c->getConstant().raw())];
      auto it = llvm::find_if(bucket, [&](Value *k) { return sameTensor(*k, *c); });
      if (it == bucket.end()) {
        bucket.push_back(c);
        continue;
      }
      g.replaceAllUsesWith(c, *it);
      changed = true;
    }
    if (changed)
      g.eraseUnusedConstants();
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createMergeConstantsPass() {
  return std::make_unique<MergeConstantsPass>();
}

} // namespace kiln
