//===- ShapeIndexing.cpp - Broadcasting, axes and strides -----------------===//

#include "compiler/ops/ShapeIndexing.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cassert>

namespace kiln {

std::optional<Shape> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                     llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Right-aligned: dimension i of the result pairs with a's i - (rank - |a|).
    int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool isUnidirectionalBroadcastable(llvm::ArrayRef<int64_t> from,
                                   llvm::ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i])
      return false;
  return true;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

llvm::Expected<Shape> normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank) {
  Shape out;
  for (int64_t a : axes) {
    std::optional<int64_t> axis = normalizeAxis(a, rank);
    if (!axis)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("axis {0} is out of range for rank {1}", a, rank));
    if (llvm::is_contained(out, *axis))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "axes " + shapeStr(axes) + " repeat an axis");
    out.push_back(*axis);
  }
  return out;
}

Shape movedAxisPerm(int64_t rank, int64_t from, int64_t to) {
  Shape perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != from)
      perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  return perm;
}

Shape inversePerm(llvm::ArrayRef<int64_t> perm) {
  Shape inverse(perm.size());
  for (size_t d = 0; d < perm.size(); ++d)
    inverse[perm[d]] = d;
  return inverse;
}

AxisSplit splitAtAxis(llvm::ArrayRef<int64_t> shape, int64_t axis) {
  AxisSplit split{1, shape[axis], 1};
  for (int64_t d = 0; d < axis; ++d)
    split.outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d)
    split.inner *= shape[d];
  return split;
}

Shape rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

Shape broadcastStrides(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> outShape) {
  assert(shape.size() <= outShape.size() && "cannot broadcast to lower rank");
  Shape own = rowMajorStrides(shape);
  Shape strides(outShape.size(), 0);
  size_t lead = outShape.size() - shape.size();
  for (size_t i = 0; i < shape.size(); ++i)
    strides[lead + i] = shape[i] == 1 ? 0 : own[i];
  return strides;
}

StridedIndex::StridedIndex(llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<Shape> operandStrides)
    : shape_(shape.begin(), shape.end()), index_(shape.size(), 0),
      strides_(operandStrides.begin(), operandStrides.end()),
      offsets_(operandStrides.size(), 0) {
  for (const Shape &s : strides_) {
    (void)s;
    assert(s.size() == shape_.size() && "strides rank mismatch");
  }
}

bool StridedIndex::next() {
  for (size_t d = shape_.size(); d-- > 0;) {
    ++index_[d];
    for (size_t op = 0; op < strides_.size(); ++op)
      offsets_[op] += strides_[op][d];
    if (index_[d] < shape_[d])
      return true;
    for (size_t op = 0; op < strides_.size(); ++op)
      offsets_[op] -= strides_[op][d] * shape_[d];
    index_[d] = 0;
  }
  return false;
}

} // namespace kiln
