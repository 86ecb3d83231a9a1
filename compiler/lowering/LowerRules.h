//===- LowerRules.h - The per-op lowering rules ----------------*- C++ -*-===//
//
// Internal to compiler/lowering. Each rule rewrites one node (a copy of the
// node list is walked, so nodes a rule creates are not visited again: a rule
// creates them in their final, explicit form) and returns whether it changed
// the graph.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_LOWERRULES_H
#define KILN_LOWERING_LOWERRULES_H

#include "compiler/graph/Graph.h"
#include "compiler/graph/Rewrite.h"

#include "llvm/Support/Error.h"

namespace kiln {

/// Gemm -> [Transpose] MatMul [Mul alpha] [Add beta*C]; transposes and
/// scalings of constant operands are applied to the constants.
llvm::Expected<bool> lowerGemm(Graph &g, Node *gemm);

/// Inference BatchNormalization -> Mul + Add with per-channel constants.
llvm::Expected<bool> lowerBatchNorm(Graph &g, Node *bn);

/// ConvTranspose: explicit kernel_shape, strides, dilations and pads
/// (output_padding, output_shape and auto_pad folded into them).
llvm::Expected<bool> makeConvTransposeExplicit(Graph &g, Node *n);
/// 2-D ConvTranspose with constant weights, stride s -> one Conv computing
/// the s^2 output phases as channels, interleaved by Reshape, Transpose,
/// Reshape and cropped by a Slice, or one Conv per phase with its own taps
/// where that saves products, concatenated and interleaved; 1-D and 3-D
/// ones through such a 2-D one (LowerConvTranspose.cpp); otherwise
/// makeConvTransposeExplicit's form for the scattering kernel.
llvm::Expected<bool> lowerConvTranspose(Graph &g, Node *n);

/// 1-D Conv -> Reshape, 2-D Conv (explicit) over a height of 1, Reshape.
llvm::Expected<bool> lowerConv1D(Graph &g, Node *conv);
/// 3-D Conv -> depth windows gathered into channels, one 2-D Conv over
/// batch x output depth, Reshape and Transpose back.
llvm::Expected<bool> lowerConv3D(Graph &g, Node *conv);
/// A 1-D f32 MaxPool or AveragePool of stride 1 as a 2-D one of height 1.
llvm::Expected<bool> lowerPool1D(Graph &g, Node *pool);
/// The depth windows of x [N, C, D, H, W] as the channels of a 2-D batch,
/// for the 3-D Conv and ConvTranspose: depth padded by `padBegin` and
/// `padEnd` (zeros), window m (m < `windows`) the `taps` depths from m *
/// `stride` every `dilation`, as [N * windows, C * taps, H, W] with channel
/// c * taps + t. Null after an error, which `b` keeps.
Value *depthWindowsAsChannels(HelperNodeBuilder &b, Value *x, int64_t padBegin, int64_t padEnd,
                              int64_t windows, int64_t taps, int64_t stride, int64_t dilation);

/// GlobalAveragePool, GlobalMaxPool -> AveragePool, MaxPool over the whole
/// spatial extent (an f32 one of other than 2-D planes over [N, C, 1, S]).
llvm::Expected<bool> lowerGlobalPool(Graph &g, Node *gap);

/// Conv, MaxPool, AveragePool: auto_pad resolved to explicit pads;
/// kernel_shape, strides, pads and dilations always present.
llvm::Expected<bool> makeWindowExplicit(Graph &g, Node *n);

/// Flatten, Squeeze, Unsqueeze -> Reshape to the (static) result shape.
llvm::Expected<bool> lowerToReshape(Graph &g, Node *n);

/// Identity, inference Dropout, Cast to the same type and Pad with all pads
/// zero forward their input: they are removed and their uses read the input
/// (a Dropout's mask, a constant of ones).
llvm::Expected<bool> removeForwarding(Graph &g, Node *n);

/// Reductions: `axes` (ArgMax/ArgMin: `axis`) explicit, sorted and
/// non-negative; a reduction over no axis is removed.
llvm::Expected<bool> makeReduceExplicit(Graph &g, Node *n);

/// Slice: starts, ends, axes (every axis, in order) and steps explicit and
/// resolved (LowerMovement.cpp, as the rules below).
llvm::Expected<bool> makeSliceExplicit(Graph &g, Node *n);
/// Split -> one explicit Slice per output.
llvm::Expected<bool> lowerSplit(Graph &g, Node *n);
/// Tile -> Reshape, Expand, Reshape.
llvm::Expected<bool> lowerTile(Graph &g, Node *n);
/// DepthToSpace, SpaceToDepth -> Reshape, Transpose, Reshape.
llvm::Expected<bool> lowerDepthSpace(Graph &g, Node *n);
/// Trilu -> Where(constant mask, x, 0).
llvm::Expected<bool> lowerTrilu(Graph &g, Node *n);

/// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss -> [LogSoftmax],
/// GatherElements, Gather, elementwise ops and reductions.
llvm::Expected<bool> lowerLoss(Graph &g, Node *n);

/// LayerNormalization (where the layer-norm kernel cannot take it),
/// InstanceNormalization, MeanVarianceNormalization -> ReduceMean and
/// elementwise ops (LowerNorm.cpp).
llvm::Expected<bool> lowerNormalization(Graph &g, Node *n);
/// LRN -> squares, Pad, shifted Slices summed, Pow and Div (LowerNorm.cpp).
llvm::Expected<bool> lowerLRN(Graph &g, Node *n);
/// OneHot -> Equal of the (resolved) indices with the class numbers, Where
/// between the on and off values.
llvm::Expected<bool> lowerOneHot(Graph &g, Node *n);

/// CumSum -> [Transpose] MatMul by a constant triangular matrix
/// [Transpose] (LowerScan.cpp).
llvm::Expected<bool> lowerCumSum(Graph &g, Node *n);

/// RNN, GRU, LSTM -> the recurrence unrolled into MatMuls and elementwise
/// ops (LowerRecurrent.cpp).
llvm::Expected<bool> lowerRecurrent(Graph &g, Node *n);

/// QuantizeLinear, DequantizeLinear -> Cast and elementwise ops
/// (LowerQuant.cpp).
llvm::Expected<bool> lowerQuantization(Graph &g, Node *n);

/// Resize -> per resized axis, Gathers weighted and summed (LowerResize.cpp);
/// an f32 Resize of the last two axes stays for the Resize kernel.
llvm::Expected<bool> lowerResize(Graph &g, Node *n);

/// Transpose: the default permutation (reversed axes) made explicit.
llvm::Expected<bool> makePermExplicit(Graph &g, Node *n);

} // namespace kiln

#endif
