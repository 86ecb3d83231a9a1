//===- TopKOrder.h - The order TopKIndices selects by -----------*- C++ -*-===//
#ifndef KILN_OPS_TOPKORDER_H
#define KILN_OPS_TOPKORDER_H

#include <cmath>
#include <cstdint>

namespace kiln {

/// Whether `a` comes strictly before `b` in TopK's order: greater (less
/// with `largest` false), NaN greater than every number and equal to NaN.
inline bool topKBeats(double a, double b, bool largest) {
  bool aNaN = std::isnan(a), bNaN = std::isnan(b);
  if (aNaN || bNaN)
    return largest ? aNaN && !bNaN : bNaN && !aNaN;
  return largest ? a > b : a < b;
}
inline bool topKBeats(int64_t a, int64_t b, bool largest) {
  return largest ? a > b : a < b;
}

} // namespace kiln

#endif
