//===- HalfTest.cpp - IEEE half floats -------------------------------------===//
//
// Against binary16 values worked out by hand.
//
//===----------------------------------------------------------------------===//
#include "compiler/graph/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace kiln {
namespace {

TEST(Half, ConversionRoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00); // overflows to +inf
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to even (1).
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_TRUE(std::isinf(halfToFloat(0xFC00)));
}

} // namespace
} // namespace kiln
