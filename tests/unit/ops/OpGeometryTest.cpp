//===- OpGeometryTest.cpp - Windows, slices, resize taps -------------------===//
//
// The expected values are worked out by hand or with the plain formula the
// ONNX operator documents give: lowering and the interpreter share these
// helpers, so a kernel test of one against the other cannot see a mistake
// in them.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/OpGeometry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace kiln {
namespace {

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

//===----------------------------------------------------------------------===//
// Resize taps, Slice geometry, reduced axes: nodes over one graph input
//===----------------------------------------------------------------------===//

class NodeHelpers : public ::testing::Test {
protected:
  const Node &node(OpKind kind, Shape x, AttrMap attrs) {
    auto n = g.addNode(kind, "n" + std::to_string(count++),
                       {g.addInput("x" + std::to_string(count), TensorType(DType::F32, x))},
                       attrs);
    if (!n) {
      ADD_FAILURE() << llvm::toString(n.takeError());
      std::abort();
    }
    return **n;
  }
  /// A 1-D Resize of `in` elements to `out`.
  std::vector<ResizeTaps> resize(int64_t in, int64_t out, AttrMap attrs) {
    attrs["sizes"] = Attr::ofInts({out});
    attrs["scales"] = Attr::ofFloats({float(out) / float(in)});
    return resizeTaps(node(OpKind::Resize, {in}, attrs));
  }
  Graph g;
  int count = 0;
};

/// Each output of a 1-D resize applied to `x`: the sum of its taps.
std::vector<double> applyTaps(const ResizeTaps &t, llvm::ArrayRef<double> x) {
  std::vector<double> y(t.indices.size() / t.taps, 0.0);
  for (size_t o = 0; o < y.size(); ++o)
    for (int64_t k = 0; k < t.taps; ++k)
      y[o] += t.weights[o * t.taps + k] * x[t.indices[o * t.taps + k]];
  return y;
}

void expectNear(llvm::ArrayRef<double> got, llvm::ArrayRef<double> want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-9) << "output " << i;
}

/// Nearest neighbours picked from inputs 0, 1, 2, ...: the picks themselves.
TEST_F(NodeHelpers, ResizeTapsNearestPicksByCoordinateAndRoundingMode) {
  const double ramp[] = {0, 1, 2, 3, 4, 5, 6, 7};
  // asymmetric 4 -> 8: source o / 2 = 0, .5, 1, 1.5, ...; floor.
  auto floorPicks = resize(4, 8, {{"coordinate_transformation_mode", Attr::ofString("asymmetric")},
                                  {"nearest_mode", Attr::ofString("floor")}});
  expectNear(applyTaps(floorPicks[0], ramp), {0, 0, 1, 1, 2, 2, 3, 3});
  // align_corners 4 -> 7: source o * 3 / 6 = o / 2; ties go down, or up.
  auto preferFloor = resize(4, 7, {{"coordinate_transformation_mode", Attr::ofString("align_corners")}});
  expectNear(applyTaps(preferFloor[0], ramp), {0, 0, 1, 1, 2, 2, 3});
  auto preferCeil = resize(4, 7, {{"coordinate_transformation_mode", Attr::ofString("align_corners")},
                                  {"nearest_mode", Attr::ofString("round_prefer_ceil")}});
  expectNear(applyTaps(preferCeil[0], ramp), {0, 1, 1, 2, 2, 3, 3});
  // asymmetric 8 -> 3 (scale 3/8): sources 0, 8/3, 16/3 round to 0, 3, 5.
  auto down = resize(8, 3, {{"coordinate_transformation_mode", Attr::ofString("asymmetric")}});
  expectNear(applyTaps(down[0], ramp), {0, 3, 5});
  // half_pixel 4 -> 8: sources o / 2 - 1/4; -1/4 clamps to input 0.
  auto halfPixel = resize(4, 8, {});
  expectNear(applyTaps(halfPixel[0], ramp), {0, 0, 1, 1, 2, 2, 3, 3});
  EXPECT_EQ(halfPixel[0].outside, (llvm::SmallVector<bool, 16>(8, false)));
}

/// Linear over 10, 20, 30, 40: PyTorch's bilinear results, by hand.
TEST_F(NodeHelpers, ResizeTapsLinearWeighsTheTwoNeighbours) {
  const double x[] = {10, 20, 30, 40};
  // half_pixel 4 -> 8: sources -.25, .25, .75, ..., 3.25; the ends clamp.
  auto halfPixel = resize(4, 8, {{"mode", Attr::ofString("linear")}});
  EXPECT_EQ(halfPixel[0].taps, 2);
  expectNear(applyTaps(halfPixel[0], x), {10, 12.5, 17.5, 22.5, 27.5, 32.5, 37.5, 40});
  // Output 1 (source .25): 3/4 of input 0 and 1/4 of input 1.
  EXPECT_EQ(halfPixel[0].indices[2], 0);
  EXPECT_EQ(halfPixel[0].indices[3], 1);
  EXPECT_NEAR(halfPixel[0].weights[2], 0.75, 1e-12);
  EXPECT_NEAR(halfPixel[0].weights[3], 0.25, 1e-12);
  // align_corners 4 -> 7: sources o / 2, the ends exact.
  auto corners = resize(4, 7, {{"mode", Attr::ofString("linear")},
                               {"coordinate_transformation_mode", Attr::ofString("align_corners")}});
  expectNear(applyTaps(corners[0], x), {10, 15, 20, 25, 30, 35, 40});
}

/// Keys' cubic with a = -0.75 at ratio 1/2: weights -3/32, 19/32, 19/32,
/// -3/32 (by hand from the convolution kernel).
TEST_F(NodeHelpers, ResizeTapsCubicUsesKeysWeightsAndExcludeOutside) {
  const double x[] = {10, 20, 30, 40};
  AttrMap attrs{{"mode", Attr::ofString("cubic")},
                {"coordinate_transformation_mode", Attr::ofString("align_corners")}};
  auto cubic = resize(4, 7, attrs);
  EXPECT_EQ(cubic[0].taps, 4);
  // Output 3 (source 1.5) reads inputs 0..3: -0.9375 + 11.875 + 17.8125 - 3.75.
  EXPECT_EQ(cubic[0].indices[12], 0);
  EXPECT_EQ(cubic[0].indices[15], 3);
  EXPECT_NEAR(cubic[0].weights[12], -3.0 / 32, 1e-12);
  EXPECT_NEAR(cubic[0].weights[13], 19.0 / 32, 1e-12);
  // Output 1 (source .5) reads inputs -1..2, input -1 clamped to 0:
  // (-3 * 10 + 19 * 10 + 19 * 20 - 3 * 30) / 32 = 14.0625.
  std::vector<double> y = applyTaps(cubic[0], x);
  EXPECT_NEAR(y[1], 14.0625, 1e-9);
  EXPECT_NEAR(y[3], 25.0, 1e-9);
  // exclude_outside drops input -1 and renormalizes: 480 / 35.
  attrs["exclude_outside"] = Attr::ofInt(1);
  auto excluded = resize(4, 7, attrs);
  EXPECT_NEAR(applyTaps(excluded[0], x)[1], 480.0 / 35, 1e-9);
}

/// tf_crop_and_resize: roi [.25, .75] of 5 inputs is sources 1, 2, 3; roi
/// [-.375, .625] is sources -1.5 (outside), .5 and 2.5. (The scale is a
/// float: positions are exact to about 1e-7.)
TEST_F(NodeHelpers, ResizeTapsCropAndResizeMapsTheRoiAndMarksOutside) {
  const double x[] = {0, 1, 2, 3, 4};
  auto inside = resize(5, 3, {{"mode", Attr::ofString("linear")},
                              {"coordinate_transformation_mode", Attr::ofString("tf_crop_and_resize")},
                              {"roi", Attr::ofFloats({0.25f, 0.75f})}});
  std::vector<double> y = applyTaps(inside[0], x);
  for (int o = 0; o < 3; ++o)
    EXPECT_NEAR(y[o], o + 1, 1e-6);
  EXPECT_EQ(inside[0].outside, (llvm::SmallVector<bool, 16>(3, false)));
  auto partly = resize(5, 3, {{"mode", Attr::ofString("linear")},
                              {"coordinate_transformation_mode", Attr::ofString("tf_crop_and_resize")},
                              {"roi", Attr::ofFloats({-0.375f, 0.625f})}});
  EXPECT_EQ(partly[0].outside, (llvm::SmallVector<bool, 16>{true, false, false}));
  EXPECT_NEAR(applyTaps(partly[0], x)[1], 0.5, 1e-6);
  EXPECT_NEAR(applyTaps(partly[0], x)[2], 2.5, 1e-6);
}

TEST_F(NodeHelpers, ResolveSliceClampsAndCountsByOnnxRules) {
  // x[1:4, ::2] of 5 x 7: starts (1, 0), steps (1, 2), shape 3 x 4.
  auto plain = resolveSlice(node(OpKind::Slice, {5, 7},
                                 {{"starts", Attr::ofInts({1, 0})},
                                  {"ends", Attr::ofInts({4, 7})},
                                  {"steps", Attr::ofInts({1, 2})}}));
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  EXPECT_EQ(plain->starts, (Shape{1, 0}));
  EXPECT_EQ(plain->steps, (Shape{1, 2}));
  EXPECT_EQ(plain->outShape, (Shape{3, 4}));
  // Axis 1 only, from the end: x[:, -3:] = columns 4, 5, 6.
  auto negative = resolveSlice(node(OpKind::Slice, {5, 7},
                                    {{"starts", Attr::ofInts({-3})},
                                     {"ends", Attr::ofInts({INT64_MAX})},
                                     {"axes", Attr::ofInts({-1})}}));
  ASSERT_TRUE(bool(negative));
  EXPECT_EQ(negative->starts, (Shape{0, 4}));
  EXPECT_EQ(negative->outShape, (Shape{5, 3}));
  // Reversed: x[::-1] of 6 starts at 5 (INT64_MAX clamped to dim - 1) and
  // ends before -1 (INT64_MIN clamped): 6 elements; x[4:0:-2] = 4, 2.
  auto reversed = resolveSlice(node(OpKind::Slice, {6},
                                    {{"starts", Attr::ofInts({INT64_MAX})},
                                     {"ends", Attr::ofInts({INT64_MIN})},
                                     {"steps", Attr::ofInts({-1})}}));
  ASSERT_TRUE(bool(reversed));
  EXPECT_EQ(reversed->starts, (Shape{5}));
  EXPECT_EQ(reversed->outShape, (Shape{6}));
  auto stepped = resolveSlice(node(OpKind::Slice, {6},
                                   {{"starts", Attr::ofInts({4})},
                                    {"ends", Attr::ofInts({0})},
                                    {"steps", Attr::ofInts({-2})}}));
  ASSERT_TRUE(bool(stepped));
  EXPECT_EQ(stepped->starts, (Shape{4}));
  EXPECT_EQ(stepped->outShape, (Shape{2}));
  // Empty: start past end.
  auto empty = resolveSlice(node(OpKind::Slice, {6},
                                 {{"starts", Attr::ofInts({4})}, {"ends", Attr::ofInts({2})}}));
  ASSERT_TRUE(bool(empty));
  EXPECT_EQ(empty->outShape, (Shape{0}));
}

TEST_F(NodeHelpers, ReducedAxesFollowAxesAndTheirDefaults) {
  auto some = reducedAxes(node(OpKind::ReduceSum, {2, 3, 4}, {{"axes", Attr::ofInts({0, -1})}}));
  ASSERT_TRUE(bool(some));
  EXPECT_EQ(*some, (llvm::SmallVector<bool, 6>{true, false, true}));
  auto all = reducedAxes(node(OpKind::ReduceMax, {2, 3, 4}, {}));
  ASSERT_TRUE(bool(all));
  EXPECT_EQ(*all, (llvm::SmallVector<bool, 6>{true, true, true}));
  auto noop = reducedAxes(node(OpKind::ReduceSum, {2, 3}, {{"noop_with_empty_axes", Attr::ofInt(1)}}));
  ASSERT_TRUE(bool(noop));
  EXPECT_EQ(*noop, (llvm::SmallVector<bool, 6>{false, false}));
  auto arg = reducedAxes(node(OpKind::ArgMax, {2, 3, 4}, {{"axis", Attr::ofInt(-2)}}));
  ASSERT_TRUE(bool(arg));
  EXPECT_EQ(*arg, (llvm::SmallVector<bool, 6>{false, true, false}));
}

} // namespace
} // namespace kiln
