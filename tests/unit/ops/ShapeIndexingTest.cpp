//===- ShapeIndexingTest.cpp - Broadcasting, axes and strides --------------===//
//
// The expected values are worked out by hand or with the plain formula the
// ONNX operator documents give: lowering and the interpreter share these
// helpers, so a kernel test of one against the other cannot see a mistake
// in them.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/ShapeIndexing.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

TEST(Broadcast, FollowsNumpyRules) {
  // The examples of ONNX's Broadcasting.md.
  EXPECT_EQ(*broadcastShapes({2, 3, 4, 5}, {}), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(*broadcastShapes({2, 3, 4, 5}, {5}), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(*broadcastShapes({4, 5}, {2, 3, 4, 5}), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(*broadcastShapes({1, 4, 5}, {2, 3, 1, 1}), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(*broadcastShapes({3, 4, 5}, {2, 1, 1, 1}), (Shape{2, 3, 4, 5}));
  EXPECT_FALSE(broadcastShapes({2, 3}, {4}).has_value());
  EXPECT_FALSE(broadcastShapes({2, 3, 4}, {3, 1, 4}).has_value());
  EXPECT_EQ(*broadcastShapes({0, 1}, {1, 3}), (Shape{0, 3}));
}

TEST(Broadcast, Unidirectional) {
  EXPECT_TRUE(isUnidirectionalBroadcastable({}, {2, 3}));
  EXPECT_TRUE(isUnidirectionalBroadcastable({3}, {2, 3}));
  EXPECT_TRUE(isUnidirectionalBroadcastable({2, 1}, {2, 3}));
  EXPECT_FALSE(isUnidirectionalBroadcastable({2}, {2, 3}));
  EXPECT_FALSE(isUnidirectionalBroadcastable({1, 2, 3}, {2, 3}));
}

TEST(Axes, Normalize) {
  EXPECT_EQ(normalizeAxis(0, 3), 0);
  EXPECT_EQ(normalizeAxis(2, 3), 2);
  EXPECT_EQ(normalizeAxis(-1, 3), 2);
  EXPECT_EQ(normalizeAxis(-3, 3), 0);
  EXPECT_FALSE(normalizeAxis(3, 3).has_value());
  EXPECT_FALSE(normalizeAxis(-4, 3).has_value());
  EXPECT_FALSE(normalizeAxis(0, 0).has_value());
}

TEST(Axes, NormalizeAListRefusesOutOfRangeAndRepeatedAxes) {
  auto axes = normalizeAxes({-1, 0, 1}, 3);
  ASSERT_TRUE(bool(axes)) << llvm::toString(axes.takeError());
  EXPECT_EQ(*axes, (Shape{2, 0, 1}));
  auto outOfRange = normalizeAxes({0, 3}, 3);
  ASSERT_FALSE(bool(outOfRange));
  EXPECT_EQ(llvm::toString(outOfRange.takeError()), "axis 3 is out of range for rank 3");
  auto repeated = normalizeAxes({2, -1}, 3);
  ASSERT_FALSE(bool(repeated));
  EXPECT_EQ(llvm::toString(repeated.takeError()), "axes [2,-1] repeat an axis");
}

TEST(Axes, SplitAtAxis) {
  auto split = [](Shape shape, int64_t axis) {
    AxisSplit s = splitAtAxis(shape, axis);
    return Shape{s.outer, s.len, s.inner};
  };
  EXPECT_EQ(split({2, 3, 4, 5}, 0), (Shape{1, 2, 60}));
  EXPECT_EQ(split({2, 3, 4, 5}, 2), (Shape{6, 4, 5}));
  EXPECT_EQ(split({2, 3, 4, 5}, 3), (Shape{24, 5, 1}));
  EXPECT_EQ(split({7}, 0), (Shape{1, 7, 1}));
  EXPECT_EQ(split({3, 0, 2}, 2), (Shape{0, 2, 1}));
}

TEST(Strides, RowMajorAndBroadcast) {
  EXPECT_EQ(rowMajorStrides({2, 3, 4}), (Shape{12, 4, 1}));
  EXPECT_EQ(rowMajorStrides({}), Shape{});
  EXPECT_EQ(broadcastStrides({3, 1}, {2, 3, 4}), (Shape{0, 1, 0}));
  EXPECT_EQ(broadcastStrides({2, 3, 4}, {2, 3, 4}), (Shape{12, 4, 1}));
}

TEST(Strides, StridedIndexWalksRowMajor) {
  // Output [3, 2] reading a [2, 3] tensor transposed (strides {1, 3}) and a
  // [2] vector broadcast along rows (strides {0, 1}).
  StridedIndex it({3, 2}, {Shape{1, 3}, Shape{0, 1}});
  std::vector<int64_t> transposed, broadcast, rows, cols;
  for (int i = 0; i < 6; ++i) {
    transposed.push_back(it.offset(0));
    broadcast.push_back(it.offset(1));
    rows.push_back(it.index()[0]);
    cols.push_back(it.index()[1]);
    EXPECT_EQ(it.next(), i != 5);
  }
  // Element (r, c) of the transpose is element (c, r) = c * 3 + r.
  EXPECT_EQ(transposed, (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(broadcast, (std::vector<int64_t>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(rows, (std::vector<int64_t>{0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(cols, (std::vector<int64_t>{0, 1, 0, 1, 0, 1}));
  // After wrapping, the walk is back at the start.
  EXPECT_EQ(it.offset(0), 0);
}

} // namespace
} // namespace kiln
