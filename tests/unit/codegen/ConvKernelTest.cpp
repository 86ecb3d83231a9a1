//===- ConvKernelTest.cpp - Conv, fused activations, folded BatchNorm -----===//

#include "compiler/ops/ActivationOps.h"
#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct ConvCase {
  const char *name;
  Shape x, w;
  bool bias;
  AttrMap attrs;
  Weights weights = Weights::Constant;
  /// LIROptions::winogradTile: 0 lets the cost model choose.
  int64_t winogradTile = 0;
};

GraphBuilder convGraph(const ConvCase &c) {
  return weightedNode(OpKind::Conv, c.x, c.w, c.bias ? c.w[0] : 0, c.attrs, c.weights);
}

class ConvKernel : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvKernel, MatchesTheInterpreter) {
  JitCheck check;
  check.lir.winogradTile = GetParam().winogradTile;
  EXPECT_TRUE(jitMatchesInterpreter(convGraph(GetParam()), check));
}

/// The register tile is the strategy's (lir/RegisterTiles.h): held to 10
/// registers, the cost models choose other tiles (fewer rows, other
/// orientations and spans), which the kernels must run as they are given.
TEST_P(ConvKernel, MatchesTheInterpreterInTilesOfTenRegisters) {
  JitCheck check;
  check.lir.winogradTile = GetParam().winogradTile;
  check.lir.vectorRegisters = 10;
  EXPECT_TRUE(jitMatchesInterpreter(convGraph(GetParam()), check));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvKernel,
    ::testing::Values(
        ConvCase{"K1x1", {1, 8, 5, 5}, {4, 8, 1, 1}, true, {}},
        ConvCase{"K1x1Stride2", {1, 3, 7, 7}, {5, 3, 1, 1}, true,
                 {{"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"K3x3NoPadNoBias", {1, 3, 7, 7}, {6, 3, 3, 3}, false, {}},
        ConvCase{"K3x3Pad1", {1, 3, 7, 7}, {6, 3, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"K5x5Pad2", {1, 4, 9, 9}, {3, 4, 5, 5}, true,
                 {{"pads", Attr::ofInts({2, 2, 2, 2})}}},
        ConvCase{"K7x7Stride2Pad3", {1, 3, 15, 15}, {8, 3, 7, 7}, true,
                 {{"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({3, 3, 3, 3})}}},
        ConvCase{"AsymmetricPads", {1, 2, 6, 7}, {3, 2, 3, 3}, true,
                 {{"pads", Attr::ofInts({0, 1, 2, 3})}}},
        ConvCase{"PadsLargerThanKernelHalf", {1, 2, 4, 4}, {2, 2, 3, 3}, false,
                 {{"pads", Attr::ofInts({3, 0, 0, 3})}}},
        ConvCase{"SameUpperStride2", {1, 2, 8, 7}, {3, 2, 3, 3}, true,
                 {{"auto_pad", Attr::ofString("SAME_UPPER")},
                  {"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"SameLowerStride2", {1, 2, 8, 7}, {3, 2, 3, 3}, true,
                 {{"auto_pad", Attr::ofString("SAME_LOWER")},
                  {"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"SameUpperEvenKernel", {1, 2, 6, 6}, {3, 2, 4, 2}, true,
                 {{"auto_pad", Attr::ofString("SAME_UPPER")}}},
        ConvCase{"SameLowerEvenKernel", {1, 2, 6, 6}, {3, 2, 4, 2}, true,
                 {{"auto_pad", Attr::ofString("SAME_LOWER")}}},
        ConvCase{"Valid", {1, 3, 9, 8}, {2, 3, 3, 3}, true,
                 {{"auto_pad", Attr::ofString("VALID")},
                  {"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"Dilation2", {1, 3, 9, 9}, {4, 3, 3, 3}, true,
                 {{"dilations", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({2, 2, 2, 2})}}},
        ConvCase{"DilationAndStrideMixed", {1, 2, 10, 11}, {3, 2, 3, 2}, true,
                 {{"dilations", Attr::ofInts({2, 1})},
                  {"strides", Attr::ofInts({1, 2})},
                  {"pads", Attr::ofInts({1, 0, 2, 1})}}},
        // Kernel rows that read only padding for some output rows, which
        // a tile of one output row skips (ConvKernel.cpp, rowTaps): DeepLab's
        // ASPP branch in small, wide rows with more padding than the window
        // reaches at either end (skipped rows: reading one more fails it),
        // and a dilation whose outer taps read only padding everywhere
        // (trim-conv-taps makes it a 1x1).
        ConvCase{"DilatedRowsOfPadding", {1, 16, 8, 8}, {16, 16, 3, 3}, true,
                 {{"dilations", Attr::ofInts({6, 6})},
                  {"pads", Attr::ofInts({6, 6, 6, 6})}}},
        ConvCase{"RowsOfPaddingWideRows", {1, 2, 6, 40}, {3, 2, 5, 3}, true,
                 {{"dilations", Attr::ofInts({2, 1})},
                  {"pads", Attr::ofInts({5, 1, 4, 1})}}},
        // A Nx1 kernel padded only above and below: its padded copy's rows
        // are the output's, so the plane is one run and no row is skipped.
        ConvCase{"RowsOfPaddingOneRunPlane", {1, 4, 40, 60}, {4, 4, 3, 1}, true,
                 {{"dilations", Attr::ofInts({25, 1})},
                  {"pads", Attr::ofInts({25, 0, 25, 0})}}},
        // Kernel columns that read only padding for some output columns,
        // which a tile of output channels on the lanes skips pixel by pixel
        // (columnTaps; select_kernels.kir shows the strategies): padding
        // only left and right (a padded copy); three tiles a row, the last
        // narrower; rows skipped too, so no padded copy (the input read in
        // place), at unit strides and at strides 2; and grouped.
        ConvCase{"ColumnsOfPadding", {1, 16, 6, 14}, {32, 16, 1, 5}, true,
                 {{"dilations", Attr::ofInts({1, 4})},
                  {"pads", Attr::ofInts({0, 8, 0, 8})}}},
        ConvCase{"ColumnsOfPaddingThreeTilesARow", {1, 16, 5, 40}, {32, 16, 3, 3}, true,
                 {{"dilations", Attr::ofInts({1, 16})},
                  {"pads", Attr::ofInts({1, 16, 1, 16})}}},
        ConvCase{"PaddingSkippedInPlace", {1, 64, 14, 14}, {32, 64, 3, 3}, true,
                 {{"dilations", Attr::ofInts({6, 6})},
                  {"pads", Attr::ofInts({6, 6, 6, 6})}}},
        ConvCase{"PaddingSkippedInPlaceStride2", {1, 64, 27, 27}, {32, 64, 3, 3}, true,
                 {{"dilations", Attr::ofInts({12, 12})},
                  {"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({12, 12, 12, 12})}}},
        ConvCase{"GroupedColumnsOfPadding", {1, 32, 6, 20}, {32, 16, 3, 3}, false,
                 {{"group", Attr::ofInt(2)},
                  {"dilations", Attr::ofInts({1, 8})},
                  {"pads", Attr::ofInts({1, 8, 1, 8})}}},
        ConvCase{"GroupedPaddingSkipped", {1, 64, 14, 14}, {64, 16, 3, 3}, true,
                 {{"group", Attr::ofInt(4)},
                  {"dilations", Attr::ofInts({6, 6})},
                  {"pads", Attr::ofInts({6, 6, 6, 6})}}},
        ConvCase{"DilationPastTheImage", {1, 8, 6, 6}, {8, 8, 3, 3}, true,
                 {{"dilations", Attr::ofInts({8, 8})},
                  {"pads", Attr::ofInts({8, 8, 8, 8})}}},
        // Dilated 3x3 Convs whose sub-grids are large enough run undilated
        // over them as a batch (dilated-conv-to-batch): 2x2 sub-grids of
        // 14x14; 2x3 of 16x15, the last row cropped.
        ConvCase{"DilatedAsSubGrids", {1, 8, 28, 28}, {6, 8, 3, 3}, true,
                 {{"dilations", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({2, 2, 2, 2})}}},
        ConvCase{"DilatedAsSubGridsCropped", {1, 8, 31, 45}, {4, 8, 3, 3}, false,
                 {{"dilations", Attr::ofInts({2, 3})},
                  {"pads", Attr::ofInts({2, 3, 2, 3})}}},
        ConvCase{"Group2", {1, 4, 6, 6}, {6, 2, 3, 3}, true,
                 {{"group", Attr::ofInt(2)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"Group3NoBias", {2, 6, 5, 5}, {9, 2, 3, 3}, false,
                 {{"group", Attr::ofInt(3)}}},
        // Grouped, one group after the other (lir::KernelStrategy::Grouped,
        // each group's padded copy made just before its tiles): groups of 8
        // and 16 output channels (whole vectors at 8 and 4 lanes), of 12 (a
        // multiple of 4, not of 8) and of 9 (of neither); RegNet's strided
        // and padded 3x3, a 1x1 that strides, rows wide enough for pixels
        // on the lanes, and an unpadded one read in place.
        ConvCase{"GroupedWidth8Stride2", {1, 32, 14, 14}, {32, 8, 3, 3}, true,
                 {{"group", Attr::ofInt(4)},
                  {"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"GroupedWidth16", {1, 48, 9, 9}, {48, 16, 3, 3}, true,
                 {{"group", Attr::ofInt(3)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"GroupedWidth12WideRows", {1, 24, 12, 40}, {24, 12, 3, 3}, true,
                 {{"group", Attr::ofInt(2)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"GroupedWidth9AsymmetricPads", {1, 12, 7, 10}, {18, 6, 3, 3}, false,
                 {{"group", Attr::ofInt(2)}, {"pads", Attr::ofInts({0, 1, 2, 1})}}},
        ConvCase{"Grouped1x1Stride2", {1, 16, 9, 9}, {24, 8, 1, 1}, true,
                 {{"group", Attr::ofInt(2)}, {"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"GroupedInPlaceBatch2", {2, 16, 10, 12}, {16, 8, 3, 3}, true,
                 {{"group", Attr::ofInt(2)}}},
        // Rows narrower than kNarrowRow at unit strides, output rows as long
        // as the input's: the plane as one flat run of vectors
        // (DepthwisePlaneKernel.cpp: on targets of 16 lanes, windows of up
        // to 9 taps; channel blocks elsewhere). KWS's 25x5 (one run, the
        // last vector partial), MobileNet's 7x7 and 28x28 (a period a loop
        // step), rows of 5 in a loop of a period a step and a partial
        // vector after it, rows of 8 (a period of one vector), dilated windows
        // whose taps reach past two rows, or with no column at the pixel's own
        // (pads odd, dilation 2), pads on one side only, rows of no
        // padding (the output has fewer rows), a row of one pixel, a batch
        // of two without bias, and weights computed at run time.
        ConvCase{"Depthwise", {1, 6, 7, 7}, {6, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(6)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwisePlaneKws", {1, 20, 25, 5}, {20, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(20)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwisePlaneManyPeriods", {1, 3, 28, 28}, {3, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(3)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwisePlaneGroupsOfPeriods", {1, 3, 100, 5}, {3, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(3)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwisePlaneRowsOfAVector", {1, 2, 56, 8}, {2, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(2)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwisePlaneDilation2", {1, 3, 14, 13}, {3, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(3)},
                  {"dilations", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({2, 2, 2, 2})}}},
        ConvCase{"DepthwisePlaneNoUnshiftedColumn", {1, 3, 10, 9}, {3, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(3)},
                  {"dilations", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({1, 1, 3, 3})}}},
        ConvCase{"DepthwisePlaneAsymmetricPads", {1, 4, 6, 7}, {4, 1, 3, 2}, true,
                 {{"group", Attr::ofInt(4)}, {"pads", Attr::ofInts({0, 1, 2, 0})}}},
        ConvCase{"DepthwisePlaneUnpaddedRows", {1, 5, 9, 6}, {5, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(5)}, {"pads", Attr::ofInts({0, 1, 0, 1})}}},
        ConvCase{"DepthwisePlaneOnePixelRows", {1, 3, 12, 1}, {3, 1, 3, 1}, true,
                 {{"group", Attr::ofInt(3)}, {"pads", Attr::ofInts({1, 0, 1, 0})}}},
        ConvCase{"DepthwisePlaneBatch2NoBias", {2, 17, 7, 7}, {17, 1, 3, 3}, false,
                 {{"group", Attr::ofInt(17)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwisePlaneWeightsInput", {1, 20, 9, 11}, {20, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(20)}, {"pads", Attr::ofInts({1, 1, 1, 1})}},
                 Weights::Input},
        // Other narrow rows (strided, output rows of another length, larger
        // windows):
        // channel blocks on the lanes (DepthwiseChannelBlockKernel.cpp), a
        // full block and a partial one; constant weights packed a block's
        // tap per vector, others gathered.
        ConvCase{"DepthwiseChannelBlocksStride2", {1, 20, 9, 11}, {20, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(20)},
                  {"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwiseChannelBlocksWeightsInput", {1, 20, 9, 11}, {20, 1, 5, 5}, true,
                 {{"group", Attr::ofInt(20)}, {"pads", Attr::ofInts({1, 1, 1, 1})}},
                 Weights::Input},
        ConvCase{"DepthwiseChannelBlocks5x5", {1, 20, 7, 7}, {20, 1, 5, 5}, true,
                 {{"group", Attr::ofInt(20)}, {"pads", Attr::ofInts({2, 2, 2, 2})}}},
        ConvCase{"DepthwiseMultiplier2Stride2", {1, 4, 8, 8}, {8, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(4)},
                  {"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        // Rows of kNarrowRow or more: the row kernel (DepthwiseConvKernel.cpp)
        // with the output row on the lanes, whole vectors and a tail; strided,
        // dilated, multiplied, and rows that run on as one (stride 1, no
        // horizontal padding or taps: a flat plane).
        ConvCase{"DepthwiseWide", {1, 3, 6, 37}, {3, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(3)}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwiseWideStride2", {1, 2, 9, 70}, {2, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(2)},
                  {"strides", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DepthwiseWideK5Dilation2", {1, 2, 9, 44}, {2, 1, 5, 5}, false,
                 {{"group", Attr::ofInt(2)},
                  {"dilations", Attr::ofInts({2, 2})},
                  {"pads", Attr::ofInts({4, 4, 4, 4})}}},
        ConvCase{"DepthwiseWideMultiplier2AsymmetricPads", {1, 2, 5, 33}, {4, 1, 3, 3}, true,
                 {{"group", Attr::ofInt(2)}, {"pads", Attr::ofInts({0, 2, 1, 0})}}},
        ConvCase{"DepthwiseWideFlatRows", {1, 3, 5, 33}, {3, 1, 3, 1}, true,
                 {{"group", Attr::ofInt(3)}}},
        ConvCase{"Batch2", {2, 3, 6, 6}, {4, 3, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"NonSquare", {1, 3, 5, 9}, {4, 3, 3, 5}, true,
                 {{"strides", Attr::ofInts({1, 2})},
                  {"pads", Attr::ofInts({1, 2, 1, 2})}}},
        ConvCase{"KernelCoversInput", {1, 3, 4, 4}, {2, 3, 4, 4}, true, {}},
        ConvCase{"ManyChannels", {1, 32, 6, 6}, {16, 32, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}},
        // Inputs over ConvKernel.cpp's 128 KiB cache block, pixels on the
        // lanes: a 1x1 plane cut into runs of pixels (147 KiB), and a padded
        // 5x5 cut into blocks of rows (153 KiB: 58 rows, then 8).
        ConvCase{"CacheBlocksOfPixels", {1, 16, 48, 48}, {8, 16, 1, 1}, true, {}},
        ConvCase{"CacheBlocksOfRows", {1, 8, 66, 66}, {4, 8, 5, 5}, true,
                 {{"pads", Attr::ofInts({2, 2, 2, 2})}}},
        // Over packed panels (lir::KernelStrategy::Pointwise and Direct
        // with a block of pixels, unstrided planes of up to 64 pixels; the
        // small direct cases above take them too): 6000 channels make
        // blocks of 43 of a 7x7 plane's 49 pixels, each block whole tiles
        // and a partial one; 20 output channels a whole and a partial
        // vector tile at 8 and 16 lanes. A channel tile's K runs in blocks
        // of 16 KiB of its weights (256 steps of a 16-channel tile): 6000
        // makes several blocks and a partial last one; 512 with a tile of
        // 16 channels (8 lanes) exactly two, with nothing between the first
        // and the last.
        ConvCase{"PointwisePanelBlocks", {1, 6000, 7, 7}, {20, 6000, 1, 1}, true, {}},
        ConvCase{"PointwisePanelTwoKBlocks", {1, 512, 7, 7}, {16, 512, 1, 1}, true, {}},
        // Strided Convs read no panels while their weights are under 1 MiB:
        // a strided 1x1 reads every other pixel of every other row in
        // place; a padded strided 3x3 with K = 1152, and resnet8_cifar's
        // first strided layer, read their padded copy split into column
        // phases.
        ConvCase{"PointwiseStride2Batch2", {2, 515, 13, 13}, {9, 515, 1, 1}, false,
                 {{"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"DirectStride2K1152", {1, 128, 31, 31}, {10, 128, 3, 3}, true,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"DirectStride2ResNet8", {1, 16, 32, 32}, {32, 16, 3, 3}, true,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        // With 1 MiB of weights or more they do: a padded 3x3 of stride 2 to
        // 7x7 copies each tap of a tile's row as every other lane of a run
        // of its input row; a 1x1 of stride 2 to 7x7 with 260 output
        // channels (a partial channel tile) does too; to 5x5, tiles that do
        // not divide the row copy pixel by pixel.
        ConvCase{"DirectStride2Panels", {1, 256, 14, 14}, {128, 256, 3, 3}, true,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"PointwiseStride2Panels", {1, 1024, 13, 13}, {260, 1024, 1, 1}, true,
                 {{"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"DirectStride2PanelsOddRow", {1, 256, 10, 10}, {136, 256, 3, 3}, true,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        // On planes over 64 pixels too: an unpadded 3x3 to 12x12 (K = 2592:
        // panel blocks of 101 pixels, then 43; tiles across rows), and a
        // 1x1 to 10x10 with 1.06 MB of weights.
        ConvCase{"DirectStride2PanelsLargePlane", {1, 288, 25, 25}, {130, 288, 3, 3}, true,
                 {{"strides", Attr::ofInts({2, 2})}}},
        ConvCase{"PointwiseStride2PanelsLargePlane", {1, 520, 19, 19}, {512, 520, 1, 1}, true,
                 {{"strides", Attr::ofInts({2, 2})}}},
        // Winograd F(2x2, 3x3) (WinogradConvKernel.cpp): even and odd
        // output sizes, pads on some sides only, tile rows longer than a
        // vector, several blocks of tile rows, channels not a multiple of
        // the K loop's unrolling.
        ConvCase{"WinogradPad1", {1, 16, 12, 12}, {24, 16, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}},
        ConvCase{"WinogradOddSizesNoPadBatch2", {2, 9, 13, 13}, {5, 9, 3, 3}, false, {}},
        ConvCase{"WinogradAsymmetricPads", {1, 8, 9, 17}, {19, 8, 3, 3}, true,
                 {{"pads", Attr::ofInts({0, 1, 2, 0})}}},
        ConvCase{"WinogradManyBlocks", {1, 10, 41, 40}, {8, 10, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}},
        // The same as F(2x2) and as F(4x4), forced: F(4x4) leaves up to
        // three rows and columns of its last tiles past the image, and its
        // tile rows (output width / 4) are shorter than a vector, so that
        // a vector of the transforms spans several of them, for every
        // width but the widest here (70: 18 tiles a row, more than 16
        // lanes).
        ConvCase{"Winograd2x2Pad1", {1, 16, 12, 12}, {24, 16, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Constant, 2},
        ConvCase{"Winograd4x4Pad1", {1, 16, 12, 12}, {24, 16, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Constant, 4},
        ConvCase{"Winograd4x4OddSizesNoPadBatch2", {2, 9, 13, 13}, {5, 9, 3, 3}, false, {},
                 Weights::Constant, 4},
        ConvCase{"Winograd4x4AsymmetricPads", {1, 8, 9, 17}, {19, 8, 3, 3}, true,
                 {{"pads", Attr::ofInts({0, 1, 2, 0})}}, Weights::Constant, 4},
        ConvCase{"Winograd4x4ManyBlocks", {1, 10, 41, 40}, {8, 10, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Constant, 4},
        ConvCase{"Winograd4x4WideRows", {1, 8, 70, 69}, {12, 8, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Constant, 4},
        ConvCase{"Winograd2x2WideRows", {1, 8, 35, 69}, {12, 8, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Constant, 2},
        ConvCase{"Winograd4x4Image8x8", {1, 64, 8, 8}, {64, 64, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Constant, 4},
        ConvCase{"Winograd2x2Image8x8", {1, 64, 8, 8}, {64, 64, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Constant, 2},
        // Winograd along one row or column of taps, F(1x2, 1xr) and
        // F(2x1, rx1): inception's 1x7 and 7x1 at 12x12, odd outputs (a
        // last tile half past the image), a 1x5 padded on every side (rows
        // of padding too), rows of more tiles than a vector, several blocks
        // of tile rows.
        ConvCase{"WinogradLine1x7", {1, 16, 12, 12}, {24, 16, 1, 7}, true,
                 {{"pads", Attr::ofInts({0, 3, 0, 3})}}},
        ConvCase{"WinogradLine7x1", {1, 16, 12, 12}, {24, 16, 7, 1}, true,
                 {{"pads", Attr::ofInts({3, 0, 3, 0})}}},
        ConvCase{"WinogradLine1x7OddNoPadBatch2", {2, 9, 13, 17}, {5, 9, 1, 7}, false, {}},
        ConvCase{"WinogradLine7x1OddNoPadBatch2", {2, 9, 17, 13}, {5, 9, 7, 1}, false, {}},
        ConvCase{"WinogradLine1x5AsymmetricPads", {1, 8, 9, 20}, {19, 8, 1, 5}, true,
                 {{"pads", Attr::ofInts({1, 2, 0, 1})}}},
        ConvCase{"WinogradLine1x7WideRows", {1, 8, 10, 70}, {12, 8, 1, 7}, true,
                 {{"pads", Attr::ofInts({0, 3, 0, 3})}}},
        ConvCase{"WinogradLine7x1ManyBlocks", {1, 10, 41, 40}, {8, 10, 7, 1}, true,
                 {{"pads", Attr::ofInts({3, 0, 3, 0})}}},
        ConvCase{"WeightsAsInput", {2, 3, 6, 5}, {4, 3, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Input},
        // Winograd of weights read at run time, transformed by the kernel
        // first (on vector targets; direct on scalar ones): output channels
        // of a whole vector and a partial one, both tiles, a batch, a row of
        // taps.
        ConvCase{"WinogradRunTimeWeights", {1, 16, 18, 18}, {20, 16, 3, 3}, true,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, Weights::Input},
        ConvCase{"Winograd4x4RunTimeWeightsBatch2", {2, 9, 14, 14}, {32, 9, 3, 3}, false, {},
                 Weights::Input, 4},
        ConvCase{"Winograd2x2RunTimeWeightsAsymmetricPads", {1, 8, 17, 20}, {19, 8, 3, 3}, true,
                 {{"pads", Attr::ofInts({0, 1, 2, 0})}}, Weights::Input, 2},
        ConvCase{"WinogradLine1x7RunTimeWeights", {1, 8, 16, 24}, {12, 8, 1, 7}, true,
                 {{"pads", Attr::ofInts({0, 3, 0, 3})}}, Weights::Input}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// Fused activations (fuse-activation)
//===----------------------------------------------------------------------===//

struct ActivationCase {
  OpKind op;
  std::string name;
  AttrMap attrs;
};

/// Every activation record with an op, at its default parameters, and
/// LeakyRelu and Clip at others.
std::vector<ActivationCase> activationCases() {
  std::vector<ActivationCase> cases = {
      {OpKind::LeakyRelu, "LeakyReluAlpha", {{"alpha", Attr::ofFloat(0.15f)}}},
      {OpKind::Clip, "ClipMinMax",
       {{"min", Attr::ofFloat(-1.5f)}, {"max", Attr::ofFloat(2.0f)}}},
  };
  for (unsigned k = 1; k < kNumActivationKinds; ++k)
    if (const OpDef *def = lookupOpDef(activationName(ActivationKind(k))))
      cases.push_back({def->kind, def->name, {}});
  return cases;
}

class ConvFusedActivation : public ::testing::TestWithParam<ActivationCase> {};

/// The activation runs in the Conv's epilogue on vectors of the host's width
/// (functions of ScalarMath lane by lane) and must match the interpreter's
/// double-precision formula.
TEST_P(ConvFusedActivation, MatchesTheInterpreter) {
  const ActivationCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 6, 7}));
    Node *conv = addNode(g, OpKind::Conv, "conv",
                         {x, randomConstant(g, "w", {5, 3, 3, 3}),
                          randomConstant(g, "b", {5})},
                         {{"pads", Attr::ofInts({1, 1, 1, 1})}});
    Node *act = addNode(g, c.op, "act", {conv->getOutput()}, c.attrs);
    g.addOutput("y", act->getOutput());
  };
  JitCheck check;
  // Conv outputs reach about +-8 here, past every activation's bends.
  check.lo = -3.0f;
  check.hi = 3.0f;
  // Near their poles Reciprocal and Tan magnify the Conv's own rounding
  // (f32 accumulation here, double in the interpreter).
  if (c.op == OpKind::Reciprocal || c.op == OpKind::Tan)
    check.rtol = 1e-3;
  check.expectGraph = [&](const Graph &g) {
    ASSERT_EQ(g.getNumNodes(), 1u);
    EXPECT_EQ(g.getNodes()[0]->getActivation("kiln.activation").getKind(),
              *activationKindOf(c.op));
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

INSTANTIATE_TEST_SUITE_P(Activations, ConvFusedActivation,
                         ::testing::ValuesIn(activationCases()),
                         [](const auto &info) { return info.param.name; });

TEST(ConvFusedActivation, SiLUMatchesTheInterpreter) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 6, 7}));
    Value *c = addNode(g, OpKind::Conv, "conv",
                       {x, randomConstant(g, "w", {5, 3, 3, 3}),
                        randomConstant(g, "b", {5})},
                       {{"pads", Attr::ofInts({1, 1, 1, 1})}})
                   ->getOutput();
    Value *s = addNode(g, OpKind::Sigmoid, "sig", {c})->getOutput();
    g.addOutput("y", addNode(g, OpKind::Mul, "silu", {c, s})->getOutput());
  };
  JitCheck check;
  check.lo = -3.0f;
  check.hi = 3.0f;
  check.expectGraph = [](const Graph &g) {
    ASSERT_EQ(g.getNumNodes(), 1u);
    EXPECT_EQ(g.getNodes()[0]->getActivation("kiln.activation").getName(), "SiLU");
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

/// A flat-plane depthwise Conv (MobileNet's 7x7 stage) applies its fused
/// Clip (ReLU6) to every vector, the partial last one too.
TEST(ConvFusedActivation, DepthwisePlaneClipMatchesTheInterpreter) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 24, 7, 7}));
    Value *c = addNode(g, OpKind::Conv, "conv",
                       {x, randomConstant(g, "w", {24, 1, 3, 3}), randomConstant(g, "b", {24})},
                       {{"group", Attr::ofInt(24)}, {"pads", Attr::ofInts({1, 1, 1, 1})}})
                   ->getOutput();
    g.addOutput("y", addNode(g, OpKind::Clip, "relu6", {c},
                             {{"min", Attr::ofFloat(0.0f)}, {"max", Attr::ofFloat(1.0f)}})
                         ->getOutput());
  };
  JitCheck check;
  check.expectGraph = [](const Graph &g) { ASSERT_EQ(g.getNumNodes(), 1u); };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

//===----------------------------------------------------------------------===//
// BatchNormalization folded into the Conv (fold-batchnorm)
//===----------------------------------------------------------------------===//

GraphBuilder convBatchNorm(bool convBias) {
  return [convBias](Graph &g) {
    Value *x = g.addInput("x", f32({1, 3, 6, 6}));
    llvm::SmallVector<Value *, 3> convIn{x, randomConstant(g, "w", {4, 3, 3, 3})};
    if (convBias)
      convIn.push_back(randomConstant(g, "b", {4}));
    Node *conv = addNode(g, OpKind::Conv, "conv", convIn,
                         {{"pads", Attr::ofInts({1, 1, 1, 1})}});
    Node *bn = addNode(g, OpKind::BatchNormalization, "bn",
                       {conv->getOutput(), randomConstant(g, "scale", {4}),
                        randomConstant(g, "shift", {4}),
                        randomConstant(g, "mean", {4}),
                        randomConstant(g, "var", {4}, 0.5f, 2.0f)},
                       {{"epsilon", Attr::ofFloat(1e-3f)}});
    Node *relu = addNode(g, OpKind::Relu, "relu", {bn->getOutput()});
    g.addOutput("y", relu->getOutput());
  };
}

TEST(ConvBatchNorm, FoldedIntoTheConvMatchesTheInterpreter) {
  for (bool convBias : {false, true}) {
    SCOPED_TRACE(convBias ? "conv with bias" : "conv without bias");
    JitCheck check;
    check.expectGraph = [](const Graph &g) {
      ASSERT_EQ(g.getNumNodes(), 1u);
      EXPECT_TRUE(g.getNodes()[0]->is(OpKind::Conv));
      EXPECT_EQ(g.getNodes()[0]->getActivation("kiln.activation").getName(), "Relu");
    };
    EXPECT_TRUE(jitMatchesInterpreter(convBatchNorm(convBias), check));
  }
}

TEST(ConvBatchNorm, UnfoldedAfterTheConvMatchesTheInterpreter) {
  JitCheck check;
  check.passes = {"lower"};
  check.expectGraph = [](const Graph &g) {
    EXPECT_EQ(countOps(g, OpKind::Conv), 1u);
    EXPECT_EQ(countOps(g, OpKind::Mul), 1u);
    EXPECT_EQ(countOps(g, OpKind::Add), 1u);
  };
  EXPECT_TRUE(jitMatchesInterpreter(convBatchNorm(true), check));
}

//===----------------------------------------------------------------------===//
// A residual Add [and activation] in the convolution's epilogue (IRGen)
//===----------------------------------------------------------------------===//

struct ResidualCase {
  const char *name;
  Shape x, w;
  AttrMap attrs;
  bool convFirst; ///< the Conv is the Add's first operand
  bool relu;      ///< an activation after the Add
  int64_t winogradTile = 0; ///< LIROptions::winogradTile
};

class ConvResidualAdd : public ::testing::TestWithParam<ResidualCase> {};

TEST_P(ConvResidualAdd, MatchesTheInterpreter) {
  const ResidualCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32(c.x));
    Node *conv = addNode(g, OpKind::Conv, "conv",
                         {x, randomConstant(g, "w", c.w), randomConstant(g, "b", {c.w[0]})},
                         c.attrs);
    const TensorType &outType = conv->getOutput()->getType();
    Value *skip = g.addInput("skip", outType);
    Node *add = addNode(g, OpKind::Add, "add",
                        c.convFirst ? llvm::SmallVector<Value *, 2>{conv->getOutput(), skip}
                                    : llvm::SmallVector<Value *, 2>{skip, conv->getOutput()});
    Value *y = add->getOutput();
    if (c.relu)
      y = addNode(g, OpKind::Relu, "relu", {y})->getOutput();
    g.addOutput("y", y);
  };
  JitCheck check;
  check.lir.winogradTile = c.winogradTile;
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvResidualAdd,
    ::testing::Values(
        ResidualCase{"K3x3PixelsOnLanes", {1, 4, 20, 20}, {6, 4, 3, 3},
                     {{"pads", Attr::ofInts({1, 1, 1, 1})}}, true, true},
        ResidualCase{"K3x3ChannelsOnLanes", {1, 8, 4, 4}, {40, 8, 3, 3},
                     {{"pads", Attr::ofInts({1, 1, 1, 1})}}, false, true},
        ResidualCase{"Winograd2x2", {1, 16, 15, 16}, {16, 16, 3, 3},
                     {{"pads", Attr::ofInts({1, 1, 1, 1})}}, false, true, 2},
        ResidualCase{"Winograd4x4", {1, 16, 15, 16}, {16, 16, 3, 3},
                     {{"pads", Attr::ofInts({1, 1, 1, 1})}}, false, true, 4},
        ResidualCase{"Winograd4x4Rows", {1, 16, 10, 24}, {16, 16, 3, 3},
                     {{"pads", Attr::ofInts({1, 1, 1, 1})}}, true, false, 4},
        ResidualCase{"WinogradLine1x7", {1, 16, 12, 12}, {16, 16, 1, 7},
                     {{"pads", Attr::ofInts({0, 3, 0, 3})}}, true, true},
        ResidualCase{"K1x1Stride2NoActivation", {1, 16, 8, 8}, {32, 16, 1, 1},
                     {{"strides", Attr::ofInts({2, 2})}}, true, false},
        // Packed panels (7x7), and in two K blocks (5x5, 256 channels).
        ResidualCase{"K1x1Panels", {1, 128, 7, 7}, {64, 128, 1, 1}, {}, true, true},
        ResidualCase{"K1x1PanelsKBlocks", {1, 256, 5, 5}, {72, 256, 1, 1}, {}, false, true}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace kiln
