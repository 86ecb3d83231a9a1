//===- OpHelpers.h - Shape, window and activation helpers ------*- C++ -*-===//
//
// Pieces of op semantics that more than one stage needs: broadcasting, axis
// normalization, convolution/pooling window geometry (auto_pad, ceil_mode),
// the fused activation functions and strided index iteration. The type rules
// and reference kernels use them, and so do the passes and the code generator,
// so that every stage agrees on e.g. where SAME_LOWER puts the odd pad.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_OPHELPERS_H
#define KILN_OPS_OPHELPERS_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln {

//===----------------------------------------------------------------------===//
// Shapes and axes
//===----------------------------------------------------------------------===//

/// Numpy-style multidirectional broadcast of two shapes, or nullopt when a
/// pair of dimensions differs and neither is 1.
std::optional<Shape> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                     llvm::ArrayRef<int64_t> b);
/// True if `from` broadcasts to exactly `to` (ONNX unidirectional broadcast).
bool isUnidirectionalBroadcastable(llvm::ArrayRef<int64_t> from,
                                   llvm::ArrayRef<int64_t> to);

/// Maps an ONNX axis in [-rank, rank) to [0, rank), or nullopt if outside.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

/// The permutation moving axis `from` of a rank-`rank` tensor to position
/// `to`, the other axes keeping their order.
Shape movedAxisPerm(int64_t rank, int64_t from, int64_t to);
/// The permutation that undoes `perm`.
Shape inversePerm(llvm::ArrayRef<int64_t> perm);

/// Row-major element strides of `shape`.
Shape rowMajorStrides(llvm::ArrayRef<int64_t> shape);
/// Element strides for reading a tensor of `shape` as if broadcast to
/// `outShape` (right-aligned): broadcast and missing dimensions get stride 0.
Shape broadcastStrides(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> outShape);

/// Walks every multi-index of a shape in row-major order while keeping the
/// matching element offset of several operands, each with its own strides.
/// Broadcasting, transposition and batched products all reduce to this, so
/// the kernels need no per-element index arithmetic.
class StridedIndex {
public:
  StridedIndex(llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<Shape> operandStrides);

  int64_t offset(unsigned operand) const { return offsets_[operand]; }
  llvm::ArrayRef<int64_t> index() const { return index_; }
  /// Advances to the next index; returns false when wrapping past the last.
  bool next();

private:
  Shape shape_;
  Shape index_;
  llvm::SmallVector<Shape, 3> strides_;
  llvm::SmallVector<int64_t, 3> offsets_;
};

//===----------------------------------------------------------------------===//
// Convolution and pooling windows
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Type rule helpers
//===----------------------------------------------------------------------===//

using TypeList = llvm::SmallVector<TensorType, 1>;

/// The type of input `i`; the input must be present.
const TensorType &inputType(const Node &n, unsigned i);
/// Checks that input `i` has one of `allowed` dtypes; names the input.
llvm::Error expectDType(const Node &n, unsigned i,
                        llvm::ArrayRef<DType> allowed);
/// Checks that input `i` has rank `rank`.
llvm::Error expectRank(const Node &n, unsigned i, size_t rank);
/// An optional attribute's ints, or `fallback` when absent.
Shape intsOr(const Node &n, llvm::StringRef name,
             llvm::ArrayRef<int64_t> fallback);

/// Ops whose result depends only on their inputs' static types (Shape,
/// Size, EyeLike): they fold to constants whatever computes their inputs.
bool readsOnlyInputTypes(OpKind k);

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

/// DepthToSpace and SpaceToDepth are Reshape(view) -> Transpose(perm) ->
/// Reshape(output shape) of their input.
struct DepthSpacePlan {
  Shape view, perm;
};
DepthSpacePlan depthSpacePlan(const Node &n);

/// The kiln dtype of an ONNX TensorProto.DataType number (FLOAT = 1, ...),
/// or nullopt for types kiln has no dtype for.
std::optional<DType> dtypeFromOnnx(int64_t onnxType);
/// The ONNX TensorProto.DataType number of a kiln dtype.
int64_t onnxFromDType(DType t);
/// The ONNX name of a TensorProto.DataType number ("DOUBLE"), for messages.
llvm::StringRef onnxDTypeName(int64_t onnxType);

/// IEEE binary16 <-> binary32, rounding to nearest even.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

} // namespace kiln

#endif
