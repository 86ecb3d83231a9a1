//===- OpGeometry.h - What op attributes resolve to -------------*- C++ -*-===//
//
// The geometry an op's attributes and input shapes resolve to: convolution
// and pooling windows (auto_pad, ceil_mode), slices, reduced and normalized
// axes, Resize's interpolation taps, DepthToSpace's plan, MatMul's matrices. The type rules and
// reference kernels use them, and so do lowering and codegen, so that every
// stage agrees on e.g. where SAME_LOWER puts the odd pad.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_OPGEOMETRY_H
#define KILN_OPS_OPGEOMETRY_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln {

/// A window op's geometry with everything resolved: auto_pad turned into
/// explicit pads, absent attributes into their defaults, output sizes
/// computed. One entry per spatial dimension.
struct ConvGeometry {
  Shape inSizes;
  Shape kernel;
  Shape strides;
  Shape dilations;
  Shape padsBegin;
  Shape padsEnd;
  Shape outSizes;

  size_t spatialRank() const { return inSizes.size(); }
  /// Extent of the dilated kernel: (kernel - 1) * dilation + 1.
  int64_t effectiveKernel(size_t i) const {
    return (kernel[i] - 1) * dilations[i] + 1;
  }
};

/// Whether tap `tap` of output `out`, along a dimension of `in` elements
/// with `stride`, `padBegin` and `dilation`, reads an input element rather
/// than the padding.
inline bool tapReadsInput(int64_t out, int64_t tap, int64_t stride, int64_t padBegin,
                          int64_t dilation, int64_t in) {
  const int64_t at = out * stride - padBegin + tap * dilation;
  return at >= 0 && at < in;
}

/// A window op's auto_pad: NOTSET (the pads attribute), VALID, SAME_UPPER or
/// SAME_LOWER.
AttrSpec autoPadAttrSpec();

/// Resolves the window geometry of a Conv / MaxPool / AveragePool node from
/// its attributes (auto_pad, strides, dilations, pads and, where the op has
/// it, ceil_mode) for input spatial sizes `inSizes` and kernel `kernel`.
/// ceil_mode follows ONNX with the usual correction that the last window must
/// start inside the input or its leading pad. Errors name the node.
llvm::Expected<ConvGeometry> resolveConvGeometry(const Node &n,
                                                 llvm::ArrayRef<int64_t> inSizes,
                                                 llvm::ArrayRef<int64_t> kernel);

/// The same for a ConvTranspose node: outSizes from output_shape or from
/// strides, output_padding and pads (auto_pad and output_shape turned into
/// pads, which may be negative where output_shape asks for more).
llvm::Expected<ConvGeometry>
resolveConvTransposeGeometry(const Node &n, llvm::ArrayRef<int64_t> inSizes,
                             llvm::ArrayRef<int64_t> kernel);

/// A 1-D..3-D geometry embedded in 3 dimensions (missing leading dimensions
/// have size 1, kernel 1, no padding), so one loop nest serves every rank.
struct Window3 {
  int64_t in[3], out[3], k[3], s[3], d[3], pb[3], pe[3];
};
Window3 toWindow3(const ConvGeometry &g);

/// The axes a reduction (Reduce*, ArgMax, ArgMin) reduces, as a mask over
/// its input's dimensions; an error naming the node for bad axes.
llvm::Expected<llvm::SmallVector<bool, 6>> reducedAxes(const Node &n);

/// A Slice with everything resolved: for every input dimension the first
/// element taken and the step (1 for dimensions not sliced), and the output
/// shape.
struct SliceGeometry {
  Shape starts, steps, outShape;
};
/// Resolves a Slice node's starts/ends/axes/steps (ONNX's clamping rules);
/// errors name the node.
llvm::Expected<SliceGeometry> resolveSlice(const Node &n);

/// The axes LayerNormalization, InstanceNormalization and
/// MeanVarianceNormalization normalize over (sorted, non-negative) and the
/// epsilon they add.
struct NormalizedAxes {
  Shape axes;
  double epsilon;
};
NormalizedAxes normalizedAxes(const Node &n);

/// A LayerNormalization as the layer-norm kernel runs it: `rows` rows of
/// `row` contiguous elements (the normalized axes), its Scale and B each
/// either one value per row element or one for all (`scalarScale`,
/// `scalarBias`; B may be absent).
struct LayerNormRows {
  int64_t rows;
  int64_t row;
  bool scalarScale;
  bool scalarBias;
};
/// The rows of `n`, or nullopt where Scale or B broadcasts over part of a
/// row only, or rows are empty (lowering then writes the formula out).
std::optional<LayerNormRows> layerNormRows(const Node &n);

/// How a Resize node reads one axis: for each output position o, `taps`
/// input indices (in range) at indices[o * taps + t] with weights at
/// weights[o * taps + t]; outside[o] when the position is outside the roi
/// (tf_crop_and_resize), where the result is extrapolation_value.
struct ResizeTaps {
  int64_t taps = 1;
  Shape indices;
  llvm::SmallVector<double, 16> weights;
  llvm::SmallVector<bool, 16> outside;
};
std::vector<ResizeTaps> resizeTaps(const Node &n);

/// numpy.matmul's view of MatMul's operands: rank-1 A is [1, K], rank-1 B
/// is [K, 1]; the leading dimensions broadcast. None when K or the batches
/// disagree.
struct MatMulDims {
  Shape batch, aBatch, bBatch;
  int64_t m, k, n;
  Shape outShape;
};
std::optional<MatMulDims> matMulDims(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);
/// Rows of A that one matrix product covers: batch x M when B has no batch
/// of its own (only ones), since A's and C's matrices are then consecutive
/// rows of one product (a sequence-first attention projection, [128, 1, 256]
/// x [256, 768], is one product of 128 rows, not 128 of one row); else M.
int64_t matMulGemmRows(const MatMulDims &d);

/// DepthToSpace and SpaceToDepth are Reshape(view) -> Transpose(perm) ->
/// Reshape(output shape) of their input.
struct DepthSpacePlan {
  Shape view, perm;
};
DepthSpacePlan depthSpacePlan(const Node &n);

} // namespace kiln

#endif
