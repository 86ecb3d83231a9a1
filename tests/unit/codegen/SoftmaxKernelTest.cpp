//===- SoftmaxKernelTest.cpp - Softmax along any axis ---------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct SoftmaxCase {
  Shape x;
  int64_t axis;
};

std::string softmaxCaseName(const SoftmaxCase &c) {
  std::string name = "Shape";
  for (int64_t d : c.x)
    name += "_" + std::to_string(d);
  name += "_Axis";
  name += c.axis < 0 ? "Minus" + std::to_string(-c.axis) : std::to_string(c.axis);
  return name;
}

class SoftmaxKernel : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(SoftmaxKernel, MatchesTheInterpreter) {
  const SoftmaxCase &c = GetParam();
  JitCheck check;
  check.lo = -5.0f;
  check.hi = 5.0f;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Softmax, {f32(c.x)}, {{"axis", Attr::ofInt(c.axis)}}),
      check));
}

/// Inputs far beyond exp's range: only the max-subtracted form stays finite.
TEST_P(SoftmaxKernel, MatchesTheInterpreterOnLargeValues) {
  const SoftmaxCase &c = GetParam();
  JitCheck check;
  check.lo = -1000.0f;
  check.hi = 1000.0f;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Softmax, {f32(c.x)}, {{"axis", Attr::ofInt(c.axis)}}),
      check));
  // Large and close together: every row is spread over several entries.
  check.lo = 5000.0f;
  check.hi = 5004.0f;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Softmax, {f32(c.x)}, {{"axis", Attr::ofInt(c.axis)}}),
      check));
}

INSTANTIATE_TEST_SUITE_P(
    Axes, SoftmaxKernel,
    ::testing::Values(SoftmaxCase{{7}, 0}, SoftmaxCase{{7}, -1},
                      SoftmaxCase{{3, 7}, 0}, SoftmaxCase{{3, 7}, 1},
                      SoftmaxCase{{3, 7}, -1}, SoftmaxCase{{1, 1000}, -1},
                      SoftmaxCase{{2, 3, 5}, 0}, SoftmaxCase{{2, 3, 5}, 1},
                      SoftmaxCase{{2, 3, 5}, 2}, SoftmaxCase{{2, 3, 5}, -2},
                      SoftmaxCase{{2, 3, 4, 5}, 0}, SoftmaxCase{{2, 3, 4, 5}, 1},
                      SoftmaxCase{{2, 3, 4, 5}, 3}, SoftmaxCase{{2, 3, 4, 5}, -1},
                      // Rows of full vectors with and without a partial one
                      // (attention scores); groups of rows, the last partial.
                      SoftmaxCase{{4, 65, 65}, -1}, SoftmaxCase{{3, 16}, 1},
                      SoftmaxCase{{1, 10, 17}, 1}, SoftmaxCase{{2, 6, 8}, 1}),
    [](const auto &info) { return softmaxCaseName(info.param); });

/// LogSoftmax shares the vector sweeps: a contiguous row and groups of rows.
TEST(SoftmaxKernel, LogSoftmaxMatchesTheInterpreter) {
  JitCheck check;
  check.lo = -30.0f;
  check.hi = 30.0f;
  for (int64_t axis : {1, 2})
    EXPECT_TRUE(jitMatchesInterpreter(singleNode(OpKind::LogSoftmax, {f32({2, 13, 19})},
                                                 {{"axis", Attr::ofInt(axis)}}),
                                      check))
        << "axis " << axis;
}

TEST(SoftmaxKernel, ASingleEntryAxisGivesOnes) {
  JitCheck check;
  check.lo = -50.0f;
  check.hi = 50.0f;
  check.rtol = 0;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Softmax, {f32({4, 1, 3})}, {{"axis", Attr::ofInt(1)}}),
      check));
}

} // namespace
} // namespace kiln
