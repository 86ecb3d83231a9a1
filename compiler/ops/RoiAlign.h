//===- RoiAlign.h - RoiAlign's bound on its sampling grid -------*- C++ -*-===//
//
// What the reference evaluator (RoiAlignOps.cpp) and the kernel
// (codegen/kernels/RoiAlignKernel.cpp) must agree on beyond ONNX's text.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_OPS_ROIALIGN_H
#define KILN_OPS_ROIALIGN_H

#include <cstdint>

namespace kiln {

/// Samples per bin and axis at most. With sampling_ratio 0 the grid is
/// ceil(region size / bins), from run-time rois: a region of absurd size (or
/// NaN) would otherwise loop for hours. A region within a 1024-pixel plane
/// never reaches it.
constexpr int64_t kMaxRoiAlignGrid = 1024;

} // namespace kiln

#endif
