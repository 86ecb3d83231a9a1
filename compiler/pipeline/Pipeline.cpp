#include "compiler/pipeline/Pipeline.h"
#include "compiler/graph/Verifier.h"
#include "compiler/pipeline/PassRegistry.h"

#include <memory>

namespace kiln {

std::vector<std::string> defaultPipeline(bool winograd) {
  std::vector<std::string> passes = {
      // Quantized ONNX's DQ -> op -> Q groups become int8 ops, while the
      // weights are still integers behind their DequantizeLinear.
      "fold-qdq",
      // Shape arithmetic and anything else computed from weights alone.
      "constant-folding",
      // Before lowering, which would turn an unfolded BN into Mul + Add.
      "fold-batchnorm",
      // A LayerNorm written out (as before opset 17) becomes one node while
      // its ReduceMeans still have their import form.
      "fuse-layer-norm",
      // Down to the primitive set; Gemm becomes MatMul (+ Mul) + Add.
      "lower",
      // Transposes and scalings of weights that lowering introduced.
      "constant-folding",
      // Exact cheaper forms: Pow(x, 2) -> Mul(x, x).
      "simplify-arithmetic",
      // A constant matrix times a column: the row times its transpose.
      "row-vector-matmul",
      // Layout changes that cancel or chain, from the model or lowering.
      "simplify-layout",
      // Repeated computations (also those folding just made identical).
      "cse",
      // Explicit zero padding becomes the Conv's own (no tensor, no pass).
      "fold-pad-into-conv",
      // Then a dilated Conv's taps that read only padding go (DeepLab's ASPP).
      "trim-conv-taps",
      // Fusion works on the lowered form: MatMul + Add first, so that the
      // activation after a fully-connected layer lands on the biased MatMul.
      "fuse-matmul-bias",
      "fuse-activation",
  };
  // Dilated Convs over their sub-grids, as Winograd's (their activation
  // fused already); without Winograd that would only add the copies.
  if (winograd)
    passes.push_back("dilated-conv-to-batch");
  // A tied weight, copied per reader by export and by the rewrites above,
  // stored once.
  passes.push_back("merge-constants");
  // Whatever the rewrites left unused, weights included.
  passes.push_back("dce");
  return passes;
}

llvm::Error runPasses(Graph &g, llvm::ArrayRef<std::unique_ptr<Pass>> passes,
                      const PipelineOptions &opts) {
  if (opts.verifyEach)
    if (auto err = verifyGraph(g))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "invalid graph before the pipeline: " +
                                         llvm::toString(std::move(err)));
  for (const auto &pass : passes) {
    if (auto changed = pass->run(g); !changed)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "pass '" + pass->getName() + "': " +
                                         llvm::toString(changed.takeError()));
    if (opts.verifyEach)
      if (auto err = verifyGraph(g))
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "pass '" + pass->getName() +
                "' left an invalid graph: " + llvm::toString(std::move(err)));
  }
  return llvm::Error::success();
}

llvm::Error runPipeline(Graph &g, llvm::ArrayRef<std::string> passNames,
                        const PipelineOptions &opts) {
  std::vector<std::unique_ptr<Pass>> passes;
  for (const std::string &name : passNames) {
    auto pass = createPass(name);
    if (!pass)
      return pass.takeError();
    passes.push_back(std::move(*pass));
  }
  return runPasses(g, passes, opts);
}

} // namespace kiln
