// selectKernels for int8 layers: the GEMM blocks, dot products, packings
// and depthwise kernels each target's int8 Convs and MatMuls get, as
// --print-lir shows them.

#include "compiler/lir/LIR.h"
#include "compiler/ops/QuantizedTypes.h"
#include "tests/unit/lir/SelectKernelsTestUtil.h"

#include "gtest/gtest.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <tuple>

namespace kiln {
namespace {

using test::kernelOf;
using test::strategies;

/// An int8 tensor type of scale 0.1 and zero point `zp`.
TensorType q8(std::vector<int64_t> shape, int32_t zp = 0) {
  TensorType t(DType::I8, shape);
  t.quant.scales = {0.1f};
  t.quant.zeroPoints = {zp};
  return t;
}

/// The quantization attribute of an int8 result of scale 0.2.
std::pair<std::string, Attr> outQuant(int32_t zp = 0) {
  QuantParams out;
  out.scales = {0.2f};
  out.zeroPoints = {zp};
  return {kQuantAttr.str(), Attr::ofQuant(out)};
}

/// int8 layers: a 3x3 Conv, a depthwise one, a Conv whose weights a second
/// Conv shares, fully connected layers of one row and of two, and a 3x3 Conv
/// of 32 x 32 pixels (a layer of many more steps than the others).
std::unique_ptr<Graph> buildInt8Graph() {
  auto graph = std::make_unique<Graph>("int8");
  Graph &g = *graph;
  auto weights = [&](llvm::StringRef name, std::vector<int64_t> shape) {
    Tensor t(q8(shape));
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.data<int8_t>()[i] = int8_t(i);
    return g.addConstant(name, std::move(t));
  };
  auto node = [&](OpKind kind, llvm::StringRef name, std::vector<Value *> inputs,
                  AttrMap attrs) {
    attrs.insert(outQuant(1));
    auto n = g.addNode(kind, name, inputs, attrs);
    EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    return (*n)->getOutput();
  };
  auto ints = [](std::vector<int64_t> v) { return Attr::ofInts(v); };
  Value *x = g.addInput("x", q8({1, 4, 8, 8}, -3));
  Value *conv = node(OpKind::Conv, "conv", {x, weights("w1", {6, 4, 3, 3})},
                     {{"pads", ints({1, 1, 1, 1})}});
  Value *dw = node(OpKind::Conv, "dw", {conv, weights("w2", {6, 1, 3, 3})},
                   {{"pads", ints({1, 1, 1, 1})}, {"group", Attr::ofInt(6)}});
  Value *wide = g.addInput("wide", q8({1, 9, 5, 5}, -3));
  Value *dw9 = node(OpKind::Conv, "dw9", {wide, weights("w6", {9, 1, 3, 3})},
                    {{"pads", ints({1, 1, 1, 1})}, {"group", Attr::ofInt(9)}});
  Value *shared = weights("w3", {6, 6, 1, 1});
  Value *s0 = node(OpKind::Conv, "shared0", {dw, shared}, {});
  Value *s1 = node(OpKind::Conv, "shared1", {s0, shared}, {});
  Value *row = g.addInput("row", q8({1, 5}, -3));
  Value *rows = g.addInput("rows", q8({2, 5}, -3));
  Value *fcw = weights("w4", {5, 3});
  Value *fc1 = node(OpKind::MatMul, "fc1", {row, fcw}, {});
  Value *fc2 = node(OpKind::MatMul, "fc2", {rows, weights("w5", {5, 3})}, {});
  Value *image = g.addInput("image", q8({1, 16, 32, 32}, -3));
  Value *big = node(OpKind::Conv, "big", {image, weights("w7", {32, 16, 3, 3})},
                    {{"pads", ints({1, 1, 1, 1})}});
  g.addOutput("s1", s1);
  g.addOutput("big", big);
  g.addOutput("fc1", fc1);
  g.addOutput("fc2", fc2);
  g.addOutput("dw9", dw9);
  return graph;
}

TEST(SelectKernels, Int8GemmDepthwiseAndPortable) {
  lir::LIROptions opts;
  std::string text = strategies(*buildInt8Graph(), opts);
  EXPECT_EQ(kernelOf(text, "conv"), "Conv[int8 gemm 2x2 scalar]");
  EXPECT_EQ(kernelOf(text, "dw"), "Conv[int8 depthwise padded]");
  // Weights two Convs share are packed once for both.
  EXPECT_EQ(kernelOf(text, "shared0"), "Conv[int8 gemm 2x2 scalar]");
  EXPECT_EQ(kernelOf(text, "s1"), "Conv[int8 gemm 2x2 scalar]");
  EXPECT_EQ(kernelOf(text, "fc1"), "MatMul[int8 gemm 4x1 scalar]");
  EXPECT_EQ(kernelOf(text, "fc2"), "MatMul[int8 gemm 2x2 scalar]");
  opts.int8Dot = lir::Int8Dot::ArmDsp;
  text = strategies(*buildInt8Graph(), opts);
  // The loop over a row unrolls as far as the instructions it saves pay for
  // the code: 8 quads (the most) where a layer has many steps, 4 for the
  // 3x3 Conv of 8 x 8 pixels, none for a fully connected layer of 3 x 5.
  EXPECT_EQ(kernelOf(text, "big"), "Conv[int8 gemm 2x2 smlad unroll 8]");
  EXPECT_EQ(kernelOf(text, "conv"), "Conv[int8 gemm 2x2 smlad unroll 4]");
  EXPECT_EQ(kernelOf(text, "fc1"), "MatMul[int8 gemm 4x1 smlad unroll 1]");
  // A unit-stride 1x1 Conv reads its pixel pairs as runs of its input.
  EXPECT_EQ(kernelOf(text, "shared0"), "Conv[int8 gemm 2x2 smlad input unroll 2]");
  // A 3x3 depthwise window: two outputs a step.
  EXPECT_EQ(kernelOf(text, "dw"), "Conv[int8 depthwise padded smlad 3x3 1x2]");
  // x86 AVX2: Convs put pixels on the lanes (rows of 8: blocks of 8), a
  // depthwise of at least 8 channels blocks of its channels (a window row's
  // neighbouring taps in pairs, one VPMADDWD each); a narrower
  // depthwise and the MatMuls keep their portable kernels.
  opts.int8Dot = lir::Int8Dot::Pmaddwd;
  text = strategies(*buildInt8Graph(), opts);
  EXPECT_EQ(kernelOf(text, "conv"), "Conv[int8 gemm 8x8 pmaddwd planes]");
  EXPECT_EQ(kernelOf(text, "dw"), "Conv[int8 depthwise padded]");
  EXPECT_EQ(kernelOf(text, "dw9"), "Conv[int8 depthwise channel-block 8 avx2 pairs]");
  EXPECT_EQ(kernelOf(text, "fc1"), "MatMul[int8 gemm 4x1 scalar]");
  EXPECT_EQ(kernelOf(text, "fc2"), "MatMul[int8 gemm 2x2 scalar]");
}

/// The packing of weights `name` of buildInt8Graph's LIR.
lir::Packing int8PackingOf(const lir::LIROptions &opts, llvm::StringRef name) {
  auto g = buildInt8Graph();
  auto f = lir::generateLIR(*g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  if (f)
    for (auto &b : f->buffers)
      if (b->name == name)
        return b->packing;
  ADD_FAILURE() << "no buffer " << name.str();
  return lir::Packing::None;
}

/// The kernel of an int8 1x1 Conv of 4 to 8 channels over h x w pixels.
std::string pointwiseKernel(const lir::LIROptions &opts, int64_t h, int64_t w,
                            std::vector<int64_t> strides = {1, 1}) {
  Graph one("one");
  auto conv = one.addNode(OpKind::Conv, "c",
                          {one.addInput("x", q8({1, 4, h, w})), one.addConstant("w", Tensor(q8({8, 4, 1, 1})))},
                          {outQuant(), {"strides", Attr::ofInts(strides)}});
  EXPECT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
  one.addOutput("y", (*conv)->getOutput());
  return kernelOf(strategies(one, opts), "y");
}

/// The kernel of an int8 3x3 depthwise Conv (pads 1) of `channels` x h x w,
/// `multiplier` outputs per channel.
std::string depthwiseKernel(const lir::LIROptions &opts, int64_t channels, int64_t h, int64_t w,
                            std::vector<int64_t> strides, std::vector<int64_t> dilations = {1, 1},
                            int64_t multiplier = 1) {
  Graph one("one");
  auto conv = one.addNode(
      OpKind::Conv, "c",
      {one.addInput("x", q8({1, channels, h, w})),
       one.addConstant("w", Tensor(q8({channels * multiplier, 1, 3, 3})))},
      {outQuant(), {"strides", Attr::ofInts(strides)}, {"dilations", Attr::ofInts(dilations)},
       {"pads", Attr::ofInts({1, 1, 1, 1})}, {"group", Attr::ofInt(channels)}});
  EXPECT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
  one.addOutput("y", (*conv)->getOutput());
  return kernelOf(strategies(one, opts), "y");
}

/// x86 depthwise Convs whose rows hold a step of outputs (two vectors at
/// column stride 1, one at 2) put a row's outputs on the lanes, a channel
/// at a time, whatever their channels; narrower rows, column dilation and
/// depth multipliers take channel blocks (or the portable kernel).
TEST(SelectKernels, Int8DepthwiseRows) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Pmaddwd;
  EXPECT_EQ(depthwiseKernel(opts, 4, 48, 48, {1, 1}),
            "Conv[int8 depthwise padded rows 8 avx2 pairs]");
  EXPECT_EQ(depthwiseKernel(opts, 16, 24, 24, {2, 2}),
            "Conv[int8 depthwise padded rows 8 avx2 pairs]");
  EXPECT_EQ(depthwiseKernel(opts, 16, 12, 12, {1, 1}),
            "Conv[int8 depthwise channel-block 8 avx2 pairs]");
  EXPECT_EQ(depthwiseKernel(opts, 16, 48, 48, {1, 1}, {1, 2}),
            "Conv[int8 depthwise channel-block 8 avx2]");
  EXPECT_EQ(depthwiseKernel(opts, 8, 48, 48, {1, 1}, {1, 1}, 2),
            "Conv[int8 depthwise padded]");
  opts.int8Dot = lir::Int8Dot::Vnni512;
  EXPECT_EQ(depthwiseKernel(opts, 8, 48, 48, {1, 1}),
            "Conv[int8 depthwise padded rows 16 avx512 pairs]");
  EXPECT_EQ(depthwiseKernel(opts, 16, 48, 48, {2, 2}),
            "Conv[int8 depthwise padded rows 16 avx512 pairs]");
  EXPECT_EQ(depthwiseKernel(opts, 32, 24, 24, {1, 1}),
            "Conv[int8 depthwise channel-block 16 avx512 pairs]");
  opts.int8Dot = lir::Int8Dot::ArmDsp;
  EXPECT_EQ(depthwiseKernel(opts, 8, 48, 48, {1, 1}),
            "Conv[int8 depthwise padded smlad 3x3 1x2]");
}

/// AArch64 SDOT: Convs put pixels on the lanes, 4 rows x 16 pixels, or
/// 8 rows x 4 under 16 pixels; the weights are plain rows of taps, and the
/// columns are raw int8 (half the int16 temp). Depthwise and fully connected
/// layers keep their portable kernels.
TEST(SelectKernels, Int8GemmSdot) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Sdot;
  std::string text = strategies(*buildInt8Graph(), opts);
  EXPECT_EQ(kernelOf(text, "conv"), "Conv[int8 gemm 4x16 sdot]");
  EXPECT_EQ(kernelOf(text, "big"), "Conv[int8 gemm 4x16 sdot]");
  EXPECT_EQ(kernelOf(text, "dw"), "Conv[int8 depthwise padded]");
  EXPECT_EQ(kernelOf(text, "fc1"), "MatMul[int8 gemm 4x1 scalar]");
  EXPECT_EQ(int8PackingOf(opts, "w1"), lir::Packing::Int8Rows);
  // Under 16 pixels 8 x 4; under 4 the portable kernel.
  EXPECT_EQ(pointwiseKernel(opts, 3, 3), "Conv[int8 gemm 8x4 sdot input]");
  EXPECT_EQ(pointwiseKernel(opts, 1, 3), "Conv[int8 gemm 2x2 scalar]");
}

/// AArch64 NEON without the dot product (SMLAL): Convs put pixels on the 4
/// lanes, 4 rows x 8 pixels, or 8 rows x 4 where blocks of 8 would compute a
/// quarter more pixels (9 pixels: 16 against 12) or split rows of 4; int16
/// pairs of weights as for AVX2. Depthwise Convs of 8 channels or more
/// take blocks of 8 channels, a tap at a time.
TEST(SelectKernels, Int8GemmSmlal) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Smlal;
  std::string text = strategies(*buildInt8Graph(), opts);
  EXPECT_EQ(kernelOf(text, "conv"), "Conv[int8 gemm 4x8 smlal planes]");
  EXPECT_EQ(kernelOf(text, "big"), "Conv[int8 gemm 4x8 smlal planes]");
  EXPECT_EQ(kernelOf(text, "shared0"), "Conv[int8 gemm 4x8 smlal input]");
  EXPECT_EQ(kernelOf(text, "dw"), "Conv[int8 depthwise padded]");
  EXPECT_EQ(kernelOf(text, "dw9"), "Conv[int8 depthwise channel-block 8 smlal]");
  EXPECT_EQ(int8PackingOf(opts, "w1"), lir::Packing::Int8RowsWidened);
  const std::pair<std::pair<int64_t, int64_t>, const char *> bySize[] = {
      {{6, 6}, "Conv[int8 gemm 4x8 smlal input]"},  // 36 pixels: 40 computed
      {{3, 3}, "Conv[int8 gemm 8x4 smlal input]"},  // 9 pixels: 12, not 16
      {{3, 4}, "Conv[int8 gemm 8x4 smlal input]"},  // rows of one vector
      {{1, 3}, "Conv[int8 gemm 2x2 scalar]"}};      // under a vector
  for (auto [size, kernel] : bySize)
    EXPECT_EQ(pointwiseKernel(opts, size.first, size.second), kernel)
        << size.first << "x" << size.second;
}

/// AArch64 SMMLA: Convs of at least 8 pixels in blocks of 8 rows x 8
/// pixels, weights in pairs of rows by octets; fewer pixels keep SDOT's
/// blocks, the depthwise and fully connected layers their portable kernels.
TEST(SelectKernels, Int8GemmSmmla) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Smmla;
  std::string text = strategies(*buildInt8Graph(), opts);
  const std::pair<const char *, const char *> kernels[] = {
      {"conv", "Conv[int8 gemm 8x8 smmla]"},     {"big", "Conv[int8 gemm 8x8 smmla planes]"},
      {"shared0", "Conv[int8 gemm 8x8 smmla input]"},
      {"dw", "Conv[int8 depthwise padded]"},
      {"fc1", "MatMul[int8 gemm 4x1 scalar]"},   {"fc2", "MatMul[int8 gemm 2x2 scalar]"}};
  for (auto [node, kernel] : kernels)
    EXPECT_EQ(kernelOf(text, node), kernel) << node;
  EXPECT_EQ(int8PackingOf(opts, "w1"), lir::Packing::Int8RowsOctetPairs);
  EXPECT_EQ(int8PackingOf(opts, "w4"), lir::Packing::Int8RowsTransposed);
  // 16 channels, rows of 32 pixels: runs of the planes, by kernel position.
  EXPECT_EQ(int8PackingOf(opts, "w7"), lir::Packing::Int8RowsOctetChannelPairs);
  // From 8 pixels (9, exactly 8) SMMLA; under 8 SDOT's 8 x 4; under 4 the
  // portable kernel.
  const std::pair<int64_t, const char *> byWidth[] = {{9, "Conv[int8 gemm 8x8 smmla input]"},
                                                      {8, "Conv[int8 gemm 8x8 smmla input]"},
                                                      {7, "Conv[int8 gemm 8x4 sdot input]"},
                                                      {3, "Conv[int8 gemm 2x2 scalar]"}};
  for (auto [width, kernel] : byWidth)
    EXPECT_EQ(pointwiseKernel(opts, 1, width), kernel) << width;
}

struct ConvInput {
  const char *name;
  int64_t height, width;
};

/// int8 1x1 Convs of `channels` channels, one per input, sharing weights
/// "w" of 8 rows.
std::unique_ptr<Graph> convsSharingWeights(int64_t channels, std::vector<ConvInput> inputs) {
  auto g = std::make_unique<Graph>("shared");
  Value *w = g->addConstant("w", Tensor(q8({8, channels, 1, 1})));
  for (const ConvInput &in : inputs) {
    Value *x = g->addInput(std::string(in.name) + "_x", q8({1, channels, in.height, in.width}));
    auto conv = g->addNode(OpKind::Conv, in.name, {x, w}, {outQuant()});
    EXPECT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
    g->addOutput(in.name, (*conv)->getOutput());
  }
  return g;
}

/// Weights that a Conv too small for SMMLA shares with one that suits it
/// are packed once, for SDOT: both take SDOT's kernels.
TEST(SelectKernels, Int8SharedWeightsKeepSdot) {
  auto shared = convsSharingWeights(4, {{"wide", 1, 9}, {"narrow", 1, 5}});
  Graph &g = *shared;
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Smmla;
  std::string text = strategies(g, opts);
  EXPECT_EQ(kernelOf(text, "wide"), "Conv[int8 gemm 8x4 sdot input]");
  EXPECT_EQ(kernelOf(text, "narrow"), "Conv[int8 gemm 8x4 sdot input]");
}

/// Weights `name` of buildInt8Graph's LIR under `opts`: their packing and
/// bytes in the weights image.
struct PackedWeights {
  lir::Packing packing = lir::Packing::None;
  std::vector<uint8_t> bytes;
};
PackedWeights packedWeights(const lir::LIROptions &opts, llvm::StringRef name) {
  auto g = buildInt8Graph();
  auto f = lir::generateLIR(*g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  if (!f)
    return {};
  std::vector<uint8_t> image = lir::buildWeightsImage(*f);
  for (auto &b : f->buffers)
    if (b->name == name)
      return {b->packing, std::vector<uint8_t>(image.begin() + b->offset,
                                               image.begin() + b->offset + b->size)};
  ADD_FAILURE() << "no buffer " << name.str();
  return {};
}

/// Packing::Int8RowsOctetPairs: pairs of rows, octet by octet, each row's
/// taps zero-padded to a multiple of 8; an odd count's last row twice.
TEST(SelectKernels, Int8RowsOctetPairsPacking) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Smmla;
  PackedWeights w1 = packedWeights(opts, "w1");
  ASSERT_EQ(w1.packing, lir::Packing::Int8RowsOctetPairs);
  // [6][4][3][3] weights w = i (as int8): 6 rows of 36 taps padded to 40.
  ASSERT_EQ(w1.bytes.size(), 6u * 40);
  const uint8_t *w = w1.bytes.data();
  // Pair 0, octet 0: row 0's taps 0-7, row 1's (36-43).
  EXPECT_EQ(std::vector<int>(w, w + 16),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 36, 37, 38, 39, 40, 41, 42, 43}));
  // Pair 0, octet 4: taps 32-35 and four zeros of each row.
  EXPECT_EQ(std::vector<int>(w + 64, w + 80),
            (std::vector<int>{32, 33, 34, 35, 0, 0, 0, 0, 68, 69, 70, 71, 0, 0, 0, 0}));
  // Pair 2 (rows 4 and 5), octet 1.
  EXPECT_EQ(std::vector<int>(w + 160 + 16, w + 160 + 24),
            (std::vector<int>{152, 153, 154, 155, 156, 157, 158, 159}));
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t t = 0; t < 36; ++t)
      EXPECT_EQ(int8_t(w[lir::int8OctetPairsByte(r, t, 40)]), int8_t(r * 36 + t));
  // Odd rows: the last pair is row 4 twice.
  EXPECT_EQ(lir::int8RowsShape({5, 4, 1, 1}, lir::Packing::Int8RowsOctetPairs).bytes(), 6u * 8);
  // w7 [32][16][3][3] by (kernel position, channel): tap (c, k) at k * 16 + c.
  PackedWeights w7 = packedWeights(opts, "w7");
  ASSERT_EQ(w7.packing, lir::Packing::Int8RowsOctetChannelPairs);
  ASSERT_EQ(w7.bytes.size(), 32u * 144);
  // Pair 0, octet 0: channels 0-7 at kernel position 0 of rows 0 and 1.
  EXPECT_EQ(std::vector<int>(w7.bytes.begin(), w7.bytes.begin() + 16),
            (std::vector<int>{0, 9, 18, 27, 36, 45, 54, 63, 144, 153, 162, 171, 180, 189, 198, 207}));
  for (int64_t r = 0; r < 32; r += 7)
    for (int64_t c = 0; c < 16; ++c)
      for (int64_t k = 0; k < 9; ++k)
        EXPECT_EQ(int8_t(w7.bytes[lir::int8OctetPairsByte(r, k * 16 + c, 144)]),
                  int8_t((r * 16 + c) * 9 + k));
}

/// x86 VNNI: Convs whose blocks' quads are runs, of the input (unit-stride
/// 1x1 without padding) or of its padded planes, as VPDPBUSD dot products
/// in AVX2's blocks, weights as rows of (kernel position, channel quad);
/// a Conv whose blocks gather pixel by pixel keeps VPMADDWD, the depthwise
/// ones AVX2's kernel, the fully connected layers the portable one.
TEST(SelectKernels, Int8GemmVnni) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Vnni;
  std::string text = strategies(*buildInt8Graph(), opts);
  EXPECT_EQ(kernelOf(text, "shared0"), "Conv[int8 gemm 8x8 vnni input]");
  EXPECT_EQ(kernelOf(text, "s1"), "Conv[int8 gemm 8x8 vnni input]");
  EXPECT_EQ(kernelOf(text, "conv"), "Conv[int8 gemm 8x8 vnni planes]");
  EXPECT_EQ(kernelOf(text, "big"), "Conv[int8 gemm 4x16 vnni planes]");
  EXPECT_EQ(kernelOf(text, "dw9"), "Conv[int8 depthwise channel-block 8 avx2 pairs]");
  EXPECT_EQ(kernelOf(text, "fc1"), "MatMul[int8 gemm 4x1 scalar]");
  EXPECT_EQ(int8PackingOf(opts, "w3"), lir::Packing::Int8RowsQuadChannels);
  EXPECT_EQ(int8PackingOf(opts, "w1"), lir::Packing::Int8RowsQuadChannels);
  EXPECT_EQ(pointwiseKernel(opts, 3, 3), "Conv[int8 gemm 8x8 vnni input]");
  // A strided 1x1 Conv's pixels are no run of the input.
  EXPECT_EQ(pointwiseKernel(opts, 8, 8, {2, 2}), "Conv[int8 gemm 4x16 pmaddwd]");
}

/// x86 AVX-512 VNNI on zmm: Convs whose quads are runs in blocks of 16
/// pixels take zmm VPDPBUSD, 16 vectors of sums: 8 rows x 32 pixels, or
/// 16 x 16 where rows of 16 would split blocks of 32; blocks of whole rows
/// read a run of each row. The others take VNNI's or AVX2's blocks of 8
/// (8 vectors of sums), and the depthwise Convs of 16 channels or more
/// blocks of 16. All read the weights as rows of (kernel position, channel
/// quad).
TEST(SelectKernels, Int8GemmVnni512) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Vnni512;
  std::string text = strategies(*buildInt8Graph(), opts);
  // "conv": 8 rows of 8 pixels, two blocks of 4 whole rows; "shared0": a
  // unit-stride 1x1 Conv's runs are the input's, across its rows.
  const std::pair<const char *, const char *> kernels[] = {
      {"big", "Conv[int8 gemm 8x32 vnni512 planes]"},
      {"conv", "Conv[int8 gemm 8x32 vnni512 planes]"},
      {"shared0", "Conv[int8 gemm 8x32 vnni512 input]"},
      {"dw9", "Conv[int8 depthwise channel-block 8 avx2 pairs]"},
      {"fc1", "MatMul[int8 gemm 4x1 scalar]"}};
  for (auto [node, kernel] : kernels)
    EXPECT_EQ(kernelOf(text, node), kernel) << node;
  for (const char *w : {"w7", "w3"})
    EXPECT_EQ(int8PackingOf(opts, w), lir::Packing::Int8RowsQuadChannels) << w;
  const std::pair<std::pair<int64_t, int64_t>, const char *> bySize[] = {
      {{4, 16}, "Conv[int8 gemm 16x16 vnni512 input]"},   // rows of one zmm
      {{3, 11}, "Conv[int8 gemm 16x16 vnni512 input]"},   // 33 pixels: 48 computed, not 64
      {{1, 17}, "Conv[int8 gemm 16x16 vnni512 input]"},   // 17 pixels, 2 blocks overlapping
      {{3, 5}, "Conv[int8 gemm 8x8 vnni input]"},         // 15 pixels: under a zmm
      {{1, 7}, "Conv[int8 gemm 2x2 scalar]"}};            // under a ymm
  for (auto [size, kernel] : bySize)
    EXPECT_EQ(pointwiseKernel(opts, size.first, size.second), kernel)
        << size.first << "x" << size.second;
  // A strided 1x1 Conv's pixels are no run of the input, but rows of 32,
  // or 4 rows of 4, are runs of its planes; 5 rows of 8 fill no whole
  // blocks of rows, and take VNNI's blocks of a row.
  EXPECT_EQ(pointwiseKernel(opts, 4, 64, {2, 2}), "Conv[int8 gemm 8x32 vnni512 planes]");
  EXPECT_EQ(pointwiseKernel(opts, 8, 8, {2, 2}), "Conv[int8 gemm 16x16 vnni512 planes]");
  EXPECT_EQ(pointwiseKernel(opts, 10, 16, {2, 2}), "Conv[int8 gemm 8x8 vnni planes]");
  // A depthwise Conv of 16 channels: a block of 16.
  Graph dw("dw");
  auto conv = dw.addNode(
      OpKind::Conv, "c",
      {dw.addInput("x", q8({1, 16, 5, 5})), dw.addConstant("w", Tensor(q8({16, 1, 3, 3})))},
      {outQuant(), {"group", Attr::ofInt(16)}, {"pads", Attr::ofInts({1, 1, 1, 1})}});
  ASSERT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
  dw.addOutput("y", (*conv)->getOutput());
  EXPECT_EQ(kernelOf(strategies(dw, opts), "y"), "Conv[int8 depthwise channel-block 16 avx512 pairs]");
}

/// An int8 fully connected layer "y" of `channels` outputs from 5 taps,
/// over `rows` input rows; weights "w" [5][channels] hold w[k][n] = 20 k + n.
std::unique_ptr<Graph> fullyConnectedGraph(int64_t rows, int64_t channels) {
  auto g = std::make_unique<Graph>("fc");
  Tensor w(q8({5, channels}));
  for (int64_t i = 0; i < w.numElements(); ++i)
    w.data<int8_t>()[i] = int8_t(i / channels * 20 + i % channels);
  auto n = g->addNode(OpKind::MatMul, "fc",
                      {g->addInput("x", q8({rows, 5})), g->addConstant("w", std::move(w))},
                      {outQuant()});
  EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
  if (n)
    g->addOutput("y", (*n)->getOutput());
  return g;
}

/// Fully connected layers with a vector of output channels or more put
/// them on the lanes (VPMADDWD, SDOT, VNNI, SMLAL): vectors of channels x up
/// to 4 input rows, at most 16 vectors of sums (8 with 16 vector registers,
/// or SMLAL's sums of pair products in two registers each), split evenly;
/// fewer channels keep the portable kernel.
TEST(SelectKernels, Int8FullyConnectedChannelLanes) {
  const std::tuple<lir::Int8Dot, unsigned, int64_t, int64_t, const char *> cases[] = {
      {lir::Int8Dot::Vnni512, 32, 1, 40, "MatMul[int8 gemm 3x1 vnni512 channel-lanes]"},
      {lir::Int8Dot::Vnni512, 32, 1, 640, "MatMul[int8 gemm 14x1 vnni512 channel-lanes]"},
      {lir::Int8Dot::Vnni512, 32, 6, 40, "MatMul[int8 gemm 3x3 vnni512 channel-lanes]"},
      {lir::Int8Dot::Vnni512, 32, 1, 15, "MatMul[int8 gemm 4x1 scalar]"},
      {lir::Int8Dot::Vnni, 16, 1, 40, "MatMul[int8 gemm 5x1 vnni channel-lanes]"},
      {lir::Int8Dot::Vnni, 16, 9, 16, "MatMul[int8 gemm 2x2 vnni channel-lanes]"},
      {lir::Int8Dot::Sdot, 32, 1, 40, "MatMul[int8 gemm 10x1 sdot channel-lanes]"},
      {lir::Int8Dot::Smmla, 32, 2, 4, "MatMul[int8 gemm 1x2 sdot channel-lanes]"},
      {lir::Int8Dot::Pmaddwd, 16, 1, 40, "MatMul[int8 gemm 5x1 pmaddwd channel-lanes]"},
      {lir::Int8Dot::Smlal, 32, 1, 40, "MatMul[int8 gemm 5x1 smlal channel-lanes]"},
      {lir::Int8Dot::ArmDsp, 16, 1, 40, "MatMul[int8 gemm 4x1 smlad unroll 1]"}};
  for (auto [dot, registers, rows, channels, kernel] : cases) {
    lir::LIROptions opts;
    opts.int8Dot = dot;
    opts.vectorRegisters = registers;
    EXPECT_EQ(kernelOf(strategies(*fullyConnectedGraph(rows, channels), opts), "y"), kernel)
        << lir::int8DotName(dot) << " " << rows << "x" << channels;
  }
}

/// Packing::Int8ChannelBlockQuads (Pairs): a MatMul's [K][N] weights as
/// blocks of 16 channels, [N / 16][K / G][16][G] for quads of int8 (G = 4)
/// or pairs of int16 (G = 2), padded with zeros.
TEST(SelectKernels, Int8ChannelBlocksPacking) {
  auto g = fullyConnectedGraph(1, 20);
  for (auto [dot, group] : {std::pair{lir::Int8Dot::Vnni512, 4}, {lir::Int8Dot::Pmaddwd, 2}}) {
    lir::LIROptions opts;
    opts.int8Dot = dot;
    auto f = lir::generateLIR(*g, opts);
    ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    std::vector<uint8_t> image = lir::buildWeightsImage(*f);
    const lir::Buffer *w = nullptr;
    for (auto &b : f->buffers)
      if (b->name == "w")
        w = b.get();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->packing, group == 4 ? lir::Packing::Int8ChannelBlockQuads
                                     : lir::Packing::Int8ChannelBlockPairs);
    // 20 channels in 2 blocks of 16; 5 taps in 2 quads or 3 pairs.
    const int64_t groups = group == 4 ? 2 : 3, bytesPerTap = group == 4 ? 1 : 2;
    ASSERT_EQ(w->size, uint64_t(2 * 16 * groups * group * bytesPerTap));
    const uint8_t *p = image.data() + w->offset;
    for (int64_t n = 0; n < 32; ++n)
      for (int64_t k = 0; k < groups * group; ++k) {
        const uint8_t *at =
            p + bytesPerTap * (((n / 16 * groups + k / group) * 16 + n % 16) * group + k % group);
        const int v = bytesPerTap == 1 ? int8_t(at[0]) : int16_t(uint16_t(at[0] | at[1] << 8));
        EXPECT_EQ(v, n < 20 && k < 5 ? int8_t(20 * k + n) : 0) << n << " " << k << " " << group;
      }
  }
}

/// Packing::Int8RowsWidened: int16 rows in (kernel position, channel) order,
/// the channels padded to even.
TEST(SelectKernels, Int8RowsWidenedPacking) {
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Pmaddwd;
  PackedWeights w1 = packedWeights(opts, "w1");
  ASSERT_EQ(w1.packing, lir::Packing::Int8RowsWidened);
  // [6][4][3][3] weights w = i (as int8): 6 rows of 9 positions x 4 channels.
  ASSERT_EQ(w1.bytes.size(), 6u * 9 * 4 * 2);
  auto at = [&](int64_t r, int64_t k, int64_t c) {
    const uint8_t *p = w1.bytes.data() + 2 * ((r * 9 + k) * 4 + c);
    return int16_t(uint16_t(p[0]) | uint16_t(p[1]) << 8);
  };
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t k = 0; k < 9; ++k)
        EXPECT_EQ(at(r, k, c), int8_t((r * 4 + c) * 9 + k));
}

/// A Conv of one input channel reads words of its plane (plane-words),
/// its weights rows of (kernel row, kernel column) with each kernel row's
/// columns padded to a quad for VPDPBUSD and SDOT (Int8RowsRowQuads) or to
/// a pair of int16 for VPMADDWD and SMLAL (Int8RowsWidenedRowPairs); with
/// a column dilation its taps are gathered, VPMADDWD's position pairs.
TEST(SelectKernels, Int8OneChannelPlaneWords) {
  auto oneChannel = [](std::vector<int64_t> dilations) {
    auto g = std::make_unique<Graph>("one");
    Tensor w(q8({3, 1, 2, 5}));
    for (int64_t i = 0; i < w.numElements(); ++i)
      w.data<int8_t>()[i] = int8_t(i);
    Value *x = g->addInput("x", q8({1, 1, 12, 20}));
    auto conv = g->addNode(OpKind::Conv, "c", {x, g->addConstant("w", std::move(w))},
                           {outQuant(), {"dilations", Attr::ofInts(dilations)}});
    EXPECT_TRUE(static_cast<bool>(conv)) << llvm::toString(conv.takeError());
    g->addOutput("y", (*conv)->getOutput());
    return g;
  };
  // Row 1 of 3 rows of 2 kernel rows of 5 taps, each padded to 8 or 6.
  const std::vector<int> quads{10, 11, 12, 13, 14, 0, 0, 0, 15, 16, 17, 18, 19, 0, 0, 0};
  const std::vector<int> pairs{10, 11, 12, 13, 14, 0, 15, 16, 17, 18, 19, 0};
  const struct {
    lir::Int8Dot dot;
    const char *kernel;
    lir::Packing packing;
    const std::vector<int> &row1;
  } cases[] = {
      {lir::Int8Dot::Vnni512, "Conv[int8 gemm 16x16 vnni512 plane-words]",
       lir::Packing::Int8RowsRowQuads, quads},
      {lir::Int8Dot::Vnni, "Conv[int8 gemm 4x16 vnni plane-words]", lir::Packing::Int8RowsRowQuads,
       quads},
      {lir::Int8Dot::Sdot, "Conv[int8 gemm 4x16 sdot plane-words]", lir::Packing::Int8RowsRowQuads,
       quads},
      {lir::Int8Dot::Pmaddwd, "Conv[int8 gemm 4x16 pmaddwd plane-words]",
       lir::Packing::Int8RowsWidenedRowPairs, pairs},
      {lir::Int8Dot::Smlal, "Conv[int8 gemm 4x8 smlal plane-words]",
       lir::Packing::Int8RowsWidenedRowPairs, pairs}};
  for (const auto &c : cases) {
    lir::LIROptions opts;
    opts.int8Dot = c.dot;
    auto g = oneChannel({1, 1});
    EXPECT_EQ(kernelOf(strategies(*g, opts), "y"), c.kernel);
    auto f = lir::generateLIR(*g, opts);
    ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    std::vector<uint8_t> image = lir::buildWeightsImage(*f);
    for (auto &b : f->buffers) {
      if (b->name != "w")
        continue;
      EXPECT_EQ(b->packing, c.packing) << c.kernel;
      const size_t tapBytes = c.packing == lir::Packing::Int8RowsRowQuads ? 1 : 2;
      const size_t rowTaps = c.row1.size();
      EXPECT_EQ(b->size, 3 * rowTaps * tapBytes) << c.kernel;
      std::vector<int> row1;
      for (size_t t = 0; t < rowTaps; ++t) {
        const uint8_t *p = image.data() + b->offset + (rowTaps + t) * tapBytes;
        row1.push_back(tapBytes == 1 ? int(int8_t(p[0])) : int(int16_t(p[0] | p[1] << 8)));
      }
      EXPECT_EQ(row1, c.row1) << c.kernel;
    }
  }
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::Vnni512;
  EXPECT_EQ(kernelOf(strategies(*oneChannel({1, 2}), opts), "y"), "Conv[int8 gemm 4x16 pmaddwd]");
}

/// Packing::Int8Rows: rows of taps padded to quads; a MatMul's [K][N]
/// transposed to N rows; for the Arm DSP each quad stored t0 t2 t1 t3.
TEST(SelectKernels, Int8RowsPacking) {
  auto g = buildInt8Graph();
  lir::LIROptions opts;
  opts.int8Dot = lir::Int8Dot::ArmDsp;
  auto f = lir::generateLIR(*g, opts);
  ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  std::vector<uint8_t> image = lir::buildWeightsImage(*f);
  auto bufferOf = [&](llvm::StringRef name) -> const lir::Buffer & {
    for (auto &b : f->buffers)
      if (b->name == name)
        return *b;
    ADD_FAILURE() << name.str();
    return *f->buffers.front();
  };
  // w1: 6 rows of 36 taps (a multiple of 4), in pairs of rows word by word:
  // row 0's first quad, row 1's (36, 38, 37, 39), row 0's second; rows 2
  // and 3 after the first pair's 72 taps.
  const lir::Buffer &w1 = bufferOf("w1");
  EXPECT_EQ(w1.packing, lir::Packing::Int8RowsPaired);
  EXPECT_EQ(w1.size, 6u * 36);
  const uint8_t *pair0 = image.data() + w1.offset;
  EXPECT_EQ(std::vector<int>(pair0, pair0 + 12),
            (std::vector<int>{0, 2, 1, 3, 36, 38, 37, 39, 4, 6, 5, 7}));
  EXPECT_EQ(std::vector<int>(pair0 + 72, pair0 + 80),
            (std::vector<int>{72, 74, 73, 75, 108, 110, 109, 111}));
  // w4 [5][3]: 3 rows of 5 taps padded to 8; row 2 is w4[k][2] = 3k + 2.
  const lir::Buffer &w4 = bufferOf("w4");
  EXPECT_EQ(w4.packing, lir::Packing::Int8RowsTransposedPaired);
  EXPECT_EQ(w4.size, 3u * 8);
  const uint8_t *row2 = image.data() + w4.offset + 16;
  EXPECT_EQ(std::vector<int>(row2, row2 + 8), (std::vector<int>{2, 8, 5, 11, 14, 0, 0, 0}));
  EXPECT_EQ(bufferOf("w3").packing, lir::Packing::Int8RowsPaired);
  EXPECT_EQ(bufferOf("w2").packing, lir::Packing::None);
  // Without the DSP, taps in order.
  auto scalar = lir::generateLIR(*g, {});
  ASSERT_TRUE(static_cast<bool>(scalar)) << llvm::toString(scalar.takeError());
  std::vector<uint8_t> plain = lir::buildWeightsImage(*scalar);
  for (auto &b : scalar->buffers)
    if (b->name == "w4") {
      EXPECT_EQ(b->packing, lir::Packing::Int8RowsTransposed);
      const uint8_t *row = plain.data() + b->offset + 16;
      EXPECT_EQ(std::vector<int>(row, row + 8), (std::vector<int>{2, 5, 8, 11, 14, 0, 0, 0}));
    }
}

/// Convs that share int8 weights read them as they are where their kernels
/// would pack them differently: a VNNI or VPMADDWD block and a Conv of two
/// pixels (too few for any block).
TEST(SelectKernels, Int8SharedWeightsOfDifferentPackings) {
  auto shared = convsSharingWeights(8, {{"big", 8, 8}, {"small", 1, 2}});
  Graph &g = *shared;
  for (lir::Int8Dot dot : {lir::Int8Dot::Vnni512, lir::Int8Dot::Vnni, lir::Int8Dot::Pmaddwd}) {
    lir::LIROptions opts;
    opts.int8Dot = dot;
    std::string text = strategies(g, opts);
    EXPECT_EQ(kernelOf(text, "big"), "Conv[int8 gemm 2x2 scalar]") << lir::int8DotName(dot);
    EXPECT_EQ(kernelOf(text, "small"), "Conv[int8 gemm 2x2 scalar]") << lir::int8DotName(dot);
    auto f = lir::generateLIR(g, opts);
    ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    for (auto &b : f->buffers) {
      if (b->name == "w") {
        EXPECT_EQ(b->packing, lir::Packing::None) << lir::int8DotName(dot);
      }
    }
  }
}

/// int8 Add, Sub and Mul take a vector of elements a step where the
/// target has vectors and no operand broadcasts.
TEST(SelectKernels, Int8ElementwiseLanes) {
  Graph g("elementwise");
  Value *a = g.addInput("a", q8({1, 4, 6}, 2));
  Value *b = g.addInput("b", q8({1, 4, 6}, 2));
  Value *row = g.addInput("row", q8({1, 1, 6}, 2));
  for (auto [kind, name, rhs] : {std::tuple{OpKind::Add, "add", b}, {OpKind::Sub, "sub", b},
                                 {OpKind::Mul, "mul", b}, {OpKind::Add, "broadcast", row}}) {
    auto n = g.addNode(kind, name, {a, rhs}, {outQuant(1)});
    ASSERT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    g.addOutput(name, (*n)->getOutput());
  }
  lir::LIROptions opts;
  opts.vectorLanes = 8;
  std::string text = strategies(g, opts);
  EXPECT_EQ(kernelOf(text, "add"), "Add[int8 x8]");
  EXPECT_EQ(kernelOf(text, "sub"), "Sub[int8 x8]");
  EXPECT_EQ(kernelOf(text, "mul"), "Mul[int8 x8]");
  EXPECT_EQ(kernelOf(text, "broadcast"), "Add[int8]");
  opts.vectorLanes = 1;
  EXPECT_EQ(kernelOf(strategies(g, opts), "add"), "Add[int8]");
}

/// An int8 LSTM of `hidden` units over 2 steps of 5 inputs, whose W is
/// `shared` when given (a second LSTM's), filled with w[i] = i; its Y is
/// graph output `name`.
Value *addInt8LSTM(Graph &g, llvm::StringRef name, int64_t hidden, Value *shared = nullptr) {
  auto weights = [&](llvm::StringRef suffix, std::vector<int64_t> shape) {
    Tensor t(q8(shape));
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.data<int8_t>()[i] = int8_t(i);
    return g.addConstant((name + suffix).str(), std::move(t));
  };
  TensorType cell(DType::I16, {1, 1, hidden});
  cell.quant.scales = {1.0f / 2048};
  cell.quant.zeroPoints = {0};
  Value *w = shared ? shared : weights(".w", {1, 4 * hidden, 5});
  auto n = g.addNode(OpKind::LSTM, name,
                     {g.addInput((name + ".x").str(), q8({2, 1, 5}, -3)), w,
                      weights(".r", {1, 4 * hidden, hidden}), nullptr, nullptr,
                      g.addInput((name + ".h").str(), q8({1, 1, hidden}, 4)),
                      g.addInput((name + ".c").str(), cell)},
                     {{"hidden_size", Attr::ofInt(hidden)}, outQuant(4)});
  EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
  g.addOutput(name, (*n)->getOutput(0));
  return w;
}

/// An int8 LSTM reads W and R transposed where only it reads them, with
/// blocks of hidden units on the most lanes that fit in the hidden size
/// (the last block overlapping), each lane adding quads of products by
/// VPDPBUSD or SDOT, pairs by VPMADDWD on up to 8 lanes; one unit at a time
/// on a scalar core or under 4 units (quads by SMLAD on the Arm DSP); as
/// they are where another LSTM shares its W.
TEST(SelectKernels, Int8LSTMLanes) {
  Graph g("lstm");
  addInt8LSTM(g, "wide", 20);
  addInt8LSTM(g, "narrow", 3);
  Value *w = addInt8LSTM(g, "first", 8);
  addInt8LSTM(g, "second", 8, w);
  using lir::Int8Dot;
  const char *unit = "LSTM[int8 packed]";
  for (auto [lanes, dot, wide, narrow] :
       {std::tuple{16, Int8Dot::Vnni512, "LSTM[int8 x16 packed vnni512]", unit},
        {16, Int8Dot::Pmaddwd, "LSTM[int8 x16 packed]", unit},
        {8, Int8Dot::Pmaddwd, "LSTM[int8 x8 packed pmaddwd]", unit},
        {8, Int8Dot::Vnni, "LSTM[int8 x8 packed vnni]", unit},
        {4, Int8Dot::Smmla, "LSTM[int8 x4 packed sdot]", unit},
        {4, Int8Dot::Smlal, "LSTM[int8 x4 packed]", unit},
        {1, Int8Dot::Scalar, unit, unit},
        {1, Int8Dot::ArmDsp, "LSTM[int8 packed smlad]", "LSTM[int8 packed smlad]"}}) {
    lir::LIROptions opts;
    opts.vectorLanes = lanes;
    opts.int8Dot = dot;
    std::string text = strategies(g, opts);
    EXPECT_EQ(kernelOf(text, "wide"), wide);
    EXPECT_EQ(kernelOf(text, "narrow"), narrow);
    EXPECT_EQ(kernelOf(text, "first"), "LSTM[int8]");
    EXPECT_EQ(kernelOf(text, "second"), "LSTM[int8]");
  }
  // wide.w [1][80][5]: as 5 rows of 80, tap k's gate rows side by side;
  // for VPDPBUSD as [2][80][4], each row's quad of taps, the last padded.
  auto bytesOf = [&](const lir::LIROptions &opts, lir::Packing packing, uint64_t size,
                     uint64_t at) {
    auto f = lir::generateLIR(g, opts);
    EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    std::vector<uint8_t> image = lir::buildWeightsImage(*f);
    for (auto &b : f->buffers)
      if (b->name == "wide.w") {
        EXPECT_EQ(b->packing, packing);
        EXPECT_EQ(b->size, size);
        return std::vector<int>(image.begin() + b->offset + at,
                                image.begin() + b->offset + at + 4);
      }
    ADD_FAILURE();
    return std::vector<int>();
  };
  EXPECT_EQ(bytesOf({}, lir::Packing::Int8RowsTransposed, 400, 80),
            (std::vector<int>{1, 6, 11, 16}));
  lir::LIROptions vnni;
  vnni.vectorLanes = 16;
  vnni.int8Dot = Int8Dot::Vnni512;
  EXPECT_EQ(bytesOf(vnni, lir::Packing::Int8TapQuadRows, 640, 4),
            (std::vector<int>{5, 6, 7, 8}));
  EXPECT_EQ(bytesOf(vnni, lir::Packing::Int8TapQuadRows, 640, 320 + 4),
            (std::vector<int>{9, 0, 0, 0}));
}

} // namespace
} // namespace kiln
