//===- AxisIndex.h - A flat element index's position along one axis -*- C++ -*-===//
//
// Per-channel quantization, BatchNorm folding and bias correction all walk a
// row-major tensor flat and need each element's channel: its index along one
// axis. This is that mapping, written once.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_AXISINDEX_H
#define KILN_GRAPH_AXISINDEX_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace kiln {

class AxisIndex {
public:
  /// `axis` must be a valid dimension of `shape`.
  AxisIndex(llvm::ArrayRef<int64_t> shape, int64_t axis) : extent_(shape[axis]) {
    for (size_t d = axis + 1; d < shape.size(); ++d)
      inner_ *= shape[d];
  }

  /// The index along the axis of flat element `i`.
  int64_t operator()(int64_t i) const { return (i / inner_) % extent_; }
  /// Elements per step along the axis (the axis's row-major stride).
  int64_t inner() const { return inner_; }
  int64_t extent() const { return extent_; }

private:
  int64_t inner_ = 1;
  int64_t extent_;
};

} // namespace kiln

#endif
