//===- ConvTransposeKernelTest.cpp - Sub-pixel Conv and the scatter kernel ===//
//
// Every ConvTranspose against the interpreter's own ConvTranspose. The
// geometries lowering decomposes into Convs over the output phases (one for
// all, or one per phase) must leave no ConvTranspose behind; the others must
// keep the scatter kernel.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct ConvTransposeCase {
  const char *name;
  Shape x, w;
  bool bias;
  AttrMap attrs;
  /// The Convs lowering turns it into: one over every phase, one per phase,
  /// or none (the scatter kernel runs).
  unsigned convs;
  Weights weights = Weights::Constant;
};

GraphBuilder convTransposeGraph(const ConvTransposeCase &c) {
  int64_t group = c.attrs.count("group") ? c.attrs.at("group").getInt() : 1;
  return weightedNode(OpKind::ConvTranspose, c.x, c.w, c.bias ? c.w[1] * group : 0,
                      c.attrs, c.weights);
}

class ConvTransposeKernel : public ::testing::TestWithParam<ConvTransposeCase> {};

TEST_P(ConvTransposeKernel, MatchesTheInterpreter) {
  const ConvTransposeCase &c = GetParam();
  JitCheck check;
  check.expectGraph = [&](const Graph &g) {
    EXPECT_EQ(countOps(g, OpKind::ConvTranspose), c.convs ? 0u : 1u);
    EXPECT_EQ(countOps(g, OpKind::Conv), c.convs);
  };
  EXPECT_TRUE(jitMatchesInterpreter(convTransposeGraph(c), check));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvTransposeKernel,
    ::testing::Values(
        // U-Net upsampling: every phase one tap, a 1x1 Conv.
        ConvTransposeCase{"K2Stride2", {1, 8, 5, 6}, {8, 4, 2, 2}, true,
                          {{"strides", Attr::ofInts({2, 2})}}, 1},
        // The common 3x3 upsampling, output exactly twice the input.
        ConvTransposeCase{"K3Stride2Pad1OutputPadding1", {1, 4, 5, 5}, {4, 3, 3, 3}, true,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})},
                           {"output_padding", Attr::ofInts({1, 1})}},
                          1},
        ConvTransposeCase{"K4Stride2Pad1", {1, 3, 4, 7}, {3, 5, 4, 4}, false,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})}},
                          1},
        ConvTransposeCase{"K3Stride1Pad1", {1, 5, 6, 6}, {5, 4, 3, 3}, true,
                          {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 1},
        ConvTransposeCase{"K3Stride3", {1, 2, 4, 3}, {2, 3, 3, 3}, true,
                          {{"strides", Attr::ofInts({3, 3})}}, 1},
        ConvTransposeCase{"K5Stride2NotAMultiple", {1, 3, 4, 4}, {3, 2, 5, 5}, true,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({2, 1, 2, 0})}},
                          1},
        ConvTransposeCase{"MixedStridesAndKernels", {1, 3, 5, 4}, {3, 2, 3, 2}, true,
                          {{"strides", Attr::ofInts({2, 1})},
                           {"pads", Attr::ofInts({0, 1, 1, 0})}},
                          1},
        ConvTransposeCase{"Grouped", {1, 6, 4, 4}, {6, 2, 3, 3}, true,
                          {{"group", Attr::ofInt(3)},
                           {"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})}},
                          1},
        ConvTransposeCase{"Batch2", {2, 3, 3, 4}, {3, 2, 2, 2}, true,
                          {{"strides", Attr::ofInts({2, 2})}}, 1},
        ConvTransposeCase{"SameUpper", {1, 3, 5, 5}, {3, 2, 3, 3}, true,
                          {{"auto_pad", Attr::ofString("SAME_UPPER")},
                           {"strides", Attr::ofInts({2, 2})}},
                          1},
        ConvTransposeCase{"OutputShapeCrops", {1, 2, 4, 4}, {2, 3, 3, 3}, false,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"output_shape", Attr::ofInts({7, 8})}},
                          1},
        // output_shape beyond the natural size: negative pads, the grid
        // reaches past the input's last row.
        ConvTransposeCase{"OutputShapeGrows", {1, 2, 3, 3}, {2, 2, 2, 2}, true,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"output_shape", Attr::ofInts({8, 9})}},
                          1},
        // Pads as large as the kernel: the Conv would need negative pads.
        ConvTransposeCase{"PadsBeyondTheKernel", {1, 2, 6, 6}, {2, 2, 2, 2}, true,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({2, 2, 2, 2})}},
                          0},
        // Dilated: a strided axis's phases take taps from the kernel's
        // span (zeros between), an axis of stride 1 keeps the dilation.
        ConvTransposeCase{"Dilation2Stride2", {1, 2, 4, 4}, {2, 3, 3, 3}, true,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"dilations", Attr::ofInts({2, 2})}},
                          1},
        ConvTransposeCase{"Dilation2Stride1Pad2", {1, 4, 6, 6}, {4, 3, 3, 3}, true,
                          {{"pads", Attr::ofInts({2, 2, 2, 2})},
                           {"dilations", Attr::ofInts({2, 2})}},
                          1},
        ConvTransposeCase{"DilationsMixedAsymmetricPads", {1, 3, 5, 7}, {3, 2, 3, 2}, false,
                          {{"dilations", Attr::ofInts({3, 2})},
                           {"pads", Attr::ofInts({1, 0, 2, 1})}},
                          1},
        ConvTransposeCase{"Dilation3Stride2OutputPadding", {1, 2, 5, 4}, {2, 3, 3, 2}, true,
                          {{"strides", Attr::ofInts({2, 3})},
                           {"dilations", Attr::ofInts({3, 2})},
                           {"pads", Attr::ofInts({1, 2, 1, 0})},
                           {"output_padding", Attr::ofInts({1, 2})}},
                          1},
        ConvTransposeCase{"Dilation2GroupedStride1", {1, 6, 5, 5}, {6, 2, 3, 3}, true,
                          {{"group", Attr::ofInt(3)},
                           {"dilations", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})}},
                          1},
        // Eight filters or more: a Conv per phase where the phases' own
        // taps and grids save products (3x3 stride 2: 9 taps of 16; 4x4
        // stride 2, pad 1: a grid row and column fewer), else still one.
        ConvTransposeCase{"PerPhaseK3Stride2Pad1OutputPadding1", {1, 5, 6, 7}, {5, 8, 3, 3}, true,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})},
                           {"output_padding", Attr::ofInts({1, 1})}},
                          4},
        ConvTransposeCase{"PerPhaseK4Stride2Pad1", {1, 3, 4, 5}, {3, 9, 4, 4}, false,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})}},
                          4},
        ConvTransposeCase{"PerPhaseK5x3Strides3x2", {1, 2, 3, 4}, {2, 8, 5, 3}, true,
                          {{"strides", Attr::ofInts({3, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 0})}},
                          6},
        ConvTransposeCase{"PerPhaseGrouped", {1, 4, 5, 5}, {4, 4, 3, 3}, true,
                          {{"group", Attr::ofInt(2)},
                           {"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})},
                           {"output_padding", Attr::ofInts({1, 1})}},
                          4},
        ConvTransposeCase{"PerPhaseBatch2", {2, 3, 4, 4}, {3, 8, 3, 3}, false,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})},
                           {"output_padding", Attr::ofInts({1, 1})}},
                          4},
        // Every phase one tap, none wasted: the one 1x1 Conv.
        ConvTransposeCase{"EightFiltersK2Stride2", {1, 3, 4, 4}, {3, 8, 2, 2}, true,
                          {{"strides", Attr::ofInts({2, 2})}}, 1},
        // An odd output (7 rows of stride 2): the phases' grids differ, one Conv.
        ConvTransposeCase{"EightFiltersOddOutput", {1, 2, 4, 4}, {2, 8, 3, 3}, true,
                          {{"strides", Attr::ofInts({2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1})}},
                          1},
        ConvTransposeCase{"RunTimeWeights", {1, 2, 4, 4}, {2, 3, 2, 2}, false,
                          {{"strides", Attr::ofInts({2, 2})}}, 0, Weights::Input},
        // 1-D: the 2-D ConvTranspose of height 1, lowered.
        ConvTransposeCase{"OneDimensional", {1, 3, 7}, {3, 2, 4}, true,
                          {{"strides", Attr::ofInts({2})}}, 1},
        // HiFi-GAN's upsampling, kernel 16, stride 8, pad 4, on 6 inputs:
        // the one Conv's grid has 7 columns, each phase's 6, a Conv each.
        ConvTransposeCase{"OneDimensionalK16Stride8", {1, 8, 6}, {8, 8, 16}, true,
                          {{"strides", Attr::ofInts({8})}, {"pads", Attr::ofInts({4, 4})}}, 8},
        ConvTransposeCase{"OneDimensionalPerPhase", {1, 3, 9}, {3, 8, 3}, false,
                          {{"strides", Attr::ofInts({2})},
                           {"pads", Attr::ofInts({1, 1})},
                           {"output_padding", Attr::ofInts({1})}},
                          2},
        ConvTransposeCase{"OneDimensionalGroupedDilated", {1, 4, 6}, {4, 3, 3}, true,
                          {{"group", Attr::ofInt(2)},
                           {"dilations", Attr::ofInts({2})},
                           {"pads", Attr::ofInts({1, 2})}},
                          1},
        // 3-D: the depth axis's windows as channels, its phases as filters,
        // of one 2-D ConvTranspose, lowered. A 3-D U-Net's 2x2x2 upsampling:
        ConvTransposeCase{"ThreeDimensionalK2Stride2", {1, 4, 3, 4, 5}, {4, 3, 2, 2, 2}, true,
                          {{"strides", Attr::ofInts({2, 2, 2})}}, 1},
        ConvTransposeCase{"ThreeDimensionalK3Stride2Pad1OutputPadding1", {1, 3, 3, 4, 4},
                          {3, 2, 3, 3, 3}, true,
                          {{"strides", Attr::ofInts({2, 2, 2})},
                           {"pads", Attr::ofInts({1, 1, 1, 1, 1, 1})},
                           {"output_padding", Attr::ofInts({1, 1, 1})}},
                          1},
        ConvTransposeCase{"ThreeDimensionalMixed", {2, 4, 4, 3, 5}, {4, 3, 3, 2, 3}, true,
                          {{"group", Attr::ofInt(2)},
                           {"strides", Attr::ofInts({3, 1, 2})},
                           {"dilations", Attr::ofInts({1, 2, 1})},
                           {"pads", Attr::ofInts({2, 0, 1, 0, 1, 0})}},
                          1},
        ConvTransposeCase{"ThreeDimensionalDepthDilated", {1, 2, 5, 3, 3}, {2, 3, 3, 3, 3}, false,
                          {{"dilations", Attr::ofInts({2, 1, 1})},
                           {"pads", Attr::ofInts({2, 1, 1, 2, 1, 1})}},
                          1},
        // Depth pads beyond the kernel: the scatter kernel in 3-D; and
        // height pads beyond it: the scatter kernel in the inner 2-D.
        ConvTransposeCase{"ThreeDimensionalDepthPadsBeyondTheKernel", {1, 2, 5, 3, 3},
                          {2, 2, 2, 2, 2}, true,
                          {{"strides", Attr::ofInts({2, 1, 1})},
                           {"pads", Attr::ofInts({2, 0, 0, 2, 0, 0})}},
                          0},
        ConvTransposeCase{"ThreeDimensionalHeightPadsBeyondTheKernel", {1, 2, 3, 6, 3},
                          {2, 2, 2, 2, 2}, true,
                          {{"strides", Attr::ofInts({1, 2, 1})},
                           {"pads", Attr::ofInts({0, 2, 0, 0, 2, 0})}},
                          0}),
    [](const auto &info) { return info.param.name; });

} // namespace
} // namespace kiln
