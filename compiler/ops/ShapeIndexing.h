//===- ShapeIndexing.h - Broadcasting, axes and strides ---------*- C++ -*-===//
//
// How elements of shaped tensors line up: numpy broadcasting, ONNX axes,
// permutations, row-major and broadcast strides, and the strided walk that
// the reference kernels use instead of per-element index arithmetic.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_SHAPEINDEXING_H
#define KILN_OPS_SHAPEINDEXING_H

#include "compiler/graph/Type.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace kiln {

/// Numpy-style multidirectional broadcast of two shapes, or nullopt when a
/// pair of dimensions differs and neither is 1.
std::optional<Shape> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                     llvm::ArrayRef<int64_t> b);
/// True if `from` broadcasts to exactly `to` (ONNX unidirectional broadcast).
bool isUnidirectionalBroadcastable(llvm::ArrayRef<int64_t> from,
                                   llvm::ArrayRef<int64_t> to);

/// Maps an ONNX axis in [-rank, rank) to [0, rank), or nullopt if outside.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);
/// Each of `axes` mapped into [0, rank); an error (naming no node: callers
/// add theirs) when one is out of range or repeated.
llvm::Expected<Shape> normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

/// The permutation moving axis `from` of a rank-`rank` tensor to position
/// `to`, the other axes keeping their order.
Shape movedAxisPerm(int64_t rank, int64_t from, int64_t to);
/// The permutation that undoes `perm`.
Shape inversePerm(llvm::ArrayRef<int64_t> perm);

/// A row-major tensor seen as [outer, len, inner] around axis `axis`: the
/// rows along the axis are outer * inner, `inner` elements apart.
struct AxisSplit {
  int64_t outer, len, inner;
};
AxisSplit splitAtAxis(llvm::ArrayRef<int64_t> shape, int64_t axis);

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

} // namespace kiln

#endif
