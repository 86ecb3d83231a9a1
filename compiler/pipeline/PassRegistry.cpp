#include "compiler/pipeline/PassRegistry.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/passes/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {
namespace {

struct PassEntry {
  llvm::StringRef name;
  std::unique_ptr<Pass> (*create)();
};

/// Sorted by name; registeredPassNames() relies on it.
const PassEntry kPasses[] = {
    {"constant-folding", createConstantFoldingPass},
    {"cse", createCommonSubexpressionEliminationPass},
    {"dce", createDeadCodeEliminationPass},
    {"dilated-conv-to-batch", createDilatedConvToBatchPass},
    {"fold-batchnorm", createFoldBatchNormPass},
    {"fold-pad-into-conv", createFoldPadIntoConvPass},
    {"fold-qdq", createFoldQDQPass},
    {"fuse-activation", createFuseActivationPass},
    {"fuse-layer-norm", createFuseLayerNormPass},
    {"fuse-matmul-bias", createFuseMatMulBiasPass},
    {"lower", createLowerPass},
    {"merge-constants", createMergeConstantsPass},
    {"row-vector-matmul", createRowVectorMatMulPass},
    {"simplify-arithmetic", createSimplifyArithmeticPass},
    {"simplify-layout", createSimplifyLayoutPass},
    {"trim-conv-taps", createTrimConvTapsPass},
};

} // namespace

llvm::ArrayRef<llvm::StringRef> registeredPassNames() {
  static const std::vector<llvm::StringRef> names = [] {
    std::vector<llvm::StringRef> out;
    for (const PassEntry &e : kPasses)
      out.push_back(e.name);
    return out;
  }();
  return names;
}

llvm::Expected<std::unique_ptr<Pass>> createPass(llvm::StringRef name) {
  for (const PassEntry &e : kPasses)
    if (e.name == name)
      return e.create();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown pass '" + name + "'; known passes: " +
                                     llvm::join(registeredPassNames(), ", "));
}

} // namespace kiln
