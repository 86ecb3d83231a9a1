//===- TflmTestHelpers.h - What TFLM's kernel tests quantize with -*- C++ -*-===//
#ifndef KILN_TESTS_UNIT_OPS_TFLMTESTHELPERS_H
#define KILN_TESTS_UNIT_OPS_TFLMTESTHELPERS_H

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kiln::tfl {

/// FloatToQuantizedType of tflite/micro/test_helpers.h: round(v / scale) + zp,
/// clamped. The upstream tests quantize their inputs and goldens with it.
inline int8_t q8(float value, float scale, int zeroPoint) {
  int32_t r = static_cast<int32_t>(std::round(value / scale)) + zeroPoint;
  return static_cast<int8_t>(std::min(127, std::max(-128, r)));
}

} // namespace kiln::tfl

#endif
