//===- ResizeKernelTest.cpp - The one-pass Resize kernel ------------------===//
//
// Resize of the last two axes in every mode and coordinate transformation
// against the interpreter's Resize; it must stay one Resize node for its
// kernel. A Resize of another axis must be lowered (to Gathers) instead.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct ResizeCase {
  const char *name;
  Shape x, sizes;
  std::vector<float> scales;
  AttrMap attrs;
};

GraphBuilder resizeGraph(const ResizeCase &c) {
  AttrMap attrs = c.attrs;
  attrs["sizes"] = Attr::ofInts(c.sizes);
  attrs["scales"] = Attr::ofFloats(c.scales);
  return singleNode(OpKind::Resize, {f32(c.x)}, attrs);
}

AttrMap mode(llvm::StringRef mode, llvm::StringRef coordinates) {
  return {{"mode", Attr::ofString(mode)},
          {"coordinate_transformation_mode", Attr::ofString(coordinates)}};
}

class ResizeKernel : public ::testing::TestWithParam<ResizeCase> {};

TEST_P(ResizeKernel, MatchesTheInterpreterInOnePass) {
  JitCheck check;
  check.expectGraph = [](const Graph &g) {
    EXPECT_EQ(countOps(g, OpKind::Resize), 1u);
    EXPECT_EQ(g.getNumNodes(), 1u);
  };
  EXPECT_TRUE(jitMatchesInterpreter(resizeGraph(GetParam()), check));
}

const Shape kImage{1, 3, 5, 6};
const Shape kUp{1, 3, 10, 12};
const std::vector<float> kTwice{1, 1, 2, 2};

INSTANTIATE_TEST_SUITE_P(
    Modes, ResizeKernel,
    ::testing::Values(
        ResizeCase{"BilinearHalfPixel", kImage, kUp, kTwice, mode("linear", "half_pixel")},
        ResizeCase{"BilinearPytorchHalfPixel", kImage, kUp, kTwice,
                   mode("linear", "pytorch_half_pixel")},
        ResizeCase{"BilinearAlignCorners", kImage, kUp, kTwice,
                   mode("linear", "align_corners")},
        ResizeCase{"BilinearAsymmetric", kImage, kUp, kTwice, mode("linear", "asymmetric")},
        ResizeCase{"BilinearDownscale", {1, 2, 9, 8}, {1, 2, 4, 3}, {1, 1, 4.0f / 9, 3.0f / 8},
                   mode("linear", "half_pixel")},
        ResizeCase{"BilinearOneOutputRow", {1, 2, 4, 5}, {1, 2, 1, 7}, {1, 1, 0.25f, 1.4f},
                   mode("linear", "pytorch_half_pixel")},
        ResizeCase{"NearestRoundPreferFloor", kImage, kUp, kTwice,
                   mode("nearest", "half_pixel")},
        ResizeCase{"NearestAsymmetricCeil", {1, 2, 4, 4}, {1, 2, 12, 6}, {1, 1, 3, 1.5f},
                   [] {
                     AttrMap a = mode("nearest", "asymmetric");
                     a["nearest_mode"] = Attr::ofString("ceil");
                     return a;
                   }()},
        // (With ceil, tf_half_pixel_for_nn moves the unresized axes too.)
        ResizeCase{"NearestTfHalfPixelFloor", {1, 2, 5, 5}, {1, 2, 7, 8}, {1, 1, 1.4f, 1.6f},
                   [] {
                     AttrMap a = mode("nearest", "tf_half_pixel_for_nn");
                     a["nearest_mode"] = Attr::ofString("floor");
                     return a;
                   }()},
        ResizeCase{"NearestAlignCornersRoundPreferCeil", kImage, kUp, kTwice,
                   [] {
                     AttrMap a = mode("nearest", "align_corners");
                     a["nearest_mode"] = Attr::ofString("round_prefer_ceil");
                     return a;
                   }()},
        ResizeCase{"CubicHalfPixel", kImage, kUp, kTwice, mode("cubic", "half_pixel")},
        ResizeCase{"CubicExcludeOutside", kImage, {1, 3, 7, 9}, {1, 1, 1.4f, 1.5f},
                   [] {
                     AttrMap a = mode("cubic", "asymmetric");
                     a["exclude_outside"] = Attr::ofInt(1);
                     a["cubic_coeff_a"] = Attr::ofFloat(-0.5f);
                     return a;
                   }()},
        ResizeCase{"TfCropAndResizeExtrapolates", kImage, {1, 3, 6, 7}, {1, 1, 1.2f, 1.1667f},
                   [] {
                     AttrMap a = mode("linear", "tf_crop_and_resize");
                     a["roi"] = Attr::ofFloats({0, 0, -0.2f, 0.1f, 1, 1, 0.9f, 1.3f});
                     a["extrapolation_value"] = Attr::ofFloat(7.5f);
                     return a;
                   }()},
        // Output rows of many vectors whose lanes read within one vector of
        // input columns (a shuffle per column tap): DeepLab's upsampling by
        // 8 to 224 columns (the last vector narrower at 8 and 16 lanes),
        // cubic, nearest; rows of 75 vectors by 12 and of 12 by 3, whose
        // vectors repeat shifted (one loop over the repeats); a downscale by
        // 4, whose vectors span more input columns than a vector, keeps the
        // gathers.
        ResizeCase{"BilinearBy8To224Columns", {1, 3, 4, 28}, {1, 3, 8, 224}, {1, 1, 2, 8},
                   mode("linear", "half_pixel")},
        ResizeCase{"CubicBy3Columns", {1, 2, 3, 23}, {1, 2, 5, 69}, {1, 1, 5.0f / 3, 3},
                   mode("cubic", "half_pixel")},
        ResizeCase{"NearestBy5Columns", {1, 2, 3, 9}, {1, 2, 6, 45}, {1, 1, 2, 5},
                   mode("nearest", "asymmetric")},
        ResizeCase{"BilinearBy12To1200Columns", {1, 2, 3, 100}, {1, 2, 6, 1200}, {1, 1, 2, 12},
                   mode("linear", "half_pixel")},
        ResizeCase{"BilinearBy3To192Columns", {1, 1, 2, 64}, {1, 1, 4, 192}, {1, 1, 2, 3},
                   mode("linear", "pytorch_half_pixel")},
        ResizeCase{"BilinearDownscaleBy4Columns", {1, 2, 4, 80}, {1, 2, 4, 20}, {1, 1, 1, 0.25f},
                   mode("linear", "align_corners")},
        ResizeCase{"Rank3", {4, 5, 6}, {4, 10, 3}, {1, 2, 0.5f}, mode("linear", "half_pixel")},
        ResizeCase{"Batch2", {2, 2, 3, 3}, {2, 2, 6, 6}, {1, 1, 2, 2},
                   mode("linear", "align_corners")}),
    [](const auto &info) { return info.param.name; });

TEST(ResizeKernel, OtherAxesAreLoweredToGathers) {
  JitCheck check;
  check.expectGraph = [](const Graph &g) {
    EXPECT_EQ(countOps(g, OpKind::Resize), 0u);
    EXPECT_GT(countOps(g, OpKind::Gather), 0u);
  };
  ResizeCase c{"Channels", {1, 3, 4, 4}, {1, 6, 8, 8}, {1, 2, 2, 2}, mode("linear", "half_pixel")};
  EXPECT_TRUE(jitMatchesInterpreter(resizeGraph(c), check));
}

} // namespace
} // namespace kiln
