//===- LIRPipeline.cpp - generateLIR and its registry of passes -----------===//

#include "compiler/lir/LIRPasses.h"

namespace kiln {
namespace lir {

namespace {
const LIRPass kLIRPasses[] = {
    {"fold-input-transpose", &LIROptions::foldInputTranspose, foldInputTransposes},
    {"fuse-residual", &LIROptions::fuseResidual, fuseResidualAdds},
    {"depthwise-bands", &LIROptions::depthwiseBands, fuseDepthwiseBands},
    {"fuse-elementwise", &LIROptions::fuseElementwise, fuseElementwiseChains},
    {"elide-concat", &LIROptions::elideConcat, elideConcats},
    {"reuse-in-place", &LIROptions::inPlace, reuseBuffersInPlace},
};
} // namespace

llvm::ArrayRef<LIRPass> lirPasses() { return kLIRPasses; }

const LIRPass *findLIRPass(llvm::StringRef name) {
  for (const LIRPass &p : kLIRPasses)
    if (p.name == name)
      return &p;
  return nullptr;
}

llvm::Expected<Function> generateLIR(const Graph &g, const LIROptions &opts) {
  Function f = translateGraph(g, opts);
  for (const LIRPass &p : lirPasses())
    if (opts.*p.enabled)
      p.run(f);
  layOutBuffers(f);
  return std::move(f);
}

} // namespace lir
} // namespace kiln
