//===- OpHelpersTest.cpp - Broadcasting, windows, activations --------------===//
//
// The expected values are worked out by hand or with the plain formula the
// ONNX operator documents give.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/OpHelpers.h"

#include <gtest/gtest.h>

#include <cmath>

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

/// A MaxPool node over N x C x `in` with the given attributes, to feed
/// resolveConvGeometry.
class Geometry : public ::testing::Test {
protected:
  llvm::Expected<ConvGeometry> resolve(llvm::ArrayRef<int64_t> in,
                                       llvm::ArrayRef<int64_t> kernel,
                                       AttrMap attrs) {
    Shape x{1, 1};
    x.append(in.begin(), in.end());
    attrs["kernel_shape"] = Attr::ofInts(kernel);
    auto n = g.addNode(OpKind::MaxPool, "pool",
                       {g.addInput("x", TensorType(DType::F32, x))}, attrs);
    if (!n)
      return n.takeError();
    return resolveConvGeometry(**n, in, kernel);
  }
  Graph g;
};

TEST_F(Geometry, ExplicitPadsMatchTheOnnxFormula) {
  // out = floor((in + padB + padE - ((k - 1) * d + 1)) / s) + 1
  for (int64_t in : {5, 6, 7, 13})
    for (int64_t k : {1, 2, 3})
      for (int64_t s : {1, 2, 3})
        for (int64_t d : {1, 2})
          for (int64_t pb : {0, 1})
            for (int64_t pe : {0, 2}) {
              auto geom = resolve({in}, {k}, {{"strides", Attr::ofInts({s})},
                                               {"dilations", Attr::ofInts({d})},
                                               {"pads", Attr::ofInts({pb, pe})}});
              ASSERT_TRUE(bool(geom)) << llvm::toString(geom.takeError());
              int64_t expected = (in + pb + pe - ((k - 1) * d + 1)) / s + 1;
              EXPECT_EQ(geom->outSizes[0], expected)
                  << "in " << in << " k " << k << " s " << s << " d " << d;
              EXPECT_EQ(geom->padsBegin[0], pb);
              EXPECT_EQ(geom->padsEnd[0], pe);
            }
}

TEST_F(Geometry, SamePaddingPutsTheOddPadByMode) {
  // in 6, k 3, s 2: out = ceil(6 / 2) = 3, total pad = (3-1)*2 + 3 - 6 = 1.
  auto upper = resolve({6}, {3}, {{"auto_pad", Attr::ofString("SAME_UPPER")},
                                  {"strides", Attr::ofInts({2})}});
  ASSERT_TRUE(bool(upper));
  EXPECT_EQ(upper->outSizes[0], 3);
  EXPECT_EQ(upper->padsBegin[0], 0);
  EXPECT_EQ(upper->padsEnd[0], 1);
  auto lower = resolve({6}, {3}, {{"auto_pad", Attr::ofString("SAME_LOWER")},
                                  {"strides", Attr::ofInts({2})}});
  ASSERT_TRUE(bool(lower));
  EXPECT_EQ(lower->outSizes[0], 3);
  EXPECT_EQ(lower->padsBegin[0], 1);
  EXPECT_EQ(lower->padsEnd[0], 0);
  // in 5, k 3, s 1: out 5, total pad 2, split evenly; dilation 2 makes the
  // kernel extent 5 and the total pad 4.
  auto even = resolve({5, 5}, {3, 3},
                      {{"auto_pad", Attr::ofString("SAME_UPPER")},
                       {"dilations", Attr::ofInts({1, 2})}});
  ASSERT_TRUE(bool(even));
  EXPECT_EQ(even->outSizes, (Shape{5, 5}));
  EXPECT_EQ(even->padsBegin, (Shape{1, 2}));
  EXPECT_EQ(even->padsEnd, (Shape{1, 2}));
}

TEST_F(Geometry, ValidIgnoresPads) {
  // out = floor((in - k) / s) + 1 = floor((7 - 3) / 2) + 1 = 3.
  auto geom = resolve({7}, {3}, {{"auto_pad", Attr::ofString("VALID")},
                                 {"pads", Attr::ofInts({1, 1})},
                                 {"strides", Attr::ofInts({2})}});
  ASSERT_TRUE(bool(geom));
  EXPECT_EQ(geom->outSizes[0], 3);
  EXPECT_EQ(geom->padsBegin[0] + geom->padsEnd[0], 0);
}

TEST_F(Geometry, CeilModeRoundsUpButDropsWindowsStartingInThePad) {
  // in 4, k 3, s 2: floor gives (4-3)/2+1 = 1, ceil gives ceil(1/2)+1 = 2.
  auto ceil = resolve({4}, {3}, {{"strides", Attr::ofInts({2})},
                                 {"ceil_mode", Attr::ofInt(1)}});
  ASSERT_TRUE(bool(ceil));
  EXPECT_EQ(ceil->outSizes[0], 2);
  // in 4, k 2, s 2, end pad 1: ceil((4+1-2)/2)+1 = 3 windows would start at
  // 0, 2 and 4, but 4 is past the input, so only 2 remain.
  auto dropped = resolve({4}, {2}, {{"strides", Attr::ofInts({2})},
                                    {"pads", Attr::ofInts({0, 1})},
                                    {"ceil_mode", Attr::ofInt(1)}});
  ASSERT_TRUE(bool(dropped));
  EXPECT_EQ(dropped->outSizes[0], 2);
}

TEST_F(Geometry, RejectsBadAttributes) {
  auto tooBig = resolve({2}, {3}, {});
  ASSERT_FALSE(bool(tooBig));
  EXPECT_NE(llvm::toString(tooBig.takeError()).find("node 'pool' (MaxPool)"),
            std::string::npos);
  auto zeroStride = resolve({5}, {3}, {{"strides", Attr::ofInts({0})}});
  EXPECT_FALSE(bool(zeroStride));
  llvm::consumeError(zeroStride.takeError());
  auto wrongLength = resolve({5, 5}, {3, 3}, {{"pads", Attr::ofInts({1, 1})}});
  EXPECT_FALSE(bool(wrongLength));
  llvm::consumeError(wrongLength.takeError());
  auto negativePad = resolve({5}, {3}, {{"pads", Attr::ofInts({-1, 0})}});
  EXPECT_FALSE(bool(negativePad));
  llvm::consumeError(negativePad.takeError());
  auto badMode = resolve({5}, {3}, {{"auto_pad", Attr::ofString("SAME")}});
  ASSERT_FALSE(bool(badMode));
  EXPECT_NE(llvm::toString(badMode.takeError()).find(
                "attribute 'auto_pad' must be one of \"NOTSET\", \"VALID\", \"SAME_UPPER\", "
                "\"SAME_LOWER\", got \"SAME\""),
            std::string::npos);
}

TEST(Geometry3, EmbedsLowerRanksAsLeadingUnitDims) {
  ConvGeometry g;
  g.inSizes = {10};
  g.kernel = {3};
  g.strides = {2};
  g.dilations = {1};
  g.padsBegin = {1};
  g.padsEnd = {0};
  g.outSizes = {5};
  Window3 w = toWindow3(g);
  EXPECT_EQ(w.in[0], 1);
  EXPECT_EQ(w.in[1], 1);
  EXPECT_EQ(w.in[2], 10);
  EXPECT_EQ(w.k[1], 1);
  EXPECT_EQ(w.k[2], 3);
  EXPECT_EQ(w.s[2], 2);
  EXPECT_EQ(w.pb[2], 1);
  EXPECT_EQ(w.pb[0], 0);
  EXPECT_EQ(w.out[2], 5);
}

TEST(DTypes, OnnxNumbering) {
  EXPECT_EQ(dtypeFromOnnx(1), DType::F32);
  EXPECT_EQ(dtypeFromOnnx(2), DType::U8);
  EXPECT_EQ(dtypeFromOnnx(3), DType::I8);
  EXPECT_EQ(dtypeFromOnnx(5), DType::I16);
  EXPECT_EQ(dtypeFromOnnx(6), DType::I32);
  EXPECT_EQ(dtypeFromOnnx(7), DType::I64);
  EXPECT_EQ(dtypeFromOnnx(9), DType::Bool);
  EXPECT_EQ(dtypeFromOnnx(10), DType::F16);
  EXPECT_EQ(dtypeFromOnnx(4), DType::U16);
  EXPECT_EQ(dtypeFromOnnx(11), DType::F64);
  EXPECT_EQ(dtypeFromOnnx(12), DType::U32);
  EXPECT_EQ(dtypeFromOnnx(13), DType::U64);
  EXPECT_FALSE(dtypeFromOnnx(14).has_value());
  EXPECT_FALSE(dtypeFromOnnx(16).has_value());
  EXPECT_EQ(onnxDTypeName(11), "DOUBLE");
  EXPECT_EQ(onnxDTypeName(16), "BFLOAT16");
  EXPECT_EQ(onnxDTypeName(99), "unknown");
}

TEST(DTypes, HalfConversionRoundsToNearestEven) {
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
