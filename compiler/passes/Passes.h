//===- Passes.h - Factories of the graph passes ----------------*- C++ -*-===//
//
// One factory per pass; each pass lives in its own file. Most callers create
// passes by name through PassRegistry.h instead.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_PASSES_H
#define KILN_PASSES_PASSES_H

#include "compiler/passes/Pass.h"

#include <memory>

namespace kiln {

/// "constant-folding": evaluates every node whose inputs are all constants
/// (and every Shape node, whose result depends only on static types) with
/// the reference interpreter and replaces its results by constants.
std::unique_ptr<Pass> createConstantFoldingPass();

/// "dce": removes nodes none of whose results are used (by a node or as a
/// graph output), then constants nothing reads. Graph inputs are kept: they
/// are the compiled model's interface.
std::unique_ptr<Pass> createDeadCodeEliminationPass();

/// "fold-batchnorm": folds an inference BatchNormalization into the Conv,
/// Gemm or 2-D MatMul producing its input when that producer has constant
/// weights (and bias), no fused activation and no other user, and the BN
/// parameters are constant. Other BNs are left for lowering.
std::unique_ptr<Pass> createFoldBatchNormPass();

/// "cse": of two nodes of the same op with the same inputs and attributes,
/// the later one is removed and its uses read the earlier one's results.
std::unique_ptr<Pass> createCommonSubexpressionEliminationPass();

/// "merge-constants": of two constants of the same type and bytes, the later
/// one is removed and its readers read the earlier one (a tied weight is
/// then one weights buffer, packed once). Unused constants go with it.
std::unique_ptr<Pass> createMergeConstantsPass();

/// "fold-qdq": DequantizeLinear -> op -> QuantizeLinear groups whose op has
/// an int8 form (Conv, MatMul and Gemm with constant symmetric int8 weights,
/// Add, Sub, Mul, pooling, Concat, activations, moves) become that int8 op;
/// the rest stay float. Runs before constant folding.
std::unique_ptr<Pass> createFoldQDQPass();

/// "fold-pad-into-conv": a constant-zero Pad of only the spatial dimensions
/// of a 2-D Conv's input becomes part of the Conv's pads.
std::unique_ptr<Pass> createFoldPadIntoConvPass();

/// "trim-conv-taps": a float Conv with constant weights loses the kernel
/// rows and columns (at its ends) whose taps read only padding for every
/// output, as a dilated Conv's outer taps do on a small image; its pads
/// follow, so the sums are the same.
std::unique_ptr<Pass> createTrimConvTapsPass();

/// "dilated-conv-to-batch": a float 3x3 Conv of stride 1 and a dilation d
/// becomes a Pad, the d^2 sub-grids of the padded input as a batch, the
/// Conv without dilation over them (Winograd's), and the interleave back,
/// where the sub-grids are large enough for that to pay.
std::unique_ptr<Pass> createDilatedConvToBatchPass();

/// "simplify-layout": chains of Transposes become one (none if the
/// permutations cancel), chains of Reshapes one, and a Reshape to its
/// input's own shape disappears.
std::unique_ptr<Pass> createSimplifyLayoutPass();

/// "simplify-arithmetic": arithmetic written in a slow general form gets an
/// exact cheaper one: Pow(x, 2) becomes Mul(x, x).
std::unique_ptr<Pass> createSimplifyArithmeticPass();

/// "row-vector-matmul": a MatMul of a constant f32 matrix A [..., M, K] by a
/// column b [..., K, 1] becomes the row b^T times A^T (transposed here), the
/// result reshaped back: the one-row MatMul puts the M outputs on the lanes.
std::unique_ptr<Pass> createRowVectorMatMulPass();

/// "fuse-activation": an activation (a record of compiler/ops/Activations.def,
/// x * Sigmoid(x) as SiLU, or GELU's Erf form) applied to the sole use of a
/// Conv or MatMul result, or to a Reshape of it that alone reads it (a 1-D
/// Conv's), becomes that node's kiln.activation.
std::unique_ptr<Pass> createFuseActivationPass();

/// "fuse-layer-norm": a LayerNorm written out as its formula over the
/// trailing axes (ReduceMean, Sub, a square, ReduceMean, Add epsilon, Sqrt,
/// Div, then optionally Mul gamma and Add beta) becomes one
/// LayerNormalization.
std::unique_ptr<Pass> createFuseLayerNormPass();

/// "fuse-matmul-bias": a float MatMul of matrices or batches of them,
/// without bias or activation, whose sole use is an Add of a constant [N]
/// (or [1,...,1,N]) vector takes it as its bias.
std::unique_ptr<Pass> createFuseMatMulBiasPass();

} // namespace kiln

#endif
