//===- ConvShape.h - A 2-D convolution, as its kernels walk it -*- C++ -*-===//
//
// The sizes, groups, strides, dilations and pads of a 2-D convolution, and
// the rows in which the register-tiled kernel walks its output. Kernel
// selection's cost model (RegisterTiles.h) and the kernels
// (codegen/kernels) read the same.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_CONVSHAPE_H
#define KILN_LIR_CONVSHAPE_H

#include "compiler/lir/LIR.h"

namespace kiln {
namespace lir {

struct ConvShape {
  int64_t N, C, H, W;    ///< input
  int64_t OC, OH, OW;    ///< output
  int64_t KH, KW;        ///< kernel
  int64_t G, ICg, OCg;   ///< groups, channels per group
  int64_t sh, sw, dh, dw; ///< strides, dilations
  int64_t pt, pl, pb, pr; ///< pads

  static ConvShape of(const Node &conv);
  int64_t taps() const { return KH * KW; }
  int64_t reduction() const { return ICg * KH * KW; }
};

/// The output rows of a register-tiled convolution (Direct, Pointwise,
/// Grouped) and how it reads its input view: the padded copy `layout`, or
/// the input in place.
struct ConvRows {
  /// Input view elements from one input row to the next, and from one
  /// output pixel's window to its neighbour's (a padded copy folds the
  /// column stride into its layout; a strided 1x1 reads in place).
  int64_t rowStride, pixelStep;
  /// Whether the input is packed into panels (KernelStrategy::tile).
  bool panels;
  /// Output pixels per row and rows: one row of the whole plane when
  /// consecutive output pixels are consecutive in the view across row ends
  /// too (1x1, stride 1, no padding) or in panels.
  int64_t rowLen, numRows;
};

ConvRows convRows(const ConvShape &s, const PaddedInput *layout, const KernelStrategy &strategy);

/// A depthwise Conv whose output plane, read as one flat row, is its input
/// plane's shifted per tap (KernelStrategy::DepthwisePlane): unit strides,
/// output rows as long as the input's, one output channel per input
/// channel. Output element i takes tap (kh, kw) from flat input element
/// i + (kh * dh - pt) * W + kw * dw - pl; a lane whose column that shift
/// moves past its row's ends is masked to zero. The kernel sums each kernel
/// column's taps over rows shifted by whole input rows, then shifts those
/// sums by the column's offset. The temp is two buffers (one read while the
/// next plane is copied into the other), each one channel's plane at
/// `front`, a multiple of the vector, so that the taps' middle row is read
/// aligned; zeros before and after it for the rows the taps reach above and
/// below and for the column sums' vectors next to a run's ends.
struct FlatPlane {
  int64_t front;   ///< floats before the plane
  int64_t vectors; ///< of the output plane
  /// Vectors after which the lanes' columns repeat: W / gcd(W, lanes).
  int64_t period;
  /// Column sums a run of output vectors reads before and after its own:
  /// the vectors the columns' shifts reach.
  int64_t sumsBefore, sumsAfter;
  int64_t floats;  ///< of a buffer
  int64_t tempFloats() const { return 2 * floats; }
};

bool flatPlaneFits(const ConvShape &s);
FlatPlane flatPlane(const ConvShape &s, int64_t lanes);

} // namespace lir
} // namespace kiln

#endif
