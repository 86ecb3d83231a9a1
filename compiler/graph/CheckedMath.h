//===- CheckedMath.h - Overflow-checked shape arithmetic -------*- C++ -*-===//
//
// Extents, pads, repeats and scales come from the model and may be anything
// an int64 or a float holds. Shape arithmetic on them goes through these
// helpers (and llvm::checkedAdd / checkedMul of llvm/Support/
// CheckedArithmetic.h), which say "does not fit" instead of overflowing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_CHECKEDMATH_H
#define KILN_GRAPH_CHECKEDMATH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace kiln {

/// The number of elements of `shape`, or nullopt where an extent is
/// negative or the product of its non-zero extents exceeds `limit`. An empty
/// tensor counts its other extents too: its strides and partial products
/// (outer and inner sizes) are computed like any tensor's and must not
/// overflow.
inline std::optional<int64_t>
checkedElementCount(llvm::ArrayRef<int64_t> shape,
                    int64_t limit = std::numeric_limits<int64_t>::max()) {
  int64_t nonZeroProduct = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d == 0) {
      empty = true;
      continue;
    }
    std::optional<int64_t> next =
        d < 0 ? std::nullopt : llvm::checkedMul(nonZeroProduct, d);
    if (!next || *next > limit)
      return std::nullopt;
    nonZeroProduct = *next;
  }
  return empty ? 0 : nonZeroProduct;
}

/// `v` truncated toward zero, or nullopt where it is NaN or outside int64's
/// range (converting it would be undefined behaviour).
inline std::optional<int64_t> checkedTruncToInt64(double v) {
  // 2^63 is exact in a double; every double below it converts.
  if (!(v >= -0x1p63 && v < 0x1p63))
    return std::nullopt;
  return static_cast<int64_t>(v);
}

} // namespace kiln

#endif
