//===- DepthwiseBandKernelTest.cpp - 1x1 + depthwise Conv in row bands ----===//
//
// An inverted residual block's 1x1 expansion (or a stem Conv) and depthwise
// Conv, and its 1x1 projection with or without the residual Add, run band by
// band in one kernel (lir::fuseDepthwiseBands), against the interpreter.
// The images are large enough for several bands and an edge band: bands
// hold lir::kDepthwiseBandBytes of the expansion, e.g. 32 rows of 64
// channels x 64 columns.
//
//===----------------------------------------------------------------------===//

#include "compiler/jit/BundleJit.h"
#include "compiler/lir/LIRPasses.h"
#include "compiler/pipeline/Pipeline.h"
#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct BandCase {
  const char *name;
  Shape x;               ///< the block's input
  int64_t expanded;      ///< the 1x1's output channels
  int64_t multiplier;    ///< the depthwise's output channels per channel
  int64_t kernel;        ///< the depthwise's square kernel
  AttrMap depthwise;     ///< its strides, pads, dilations
  bool biases, relu6;
  /// The first Conv's square kernel and its strides and pads (a 1x1
  /// expansion by default).
  int64_t firstKernel = 1;
  AttrMap first = {};
  /// The projection's output channels (0: none), and whether the block's
  /// input is added to its result (then they are the input's; with relu6,
  /// the sum is clipped too).
  int64_t projected = 0;
  bool residual = false;
  /// Whether the projection runs in the bands too (else after them).
  bool projectionInBands = true;
};

GraphBuilder bandGraph(const BandCase &c) {
  return [c](Graph &g) {
    Value *x = g.addInput("x", f32(c.x));
    auto relu6 = [&](Value *v, const char *name) {
      if (!c.relu6)
        return v;
      return addNode(g, OpKind::Clip, name, {v},
                     {{"min", Attr::ofFloat(0.0f)}, {"max", Attr::ofFloat(6.0f)}})
          ->getOutput();
    };
    llvm::SmallVector<Value *, 3> expandIn = {
        x, randomConstant(g, "we", {c.expanded, c.x[1], c.firstKernel, c.firstKernel})};
    if (c.biases)
      expandIn.push_back(randomConstant(g, "be", {c.expanded}));
    Value *e =
        relu6(addNode(g, OpKind::Conv, "expand", expandIn, c.first)->getOutput(), "act1");
    int64_t out = c.expanded * c.multiplier;
    llvm::SmallVector<Value *, 3> dwIn = {e, randomConstant(g, "wd", {out, 1, c.kernel, c.kernel})};
    if (c.biases)
      dwIn.push_back(randomConstant(g, "bd", {out}));
    AttrMap attrs = c.depthwise;
    attrs["group"] = Attr::ofInt(c.expanded);
    Value *d = relu6(addNode(g, OpKind::Conv, "depthwise", dwIn, attrs)->getOutput(), "act2");
    if (c.projected) {
      llvm::SmallVector<Value *, 3> projectIn = {
          d, randomConstant(g, "wp", {c.projected, out, 1, 1})};
      if (c.biases)
        projectIn.push_back(randomConstant(g, "bp", {c.projected}));
      d = addNode(g, OpKind::Conv, "project", projectIn, {})->getOutput();
      if (c.residual)
        d = relu6(addNode(g, OpKind::Add, "residual", {d, x}, {})->getOutput(), "act3");
    }
    g.addOutput("y", d);
  };
}

class DepthwiseBands : public ::testing::TestWithParam<BandCase> {};

TEST_P(DepthwiseBands, MatchesTheInterpreter) {
  EXPECT_TRUE(jitMatchesInterpreter(bandGraph(GetParam())));
}

/// The fusion happens: the expansion leaves the memory plan, for one band
/// (kDepthwiseBandBytes at most, with the projection's input band) and one
/// padded plane in the temp; so does the depthwise's result where the
/// projection is fused.
TEST_P(DepthwiseBands, KeepsTheExpansionOutOfScratch) {
  auto scratch = [](bool bands) -> uint64_t {
    auto g = buildGraph(bandGraph(GetParam()));
    if (auto err = runPipeline(*g, defaultPipeline(), PipelineOptions{})) {
      ADD_FAILURE() << llvm::toString(std::move(err));
      return 0;
    }
    lir::LIROptions opts;
    opts.depthwiseBands = bands;
    auto bundle = JitBundle::compile(*g, "jit", opts, testTarget());
    if (!bundle) {
      ADD_FAILURE() << llvm::toString(bundle.takeError());
      return 0;
    }
    return (*bundle)->scratchSize();
  };
  const BandCase &c = GetParam();
  int64_t stride = c.first.count("strides") ? c.first.at("strides").getInts()[0] : 1;
  uint64_t expansion =
      c.x[0] * c.expanded * (c.x[2] / stride) * (c.x[3] / stride) * sizeof(float);
  uint64_t unfused = scratch(false), fused = scratch(true);
  // The expansion's bytes for a band's and a plane's.
  EXPECT_GE(unfused, expansion);
  EXPECT_LT(fused, unfused);
  EXPECT_LE(fused + expansion, unfused + lir::kDepthwiseBandBytes + 16 * 1024);
  if (c.projected && c.projectionInBands) {
    // Neither is the depthwise's: the scratch is the temp alone, a band of
    // each and a plane, after a stem's padded input copy (one pixel of
    // padding each side).
    uint64_t copy =
        c.firstKernel > 1 ? c.x[1] * (c.x[2] + 2) * (c.x[3] + 2) * sizeof(float) : 0;
    EXPECT_LE(fused, lir::kDepthwiseBandBytes + copy + 16 * 1024);
  }
}

const AttrMap kPad1 = {{"pads", Attr::ofInts({1, 1, 1, 1})}};

INSTANTIATE_TEST_SUITE_P(
    Shapes, DepthwiseBands,
    ::testing::Values(
        // MobileNetV2's: bands of 30 rows, then 10.
        BandCase{"K3x3Pad1", {1, 16, 70, 64}, 64, 1, 3, kPad1, true, true},
        // Bands of 15 output rows (31 input rows), then 5; the last
        // window reads the bottom padding row.
        BandCase{"K3x3Stride2Pad1", {1, 16, 70, 64}, 64, 1, 3,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}},
                 true, true},
        // Bands of 7 output rows (15 input rows); the last band's window is
        // clamped into the image, and odd columns split into unequal phases.
        BandCase{"K3x3Stride2AsymmetricPads", {1, 8, 67, 127}, 64, 1, 3,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({0, 1, 1, 0})}},
                 false, false},
        // Bands of 34 rows (42 input rows), then 12.
        BandCase{"K5x5Dilation2Multiplier2", {1, 8, 80, 48}, 64, 2, 5,
                 {{"dilations", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({4, 4, 4, 4})}},
                 true, false},
        BandCase{"K3x3UnpaddedBatch2", {2, 4, 75, 64}, 64, 1, 3, {}, false, true},
        // A stem: a padded 3x3 Conv of stride 2 (the Direct kernel over its
        // padded copy), 140 x 128 -> 70 x 64.
        BandCase{"StemK3x3Stride2", {1, 3, 140, 128}, 64, 1, 3, kPad1, true, true, 3,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}},
        // A 1x1 of stride 2, read in place.
        BandCase{"K1x1Stride2", {1, 8, 140, 128}, 64, 1, 3, kPad1, false, false, 1,
                 {{"strides", Attr::ofInts({2, 2})}}},
        // With the projection: bands of 15 rows (17 input rows) hold the
        // expansion's and the depthwise's rows, then 10; the residual Add
        // and the Clip after it in the projection's epilogue.
        BandCase{"ProjectedResidual", {1, 16, 70, 64}, 64, 1, 3, kPad1, true, true, 1, {}, 16,
                 true},
        // Bands of 12 output rows (25 input rows), then 11.
        BandCase{"ProjectedStride2", {1, 16, 70, 64}, 64, 1, 3,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}},
                 false, true, 1, {}, 24},
        // Bands of 54 rows (62 input rows), then 26.
        BandCase{"ProjectedMultiplier2Batch2", {2, 8, 80, 48}, 16, 2, 5,
                 {{"dilations", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({4, 4, 4, 4})}},
                 true, false, 1, {}, 8, true},
        BandCase{"ProjectedStem", {1, 3, 140, 128}, 64, 1, 3, kPad1, true, true, 3,
                 {{"strides", Attr::ofInts({2, 2})}, {"pads", Attr::ofInts({1, 1, 1, 1})}}, 16},
        // Bands that also hold the projection's input would be 5 rows (7
        // computed): the expansion and the depthwise fuse alone, in bands
        // of 10.
        BandCase{"ProjectionTooWide", {1, 16, 40, 112}, 96, 1, 3, kPad1, true, false, 1, {},
                 16, true, false}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace kiln
