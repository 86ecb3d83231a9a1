//===- Half.h - IEEE half floats --------------------------------*- C++ -*-===//
//
// f16 tensors hold binary16 bits; these convert them to and from f32.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_GRAPH_HALF_H
#define KILN_GRAPH_HALF_H

#include <cstdint>

namespace kiln {

/// IEEE binary16 <-> binary32, rounding to nearest even.
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

} // namespace kiln

#endif
