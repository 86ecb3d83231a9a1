//===- Int8KernelTest.cpp - int8 kernels bit for bit with the interpreter -===//
//
// Every int8 kernel family against the reference interpreter (TFLite
// Micro's integer semantics) with zero tolerance, on full-range int8 inputs
// and the edge cases of the arithmetic: zero points at -128 and 127,
// saturating outputs, negative and positive shifts, per-channel scales 1000x
// apart, and 1x1, 3x3, strided, padded, dilated and grouped windows.
//
//===----------------------------------------------------------------------===//
#include "compiler/ops/ActivationOps.h"
#include "compiler/ops/QuantizedTypes.h"
#include "tests/unit/codegen/KernelTestUtil.h"

#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <random>

namespace kiln {
namespace {

using namespace test;

TensorType q8(llvm::ArrayRef<int64_t> shape, float scale, int32_t zp) {
  TensorType t(DType::I8, shape);
  t.quant.scales = {scale};
  t.quant.zeroPoints = {zp};
  return t;
}

Attr quantAttr(float scale, int32_t zp) {
  QuantParams q;
  q.scales = {scale};
  q.zeroPoints = {zp};
  return Attr::ofQuant(q);
}

/// Symmetric int8 weights in [-127, 127], per channel along `axis` with
/// scales spread geometrically over `spread` (or per tensor for spread 0).
Value *int8Weights(Graph &g, llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                   int axis, float spread, uint64_t seed) {
  TensorType t(DType::I8, shape);
  int64_t channels = spread > 0 ? shape[axis] : 1;
  for (int64_t c = 0; c < channels; ++c) {
    float f = channels > 1 ? float(c) / float(channels - 1) : 0;
    t.quant.scales.push_back(0.002f * std::pow(spread > 0 ? spread : 1, f));
    t.quant.zeroPoints.push_back(0);
  }
  if (channels > 1)
    t.quant.axis = axis;
  Tensor data(t);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-127, 127);
  for (int64_t i = 0; i < data.numElements(); ++i)
    data.data<int8_t>()[i] = int8_t(dist(rng));
  return g.addConstant(name, std::move(data));
}

Value *int32Bias(Graph &g, llvm::StringRef name, int64_t n, uint64_t seed) {
  Tensor data(TensorType(DType::I32, {n}));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> dist(-20000, 20000);
  for (int64_t i = 0; i < n; ++i)
    data.data<int32_t>()[i] = dist(rng);
  return g.addConstant(name, std::move(data));
}

/// Full-range int8 inputs for every graph input.
JitCheck exact(const Graph &g, uint64_t seed = 7) {
  JitCheck check;
  check.rtol = 0;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  for (const Value *v : g.getInputs()) {
    Tensor t(v->getType());
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.data<int8_t>()[i] = int8_t(dist(rng));
    check.inputs.push_back(std::move(t));
  }
  return check;
}

::testing::AssertionResult compiledEqualsInterpreter(const GraphBuilder &build) {
  auto g = buildGraph(build);
  return jitMatchesInterpreter(build, exact(*g));
}

struct ConvCase {
  const char *name;
  Shape x, w;
  int64_t group;
  AttrMap window;
  int32_t inZp, outZp;
  float outScale, spread;
  Activation act;
};

void PrintTo(const ConvCase &c, std::ostream *os) { *os << c.name; }

class Int8Conv : public ::testing::TestWithParam<ConvCase> {};

/// Case `c`'s Conv of a new input "x"; with `nhwc`, "x" is channels-last
/// and a Transpose makes the Conv's NCHW input, as a TFLite model's first
/// Conv reads it (fold-input-transpose).
Node *addConv(Graph &g, const ConvCase &c, bool nhwc = false) {
  Value *x;
  if (nhwc) {
    Value *in = g.addInput("x", q8({c.x[0], c.x[2], c.x[3], c.x[1]}, 0.05f, c.inZp));
    x = addNode(g, OpKind::Transpose, "nchw", {in},
                {{"perm", Attr::ofInts({0, 3, 1, 2})}})
            ->getOutput();
  } else {
    x = g.addInput("x", q8(c.x, 0.05f, c.inZp));
  }
  AttrMap attrs = c.window;
  attrs.emplace("group", Attr::ofInt(c.group));
  attrs.emplace(kQuantAttr, quantAttr(c.outScale, c.outZp));
  attrs.emplace(kActivationAttr, Attr::ofActivation(c.act));
  return addNode(g, OpKind::Conv, "conv",
                 {x, int8Weights(g, "w", c.w, 0, c.spread, 3), int32Bias(g, "b", c.w[0], 4)},
                 attrs);
}

TEST_P(Int8Conv, CompiledEqualsInterpreter) {
  EXPECT_TRUE(compiledEqualsInterpreter(
      [&](Graph &g) { g.addOutput("y", addConv(g, GetParam())->getOutput()); }));
}

TEST_P(Int8Conv, FromNhwcInputEqualsInterpreter) {
  EXPECT_TRUE(compiledEqualsInterpreter(
      [&](Graph &g) { g.addOutput("y", addConv(g, GetParam(), true)->getOutput()); }));
}

/// The Conv's result plus a residual input, each with its own quantization,
/// the Conv's result first or second: a GEMM's epilogue takes the Add
/// (fuse-residual), every block of every kernel through it.
void expectResidualAddEqualsInterpreter(const ConvCase &c) {
  for (unsigned convOperand : {0u, 1u})
    EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
      Node *conv = addConv(g, c);
      Value *r = g.addInput("r", q8(conv->getOutput()->getType().shape, 0.03f, -c.outZp / 2));
      Value *y = conv->getOutput();
      Node *add = addNode(g, OpKind::Add, "add", {convOperand ? r : y, convOperand ? y : r},
                          {{kQuantAttr.str(), quantAttr(c.outScale * 1.5f, 7)},
                           {kActivationAttr.str(), Attr::ofActivation(c.act)}});
      g.addOutput("y", add->getOutput());
    })) << "the Conv's result is the Add's operand " << convOperand;
}

TEST_P(Int8Conv, WithResidualAddEqualsInterpreter) {
  expectResidualAddEqualsInterpreter(GetParam());
}

const Activation kNone;
const Activation kRelu = *Activation::make(ActivationKind::Relu);
const Activation kRelu6 = *Activation::make(ActivationKind::Clip, {0, 6});

INSTANTIATE_TEST_SUITE_P(
    Windows, Int8Conv,
    ::testing::Values(
        ConvCase{"K3Pad1", {1, 3, 7, 6}, {4, 3, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -128, 5, 0.1f, 1000, kRelu},
        ConvCase{"K1Unpadded", {1, 8, 5, 5}, {6, 8, 1, 1}, 1, {}, 127, -128, 0.2f, 1000,
                 kNone},
        // One input channel: gathered columns pair consecutive kernel
        // positions for VPMADDWD (Int8RowsWidenedPositionPairs), KWS's first
        // Conv (10x4 at stride 2), an odd count of positions (3x3, the last
        // pair padded), a 1x1.
        ConvCase{"OneChannel10x4Stride2", {1, 1, 13, 9}, {6, 1, 10, 4}, 1,
                 {{"pads", Attr::ofInts({4, 1, 5, 1})}, {"strides", Attr::ofInts({2, 2})}},
                 -1, 4, 0.05f, 1000, kRelu},
        ConvCase{"OneChannel3x3", {1, 1, 7, 20}, {5, 1, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 11, -2, 0.1f, 1000, kNone},
        ConvCase{"OneChannel1x1", {1, 1, 3, 5}, {4, 1, 1, 1}, 1, {}, 0, 0, 0.2f, 100, kNone},
        // One input channel: words of its plane, a window row's columns
        // padded to a quad (Int8RowsRowQuads; 5 to 8, 7 to 8) or a pair of
        // int16 (Int8RowsWidenedRowPairs; 5 to 6, 7 to 8), row dilation,
        // the last window's last word past the plane's end, blocks across
        // output rows; column dilation gathers.
        ConvCase{"OneChannel5x5RowDilated", {1, 1, 12, 40}, {7, 1, 5, 5}, 1,
                 {{"pads", Attr::ofInts({2, 2, 2, 2})}, {"dilations", Attr::ofInts({2, 1})}},
                 -128, 3, 0.1f, 1000, kRelu},
        ConvCase{"OneChannel2x7UnpaddedStride2", {1, 1, 6, 70}, {20, 1, 2, 7}, 1,
                 {{"strides", Attr::ofInts({1, 2})}}, 127, -5, 0.2f, 1000, kNone},
        ConvCase{"OneChannelMicroSpeech", {1, 1, 49, 40}, {8, 1, 10, 8}, 1,
                 {{"pads", Attr::ofInts({4, 3, 5, 3})}, {"strides", Attr::ofInts({2, 2})}},
                 -128, -128, 0.1f, 1000, kRelu},
        ConvCase{"OneChannelColumnDilated", {1, 1, 9, 17}, {4, 1, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})},
                  {"strides", Attr::ofInts({3, 3})},
                  {"dilations", Attr::ofInts({1, 2})}},
                 5, 0, 0.1f, 1000, kRelu6},
        ConvCase{"StridedDilatedPadded", {1, 2, 11, 9}, {3, 2, 3, 3}, 1,
                 {{"pads", Attr::ofInts({2, 1, 0, 2})},
                  {"strides", Attr::ofInts({2, 2})},
                  {"dilations", Attr::ofInts({2, 1})}},
                 0, 127, 0.5f, 10, kRelu6},
        ConvCase{"Depthwise", {1, 4, 6, 6}, {8, 1, 3, 3}, 4,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -3, -128, 0.05f, 1000, kRelu},
        ConvCase{"Grouped", {1, 4, 5, 5}, {6, 2, 3, 3}, 2,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 9, -7, 0.08f, 100, kNone},
        ConvCase{"DepthwiseStridedDilated", {1, 3, 9, 8}, {3, 1, 3, 3}, 3,
                 {{"pads", Attr::ofInts({0, 2, 1, 1})},
                  {"strides", Attr::ofInts({2, 2})},
                  {"dilations", Attr::ofInts({1, 2})}},
                 -128, 3, 0.1f, 1000, kRelu6},
        ConvCase{"Saturating", {1, 3, 5, 5}, {2, 3, 3, 3}, 1, {}, 17, 0, 0.0001f, 0, kNone},
        ConvCase{"NegativeShift", {1, 3, 5, 5}, {2, 3, 1, 1}, 1, {}, -128, 0, 50.0f, 0,
                 kNone},
        // Pixels on vector lanes (x86 AVX2): whole output rows of blocks read
        // as runs of padded planes, a group's planes, a 1x1 Conv's runs of the
        // input with its last block overlapping, and rows of two blocks.
        ConvCase{"RunsOfPlanes", {1, 5, 4, 32}, {20, 5, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -5, 3, 0.2f, 1000, kRelu},
        ConvCase{"RunsStridedRowsDilated", {1, 3, 9, 16}, {8, 3, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})},
                  {"strides", Attr::ofInts({2, 1})},
                  {"dilations", Attr::ofInts({2, 1})}},
                 100, -20, 0.3f, 1000, kNone},
        ConvCase{"RunsOfGroupPlanes", {1, 6, 3, 16}, {8, 3, 3, 3}, 2,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -128, 0, 0.1f, 1000, kRelu6},
        ConvCase{"PointwiseRunsOverlapping", {1, 7, 5, 7}, {9, 7, 1, 1}, 1, {}, 13, -1, 0.1f,
                 1000, kNone},
        ConvCase{"RunsStrideTwo", {1, 4, 6, 32}, {8, 4, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}, {"strides", Attr::ofInts({2, 2})}},
                 -9, 2, 0.2f, 1000, kRelu},
        // x86 VNNI: a grouped 1x1 Conv of one block of 8 pixels, whose
        // channels fill no quad.
        ConvCase{"PointwiseGroupedEightPixels", {1, 6, 2, 4}, {4, 3, 1, 1}, 2, {}, -128, 7,
                 0.1f, 1000, kRelu},
        ConvCase{"PointwiseStrideTwoBlocksOfEight", {1, 6, 8, 16}, {10, 6, 1, 1}, 1,
                 {{"strides", Attr::ofInts({2, 2})}}, 50, -60, 0.1f, 1000, kNone},
        ConvCase{"RowsOfEightPixels", {1, 4, 3, 4}, {5, 4, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 0, 0, 0.1f, 1000, kNone},
        // x86 AVX-512 VNNI, 16 pixels a zmm, 16 vectors of sums: rows of two
        // blocks of 32 read as runs of padded planes, 3 blocks of 8 rows (the
        // last overlapping); rows of 16, 2 blocks of 16 rows; a group's
        // planes of 3 channels (no whole quad) and 10 rows; column strides
        // of 2 and row strides with dilation; a 1x1 Conv's runs of the
        // input, 33 and 17 pixels (the last block overlapping the one
        // before, across rows), 7 and 5 channels; blocks of whole rows (4
        // of 8, 8 of 4, strided 2 of 16, grouped), a run of each row.
        // Elsewhere, blocks of 8.
        ConvCase{"ZmmRowsOfTwoBlocks", {1, 5, 4, 64}, {20, 5, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -7, 4, 0.2f, 1000, kRelu},
        ConvCase{"ZmmRowsOfOneBlock", {1, 6, 5, 16}, {20, 6, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 127, -128, 0.3f, 1000, kNone},
        ConvCase{"ZmmGroupPlanes", {1, 6, 3, 32}, {20, 3, 3, 3}, 2,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -128, 9, 0.1f, 1000, kRelu6},
        ConvCase{"ZmmStrideTwo", {1, 8, 7, 64}, {8, 8, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 0, 1, 1})}, {"strides", Attr::ofInts({2, 2})}},
                 21, -3, 0.2f, 1000, kRelu},
        ConvCase{"ZmmStridedRowsDilated", {1, 3, 9, 32}, {8, 3, 3, 3}, 1,
                 {{"pads", Attr::ofInts({2, 1, 2, 1})},
                  {"strides", Attr::ofInts({2, 1})},
                  {"dilations", Attr::ofInts({2, 1})}},
                 100, -20, 0.3f, 1000, kNone},
        ConvCase{"ZmmPointwiseOverlapping", {1, 7, 3, 11}, {9, 7, 1, 1}, 1, {}, 13, -1, 0.1f,
                 1000, kNone},
        ConvCase{"ZmmPointwiseSeventeenPixels", {1, 5, 1, 17}, {20, 5, 1, 1}, 1, {}, -128, 5,
                 0.1f, 1000, kRelu},
        ConvCase{"ZmmPointwiseStrideTwo", {1, 6, 4, 64}, {5, 6, 1, 1}, 1,
                 {{"strides", Attr::ofInts({2, 2})}}, 50, -60, 0.1f, 1000, kNone},
        ConvCase{"ZmmBlocksOfRowsOfEight", {1, 8, 8, 8}, {12, 8, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -128, 3, 0.2f, 1000, kRelu},
        ConvCase{"ZmmBlocksOfRowsOfFour", {1, 5, 8, 4}, {6, 5, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 77, -5, 0.1f, 1000, kNone},
        ConvCase{"ZmmBlocksOfRowsStrided", {1, 6, 15, 16}, {9, 6, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}, {"strides", Attr::ofInts({2, 2})}},
                 -20, 8, 0.2f, 1000, kRelu6},
        ConvCase{"ZmmBlocksOfRowsGrouped", {1, 8, 4, 8}, {8, 4, 3, 3}, 2,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 5, 0, 0.1f, 1000, kNone},
        // Depthwise with blocks of 8 channels on the lanes (x86 AVX2; 16 where
        // the target uses zmm, 21 channels two blocks of 16): whole
        // blocks, a last block overlapping the one before, rows of 5 (KWS),
        // asymmetric padding, strides, dilation, a window too big to unroll,
        // left shifts that saturate; with a depth multiplier, the plane.
        // The copies in and out go in runs of a block's lanes of pixels:
        // along rows of 16 or more (a last run overlapping), across
        // narrower rows, or a pixel at a time on a plane of fewer pixels.
        ConvCase{"DepthwiseChannelBlocksWideRows", {1, 16, 3, 37}, {16, 1, 3, 3}, 16,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -5, 3, 0.05f, 1000, kRelu},
        ConvCase{"DepthwiseChannelBlocksWideRowsStrided", {1, 24, 5, 40}, {24, 1, 3, 3}, 24,
                 {{"pads", Attr::ofInts({0, 1, 1, 0})}, {"strides", Attr::ofInts({2, 2})}},
                 9, -7, 0.1f, 1000, kNone},
        ConvCase{"DepthwiseChannelBlocksSmallPlane", {1, 16, 3, 3}, {16, 1, 3, 3}, 16,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 2, 1, 0.05f, 1000, kRelu},
        ConvCase{"DepthwiseChannelBlocks", {1, 16, 5, 5}, {16, 1, 3, 3}, 16,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -128, 5, 0.05f, 1000, kRelu},
        ConvCase{"DepthwiseZmmChannelBlocksOverlap", {1, 21, 7, 5}, {21, 1, 3, 3}, 21,
                 {{"pads", Attr::ofInts({1, 0, 1, 2})}, {"strides", Attr::ofInts({1, 2})}},
                 -100, 6, 0.08f, 1000, kRelu},
        ConvCase{"DepthwiseChannelBlocksOverlapStrided", {1, 13, 9, 8}, {13, 1, 3, 3}, 13,
                 {{"pads", Attr::ofInts({0, 2, 1, 1})}, {"strides", Attr::ofInts({2, 2})}},
                 17, -3, 0.1f, 1000, kRelu6},
        ConvCase{"DepthwiseChannelBlocksNarrowDilated", {1, 9, 25, 5}, {9, 1, 3, 3}, 9,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}, {"dilations", Attr::ofInts({2, 1})}},
                 127, 0, 0.08f, 0, kNone},
        ConvCase{"DepthwiseChannelBlocksLargeWindow", {1, 8, 10, 9}, {8, 1, 8, 7}, 8, {}, -7,
                 2, 0.5f, 100, kNone},
        // Taps in pairs (VPMADDWD) over odd rows of 5, the last with weight
        // 0; column dilation takes them one by one.
        ConvCase{"DepthwiseChannelBlocks5x5", {1, 16, 7, 9}, {16, 1, 5, 5}, 16,
                 {{"pads", Attr::ofInts({2, 2, 2, 2})}}, 11, -2, 0.3f, 1000, kRelu},
        ConvCase{"DepthwiseChannelBlocksColumnDilated", {1, 8, 6, 9}, {8, 1, 3, 3}, 8,
                 {{"pads", Attr::ofInts({1, 2, 1, 2})}, {"dilations", Attr::ofInts({1, 2})}},
                 -20, 4, 0.08f, 1000, kNone},
        // zmm blocks of 16 (Vnni512 targets): taps in pairs over a window
        // larger than the unrolled taps, one by one where columns dilate.
        ConvCase{"DepthwiseZmmLargeWindow", {1, 16, 10, 9}, {16, 1, 8, 7}, 16, {}, -7, 9,
                 0.02f, 1000, kNone},
        ConvCase{"DepthwiseZmmColumnDilated", {1, 17, 6, 9}, {17, 1, 3, 3}, 17,
                 {{"pads", Attr::ofInts({1, 2, 1, 2})}, {"dilations", Attr::ofInts({1, 2})}},
                 5, -3, 0.08f, 1000, kRelu},
        ConvCase{"DepthwiseChannelBlocksSaturating", {1, 8, 4, 4}, {8, 1, 3, 3}, 8,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 40, 0, 0.0001f, 0, kNone},
        ConvCase{"DepthwiseMultiplierTwo", {1, 8, 6, 6}, {16, 1, 3, 3}, 8,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}, {"strides", Attr::ofInts({1, 2})}},
                 -3, -128, 0.05f, 1000, kRelu},
        // Rows of at least a vector of outputs on the lanes (x86), a channel
        // at a time: stride 1 in steps of two vectors (even and odd outputs)
        // and stride 2 of one, each row ending in a partial step; row
        // dilation, windows of 5, 4 (pairs without a zero) and 1 column,
        // asymmetric pads, saturation, a batch of 2.
        ConvCase{"DepthwiseRowsStride1", {1, 5, 6, 37}, {5, 1, 3, 3}, 5,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -5, 3, 0.05f, 1000, kRelu},
        ConvCase{"DepthwiseRowsStride2", {1, 3, 9, 41}, {3, 1, 3, 3}, 3,
                 {{"pads", Attr::ofInts({0, 1, 1, 1})}, {"strides", Attr::ofInts({2, 2})}},
                 9, -7, 0.1f, 1000, kRelu6},
        ConvCase{"DepthwiseRows5x5RowDilated", {1, 4, 11, 20}, {4, 1, 5, 5}, 4,
                 {{"pads", Attr::ofInts({4, 2, 4, 2})}, {"dilations", Attr::ofInts({2, 1})}},
                 127, 0, 0.3f, 1000, kNone},
        ConvCase{"DepthwiseRowsEvenWindow", {1, 2, 5, 19}, {2, 1, 2, 4}, 2,
                 {{"pads", Attr::ofInts({0, 1, 1, 2})}}, -128, 5, 0.08f, 100, kNone},
        ConvCase{"DepthwiseRowsOneColumn", {1, 3, 6, 17}, {3, 1, 3, 1}, 3,
                 {{"pads", Attr::ofInts({1, 0, 1, 0})}, {"strides", Attr::ofInts({1, 2})}},
                 17, -3, 0.02f, 1000, kRelu},
        ConvCase{"DepthwiseRowsSaturating", {1, 2, 4, 18}, {2, 1, 3, 3}, 2,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, 40, 0, 0.0001f, 0, kNone},
        ConvCase{"DepthwiseRowsBatch", {2, 3, 4, 16}, {3, 1, 3, 3}, 3,
                 {{"pads", Attr::ofInts({1, 1, 1, 1})}}, -1, 2, 0.05f, 1000, kRelu}),
    [](const auto &info) { return std::string(info.param.name); });

/// 1-D and 3-D Convs, which lowering makes 2-D (LowerWindow.cpp): per-channel
/// weights reshaped with their scales, a 3-D Conv's input padded in depth
/// at its zero point and gathered by depth windows, the residual Add fused
/// through the Reshapes.
class Int8ConvND : public ::testing::TestWithParam<ConvCase> {};

TEST_P(Int8ConvND, CompiledEqualsInterpreter) {
  EXPECT_TRUE(compiledEqualsInterpreter(
      [&](Graph &g) { g.addOutput("y", addConv(g, GetParam())->getOutput()); }));
}

TEST_P(Int8ConvND, WithResidualAddEqualsInterpreter) {
  expectResidualAddEqualsInterpreter(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Ranks, Int8ConvND,
    ::testing::Values(
        ConvCase{"Conv1DStrided", {1, 6, 40}, {8, 6, 5}, 1,
                 {{"pads", Attr::ofInts({2, 2})}, {"strides", Attr::ofInts({2})}}, -3, 5, 0.1f,
                 1000, kRelu},
        ConvCase{"Conv1DPointwise", {1, 5, 17}, {9, 5, 1}, 1, {}, 127, -128, 0.2f, 100, kNone},
        ConvCase{"Conv3DPadded", {1, 3, 5, 6, 7}, {4, 3, 3, 3, 3}, 1,
                 {{"pads", Attr::ofInts({1, 1, 1, 1, 1, 1})}, {"strides", Attr::ofInts({2, 1, 1})}},
                 9, -2, 0.3f, 1000, kRelu},
        ConvCase{"Conv3DGroupedDepthOnly", {1, 4, 4, 5, 5}, {4, 2, 3, 1, 1}, 2,
                 {{"pads", Attr::ofInts({1, 0, 0, 1, 0, 0})}}, -100, 3, 0.1f, 10, kNone}),
    [](const auto &info) { return std::string(info.param.name); });

/// Two Convs that share their weights read them packed once.
TEST(Int8Kernels, ConvsSharingWeights) {
  EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
    Value *x = g.addInput("x", q8({1, 3, 6, 5}, 0.05f, 4));
    Value *w = int8Weights(g, "w", {5, 3, 3, 3}, 0, 100, 3);
    Value *b = int32Bias(g, "b", 5, 4);
    AttrMap attrs{{"group", Attr::ofInt(1)},
                  {"pads", Attr::ofInts({1, 0, 1, 2})},
                  {kQuantAttr.str(), quantAttr(0.2f, -5)},
                  {kActivationAttr.str(), Attr::ofActivation(kNone)}};
    g.addOutput("y0", addNode(g, OpKind::Conv, "conv0", {x, w, b}, attrs)->getOutput());
    g.addOutput("y1", addNode(g, OpKind::Conv, "conv1", {x, w, b}, attrs)->getOutput());
  }));
}

/// Weights that are also a graph output stay as they are: the GEMM reads
/// them unpacked, a Conv's [O][taps] and a MatMul's [K][N].
TEST(Int8Kernels, UnpackedWeights) {
  EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
    Value *x = g.addInput("x", q8({1, 3, 5, 6}, 0.05f, 4));
    Value *w = int8Weights(g, "w", {5, 3, 3, 3}, 0, 100, 3);
    Node *conv = addNode(g, OpKind::Conv, "conv", {x, w, int32Bias(g, "b", 5, 4)},
                         {{"pads", Attr::ofInts({1, 1, 1, 1})},
                          {kQuantAttr.str(), quantAttr(0.2f, -5)}});
    Value *row = g.addInput("row", q8({1, 7}, 0.1f, -9));
    Value *fcw = int8Weights(g, "fcw", {7, 5}, 1, 10, 5);
    Node *fc = addNode(g, OpKind::MatMul, "fc", {row, fcw, int32Bias(g, "fcb", 5, 6)},
                       {{kQuantAttr.str(), quantAttr(0.3f, 2)}});
    g.addOutput("y", conv->getOutput());
    g.addOutput("fc", fc->getOutput());
    g.addOutput("w", w);
    g.addOutput("fcw", fcw);
  }));
}

TEST(Int8Kernels, FullyConnectedPerTensorAndPerChannel) {
  for (float spread : {0.0f, 1000.0f})
    EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
      // Three rows (GEMM blocks of two columns, one repeated) and one row
      // (four weight rows a block); 7 outputs and 41 taps fill neither.
      Value *x = g.addInput("x", q8({spread > 0 ? 3 : 1, 41}, 0.1f, 127));
      Node *n = addNode(g, OpKind::MatMul, "fc",
                        {x, int8Weights(g, "w", {41, 7}, 1, spread, 5),
                         int32Bias(g, "b", 7, 6)},
                        {{kQuantAttr.str(), quantAttr(0.3f, -20)},
                         {kActivationAttr.str(), Attr::ofActivation(kRelu)}});
      g.addOutput("y", n->getOutput());
    })) << spread;
}

/// Output channels on the vector lanes (SDOT, VNNI): one row and blocks of
/// rows (one repeated), channels filling whole vectors or not (the last
/// vector's lanes past them store nothing), taps filling no quad, zero
/// points at both ends, per-channel scales 1000x apart.
TEST(Int8Kernels, FullyConnectedChannelLanes) {
  struct Case {
    int64_t rows, taps, channels;
    int32_t inZp, outZp;
  };
  for (const Case &c : {Case{1, 41, 37, 127, -20}, Case{5, 64, 48, -128, 3},
                        Case{2, 3, 16, 0, 127}, Case{1, 130, 100, -7, -128},
                        Case{3, 9, 4, 5, 0}})
    EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
      Value *x = g.addInput("x", q8({c.rows, c.taps}, 0.1f, c.inZp));
      Node *n = addNode(g, OpKind::MatMul, "fc",
                        {x, int8Weights(g, "w", {c.taps, c.channels}, 1, 1000, 5),
                         int32Bias(g, "b", c.channels, 6)},
                        {{kQuantAttr.str(), quantAttr(0.3f, c.outZp)},
                         {kActivationAttr.str(), Attr::ofActivation(kRelu)}});
      g.addOutput("y", n->getOutput());
    })) << c.rows << "x" << c.taps << "x" << c.channels;
}

/// TFLite's integer LSTM (the LSTM's int8 form), Y and the last states: its
/// hidden units on the lanes where W and R are constants (blocks of L
/// units, the last one overlapping the one before where L does not divide
/// the hidden size; each lane's quads or pairs of taps where the target
/// has a dot product, taps filling no whole group), one unit at a time
/// under 4 units or with weights read at run time (the zero points then
/// subtracted, not folded). Sequences of odd and even length (the cell
/// state's two copies), batch-major and time-major, per-row and per-tensor
/// weight scales, a cell clip, saturated gates.
TEST(Int8Kernels, IntegerLSTM) {
  struct Case {
    int64_t seq, batch, input, hidden, layout;
    int32_t inZp, hiddenZp;
    float spread;
    std::optional<float> clip;
    bool weightsAtRunTime;
  };
  for (const Case &c : {Case{3, 1, 5, 6, 0, 5, -21, 10, std::nullopt, false},
                        Case{4, 2, 7, 20, 1, -128, 7, 0, 0.5f, false},
                        Case{5, 1, 28, 20, 0, -3, 2, 3, std::nullopt, false},
                        Case{2, 3, 9, 3, 0, 0, 0, 0, std::nullopt, false},
                        Case{3, 2, 6, 8, 0, 3, -3, 0, 1.0f, true}}) {
    GraphBuilder build = [&](Graph &g) {
      const int64_t H = c.hidden, rows = 4 * H;
      Value *x = c.layout ? g.addInput("x", q8({c.batch, c.seq, c.input}, 0.05f, c.inZp))
                          : g.addInput("x", q8({c.seq, c.batch, c.input}, 0.05f, c.inZp));
      auto weights = [&](llvm::StringRef name, int64_t taps, uint64_t seed) {
        return c.weightsAtRunTime ? g.addInput(name, q8({1, rows, taps}, 0.002f, 0))
                                  : int8Weights(g, name, {1, rows, taps}, 1, c.spread, seed);
      };
      Value *w = weights("w", c.input, 11), *r = weights("r", H, 12);
      Tensor bias(TensorType(DType::I32, {1, 2 * rows}));
      // The states are [1, batch, H], batch-major ones (layout 1) [batch, 1, H].
      const std::vector<int64_t> state =
          c.layout ? std::vector<int64_t>{c.batch, 1, H} : std::vector<int64_t>{1, c.batch, H};
      TensorType cellType(DType::I16, state);
      cellType.quant.scales = {1.0f / 2048};
      cellType.quant.zeroPoints = {0};
      Tensor cell(cellType);
      std::mt19937_64 rng(13);
      for (int64_t i = 0; i < bias.numElements(); ++i)
        bias.data<int32_t>()[i] = std::uniform_int_distribution<int32_t>(-20000, 20000)(rng);
      for (int64_t i = 0; i < cell.numElements(); ++i)
        cell.data<int16_t>()[i] = int16_t(std::uniform_int_distribution<int>(-30000, 30000)(rng));
      Value *h0 = g.addInput("h0", q8(state, 1.0f / 128, c.hiddenZp));
      AttrMap attrs{{"hidden_size", Attr::ofInt(H)},
                    {"layout", Attr::ofInt(c.layout)},
                    {kQuantAttr.str(), quantAttr(1.0f / 128, c.hiddenZp)}};
      if (c.clip)
        attrs.emplace("kiln.cell_clip", Attr::ofFloat(*c.clip));
      Node *n = addNode(g, OpKind::LSTM, "lstm",
                        {x, w, r, g.addConstant("b", std::move(bias)), nullptr, h0,
                         g.addConstant("c0", std::move(cell))},
                        std::move(attrs));
      g.addOutput("y", n->getOutput(0));
      g.addOutput("y_h", n->getOutput(1));
      g.addOutput("y_c", n->getOutput(2));
    };
    EXPECT_TRUE(compiledEqualsInterpreter(build))
        << c.seq << "x" << c.batch << "x" << c.input << " hidden " << c.hidden;
  }
}

/// Sums that may reach 2^30 (a bias near it) take gemmlowp's rounding
/// with its compares; the others a rounding add (Requantizer). Scales
/// 1000x apart put some channels' outputs inside the range.
TEST(Int8Kernels, FullyConnectedLargeSumsRoundExactly) {
  EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
    Value *x = g.addInput("x", q8({2, 16}, 0.1f, 3));
    Tensor bias(TensorType(DType::I32, {6}));
    for (int64_t i = 0; i < 6; ++i)
      bias.data<int32_t>()[i] = (i % 2 ? -1 : 1) * ((1 << 30) - int32_t(i) * 977);
    Node *n = addNode(g, OpKind::MatMul, "fc",
                      {x, int8Weights(g, "w", {16, 6}, 1, 1000, 5),
                       g.addConstant("b", std::move(bias))},
                      {{kQuantAttr.str(), quantAttr(2e6f, 0)}});
    g.addOutput("y", n->getOutput());
  }));
}

/// Scales whose ratio is 2^-e / 2 give the multiplier 2^30, where the
/// one-multiply requantization (Requantizer) stands the sum's sign for
/// SRDHM's; sums of -1, 0 and 1 are among the 512 rows of one tap. The
/// channels' shifts are mixed (e = 0 beside e >= 1), all to the right, or
/// one to the left (the rounding add).
TEST(Int8Kernels, RequantizeMultiplierOfExactlyHalf) {
  for (float outScale : {1.0f, 2.0f, 64.0f, 0.2f})
    EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
      Value *x = g.addInput("x", q8({512, 1}, 0.5f, 0));
      TensorType wt(DType::I8, {1, 4});
      wt.quant.scales = {0.25f, 1.6f, 0.5f, 0.1f};
      wt.quant.zeroPoints = {0, 0, 0, 0};
      wt.quant.axis = 1;
      Tensor w(wt);
      const int8_t values[] = {1, -1, 3, -127};
      llvm::copy(values, w.data<int8_t>());
      Node *n = addNode(g, OpKind::MatMul, "fc", {x, g.addConstant("w", std::move(w))},
                        {{kQuantAttr.str(), quantAttr(outScale, -3)}});
      g.addOutput("y", n->getOutput());
    })) << outScale;
}

/// Channels whose weights are all 0 output a constant requantized from
/// their bias alone, here up to 2^30 in magnitude as in the VWW model:
/// mid-range, saturated and clamped by the activation, beside a channel
/// that shifts left (scale 5) and one of ordinary weights, in a Conv and in
/// a depthwise Conv.
TEST(Int8Kernels, ChannelsOfZeroWeightsAndLargeBias) {
  for (int64_t group : {1, 4})
    for (const Activation &act : {kNone, kRelu})
      EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
        const int64_t inputs = group == 1 ? 4 : 1;
        Value *x = g.addInput("x", q8({1, 4, 6, 5}, 0.05f, -7));
        TensorType wt(DType::I8, {4, inputs, 3, 3});
        wt.quant.scales = {5.0f, 9.3e-8f, 0.01f, 9.3e-8f};
        wt.quant.zeroPoints = {0, 0, 0, 0};
        wt.quant.axis = 0;
        Tensor w(wt);
        std::mt19937_64 rng(5);
        std::uniform_int_distribution<int> dist(-127, 127);
        const int64_t taps = inputs * 9;
        for (int64_t i = 0; i < 4 * taps; ++i)
          w.data<int8_t>()[i] = i < taps ? int8_t(dist(rng)) : 0;
        Tensor bias(TensorType(DType::I32, {4}));
        const int32_t biases[] = {-3000, 1 << 30, -(1 << 30), -(1 << 30) + 7};
        llvm::copy(biases, bias.data<int32_t>());
        Node *n = addNode(g, OpKind::Conv, "conv",
                          {x, g.addConstant("w", std::move(w)),
                           g.addConstant("b", std::move(bias))},
                          {{"pads", Attr::ofInts({1, 1, 1, 1})},
                           {"group", Attr::ofInt(group)},
                           {kQuantAttr.str(), quantAttr(0.1f, 4)},
                           {kActivationAttr.str(), Attr::ofActivation(act)}});
        g.addOutput("y", n->getOutput());
      })) << "group " << group;
}

/// Convs that share weights but would pack them differently (on x86, a 3x3
/// Conv of whole pixel vectors, its taps channel-minor, and one of two
/// pixels, taps in order) read them as they are.
TEST(Int8Kernels, ConvsSharingWeightsOfDifferentKernels) {
  EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
    Value *x = g.addInput("x", q8({1, 8, 8, 8}, 0.1f, 3));
    Value *t = g.addInput("t", q8({1, 8, 1, 2}, 0.1f, 3));
    Value *w = int8Weights(g, "w", {8, 8, 3, 3}, 0, 4.0f, 11);
    for (auto [name, input] : {std::pair{"big", x}, {"small", t}}) {
      Node *n = addNode(g, OpKind::Conv, name, {input, w},
                        {{kQuantAttr.str(), quantAttr(0.2f, 1)}, {"pads", Attr::ofInts({1, 1, 1, 1})}});
      g.addOutput(name, n->getOutput());
    }
  }));
}

/// Broadcast operands (one element a step), and operands of the output's
/// shape, which take a vector of elements a step on a target with vectors:
/// 3 x 5 x 7 = 105 of them, whole vectors and a rest.
TEST(Int8Kernels, AddSubMulBroadcastAndRescale) {
  struct Shapes {
    Shape a, b;
  };
  for (const Shapes &shapes : {Shapes{{1, 3, 4, 5}, {1, 3, 1, 5}}, Shapes{{1, 3, 5, 7}, {1, 3, 5, 7}}})
    for (OpKind kind : {OpKind::Add, OpKind::Sub, OpKind::Mul})
      for (float outScale : {0.01f, 3.0f})
        EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
          Value *a = g.addInput("a", q8(shapes.a, 0.07f, -128));
          Value *b = g.addInput("b", q8(shapes.b, 0.5f, 127));
          Node *n = addNode(g, kind, "op", {a, b},
                            {{kQuantAttr.str(), quantAttr(outScale, 3)},
                             {kActivationAttr.str(), Attr::ofActivation(kRelu)}});
          g.addOutput("y", n->getOutput());
        })) << getOpDef(kind).name << " " << outScale << (shapes.a == shapes.b ? " same shapes" : " broadcast");
}

TEST(Int8Kernels, AveragePoolInsideTheInputOnly) {
  EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
    Value *x = g.addInput("x", q8({1, 3, 7, 6}, 0.1f, -5));
    Node *n = addNode(g, OpKind::AveragePool, "pool", {x},
                      {{"kernel_shape", Attr::ofInts({3, 3})},
                       {"strides", Attr::ofInts({2, 2})},
                       {"pads", Attr::ofInts({1, 1, 1, 1})}});
    g.addOutput("y", n->getOutput());
  }));
}

TEST(Int8Kernels, MeanSameAndRequantized) {
  for (float outScale : {0.1f, 0.03f})
    EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
      Value *x = g.addInput("x", q8({1, 4, 5, 3}, 0.1f, 7));
      Node *n = addNode(g, OpKind::ReduceMean, "mean", {x},
                        {{"axes", Attr::ofInts({2, 3})},
                         {"keepdims", Attr::ofInt(0)},
                         {kQuantAttr.str(), quantAttr(outScale, 7)}});
      g.addOutput("y", n->getOutput());
    })) << outScale;
}

TEST(Int8Kernels, SoftmaxOverScalesAndBeta) {
  for (float scale : {0.01f, 0.1f, 1.0f})
    for (float beta : {1.0f, 0.5f})
      EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
        Value *x = g.addInput("x", q8({3, 37}, scale, 10));
        AttrMap attrs{{"axis", Attr::ofInt(-1)}};
        if (beta != 1.0f)
          attrs.emplace(kSoftmaxBetaAttr, Attr::ofFloat(beta));
        Node *n = addNode(g, OpKind::Softmax, "softmax", {x}, attrs);
        g.addOutput("y", n->getOutput());
      })) << scale << " " << beta;
}

struct UnaryCase {
  OpKind kind;
  AttrMap attrs;
  float inScale;
  int32_t inZp;
  float outScale;
  int32_t outZp;
};

TEST(Int8Kernels, UnaryOpsTabulated) {
  const float kMax = std::numeric_limits<float>::max();
  const UnaryCase cases[] = {
      {OpKind::Relu, {}, 0.05f, -128, 0.02f, -128},
      {OpKind::Relu, {}, 0.1f, 127, 0.1f, 127},
      {OpKind::Clip, {{"min", Attr::ofFloat(0)}, {"max", Attr::ofFloat(6)}}, 0.05f, 3, 0.03f, -128},
      {OpKind::Clip, {{"min", Attr::ofFloat(-1)}, {"max", Attr::ofFloat(1)}}, 0.01f, 0, 0.008f, 0},
      {OpKind::Clip, {{"min", Attr::ofFloat(-kMax)}, {"max", Attr::ofFloat(kMax)}}, 0.5f, 10, 0.001f, -5},
      {OpKind::LeakyRelu, {{"alpha", Attr::ofFloat(0.2f)}}, 0.05f, 5, 0.04f, -10},
      {OpKind::Sigmoid, {}, 0.1f, -3, 1.0f / 256, -128},
      {OpKind::Sigmoid, {}, 0.003f, 127, 1.0f / 256, -128},
      {OpKind::Tanh, {}, 0.05f, 0, 1.0f / 128, 0},
      {OpKind::Tanh, {}, 0.5f, -128, 1.0f / 128, 0},
      {OpKind::HardSwish, {}, 0.04f, -20, 0.03f, -100},
      {OpKind::Quantize, {}, 0.05f, -128, 0.2f, 127},
      {OpKind::Quantize, {}, 0.2f, 3, 0.0001f, 0},
      {OpKind::Dequantize, {}, 0.07f, -7, 0, 0},
  };
  for (const UnaryCase &c : cases)
    EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
      Value *x = g.addInput("x", q8({2, 300}, c.inScale, c.inZp));
      AttrMap attrs = c.attrs;
      if (c.outScale > 0)
        attrs.emplace(kQuantAttr, quantAttr(c.outScale, c.outZp));
      Node *n = addNode(g, c.kind, "op", {x}, attrs);
      g.addOutput("y", n->getOutput());
    })) << getOpDef(c.kind).name << " in " << c.inScale << "/" << c.inZp;
}

TEST(Int8Kernels, QuantizeFromF32RoundsTiesAwayAndSaturates) {
  const float inf = std::numeric_limits<float>::infinity();
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", TensorType(DType::F32, {16}));
    Node *n = addNode(g, OpKind::Quantize, "q", {x},
                      {{kQuantAttr.str(), quantAttr(0.5f, -3)}});
    g.addOutput("y", n->getOutput());
  };
  JitCheck check;
  check.rtol = 0;
  Tensor x(TensorType(DType::F32, {16}));
  const float values[16] = {0.25f, -0.25f, 0.75f, -0.75f, 1.25f, -1.25f, 63.0f,
                            -64.0f, 1e30f, -1e30f, inf, -inf, std::nanf(""),
                            3.4e38f, 0.0f, -0.0f};
  std::copy(std::begin(values), std::end(values), x.data<float>());
  check.inputs.push_back(std::move(x));
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

TEST(Int8Kernels, Uint8EdgesTabulatedAndQuantizedFromF32) {
  // A uint8 model's edges: u8 -> i8, i8 -> u8, u8 -> u8, u8 -> f32 over
  // full-range bytes (the table's index is the byte unsigned), and f32 -> u8
  // on ties, saturation and NaN.
  TensorType u8In(DType::U8, {2, 300});
  u8In.quant = q8({}, 0.05f, 130).quant;
  AttrMap toU8{{"kiln.to", Attr::ofString("u8")}};
  struct EdgeCase {
    TensorType in;
    OpKind kind;
    std::optional<std::pair<float, int32_t>> out;
    bool u8Out;
  };
  const EdgeCase cases[] = {
      {u8In, OpKind::Quantize, std::make_pair(0.02f, -5), false},
      {q8({2, 300}, 0.05f, -7), OpKind::Quantize, std::make_pair(0.03f, 250), true},
      {u8In, OpKind::Quantize, std::make_pair(0.1f, 0), true},
      {u8In, OpKind::Dequantize, std::nullopt, false},
  };
  for (const EdgeCase &c : cases)
    EXPECT_TRUE(compiledEqualsInterpreter([&](Graph &g) {
      Value *x = g.addInput("x", c.in);
      AttrMap attrs = c.u8Out ? toU8 : AttrMap{};
      if (c.out)
        attrs.emplace(kQuantAttr, quantAttr(c.out->first, c.out->second));
      g.addOutput("y", addNode(g, c.kind, "op", {x}, attrs)->getOutput());
    })) << getOpDef(c.kind).name << " from " << c.in.str();

  GraphBuilder fromF32 = [&](Graph &g) {
    Value *x = g.addInput("x", TensorType(DType::F32, {8}));
    AttrMap attrs = toU8;
    attrs.emplace(kQuantAttr, quantAttr(0.5f, 130));
    g.addOutput("y", addNode(g, OpKind::Quantize, "q", {x}, attrs)->getOutput());
  };
  JitCheck check;
  check.rtol = 0;
  check.inputs.push_back(Tensor::fromValues<float>(
      DType::F32, {8}, {0.25f, -0.25f, 63.0f, -66.0f, 1e30f, -1e30f, std::nanf(""), 0.0f}));
  EXPECT_TRUE(jitMatchesInterpreter(fromF32, check));
}

TEST(Int8Kernels, OneArenaWithOverwrittenInputs) {
  // kilnc --overwrite-inputs: inputs, outputs and intermediates in io.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", q8({1, 3, 7, 6}, 0.05f, -7));
    Node *conv = addNode(g, OpKind::Conv, "conv",
                         {x, int8Weights(g, "w", {4, 3, 3, 3}, 0, 10, 3),
                          int32Bias(g, "b", 4, 4)},
                         {{"pads", Attr::ofInts({1, 1, 1, 1})},
                          {kQuantAttr.str(), quantAttr(0.1f, 2)}});
    Node *act = addNode(g, OpKind::Sigmoid, "sigmoid", {conv->getOutput()},
                        {{kQuantAttr.str(), quantAttr(1.0f / 256, -128)}});
    g.addOutput("y", act->getOutput());
  };
  auto g = buildGraph(build);
  JitCheck check = exact(*g);
  check.lir.overwriteInputs = true;
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

} // namespace
} // namespace kiln
