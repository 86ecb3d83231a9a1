// selectKernels: the strategy each f32 Conv, MatMul and pooling gets, with
// its register tile, as --print-lir shows it, for vector targets, scalar
// ones and without Winograd (int8 layers: select_kernels_int8_test.cc).

#include "compiler/lir/LIR.h"
#include "compiler/lir/RegisterTiles.h"
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

/// One of each strategy: on a 16-channel 32x32 image a Winograd-sized 3x3
/// Conv, a strided one, a 1x1 one, a depthwise one on 16-wide rows and one
/// on 32-wide rows, a MaxPool and an AveragePool whose divisor varies at
/// the borders, and a strided depthwise one on 16-wide rows.
std::unique_ptr<Graph> buildGraph() {
  auto graph = std::make_unique<Graph>("strategies");
  Graph &g = *graph;
  auto weights = [&](llvm::StringRef name, std::vector<int64_t> shape) {
    return g.addConstant(name, Tensor(TensorType(DType::F32, shape)));
  };
  auto node = [&](OpKind kind, llvm::StringRef name, std::vector<Value *> inputs,
                  AttrMap attrs) {
    auto n = g.addNode(kind, name, inputs, attrs);
    EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    return (*n)->getOutput();
  };
  auto ints = [](std::vector<int64_t> v) { return Attr::ofInts(v); };
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 16, 32, 32}));
  Value *a = node(OpKind::Conv, "wino", {x, weights("w1", {16, 16, 3, 3})},
                  {{"pads", ints({1, 1, 1, 1})}});
  Value *b = node(OpKind::Conv, "strided", {a, weights("w2", {16, 16, 3, 3})},
                  {{"pads", ints({1, 1, 1, 1})}, {"strides", ints({2, 2})}});
  Value *c = node(OpKind::Conv, "pointwise", {b, weights("w3", {32, 16, 1, 1})}, {});
  Value *d = node(OpKind::Conv, "narrow_dw", {c, weights("w4", {32, 1, 3, 3})},
                  {{"pads", ints({1, 1, 1, 1})}, {"group", Attr::ofInt(32)}});
  Value *e = node(OpKind::MaxPool, "maxpool", {d},
                  {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}});
  Value *f = node(OpKind::AveragePool, "avgpool", {e},
                  {{"kernel_shape", ints({3, 3})}, {"pads", ints({1, 1, 1, 1})}});
  Value *h = node(OpKind::Conv, "wide_dw", {x, weights("w5", {16, 1, 3, 3})},
                  {{"pads", ints({1, 1, 1, 1})}, {"group", Attr::ofInt(16)}});
  Value *k = node(OpKind::Conv, "strided_dw", {c, weights("w6", {32, 1, 3, 3})},
                  {{"pads", ints({1, 1, 1, 1})}, {"strides", ints({2, 2})},
                   {"group", Attr::ofInt(32)}});
  g.addOutput("f", f);
  g.addOutput("h", h);
  g.addOutput("k", k);
  return graph;
}

TEST(SelectKernels, VectorTarget) {
  lir::LIROptions opts;
  opts.vectorLanes = 16;
  EXPECT_EQ(strategies(*buildGraph(), opts), "wino = Conv[winograd F(4x4,3x3) tile 8x2]\n"
                                            "strided = Conv[direct tile p8x2 r2]\n"
                                            "pointwise = Conv[1x1 gemm tile p8x3]\n"
                                            "narrow_dw = Conv[depthwise plane 16]\n"
                                            "maxpool = MaxPool[plane]\n"
                                            "f = AveragePool[plane separable]\n"
                                            "h = Conv[depthwise rows]\n"
                                            "k = Conv[depthwise channel-block 16]\n");
}

/// A pool's windows are reduced rows first where that reads fewer taps: KH
/// read and one written for each of the column stride's inputs an output
/// spans, then KW, against KH x KW. Separable windows may be larger than the
/// plain kernel unrolls.
TEST(SelectKernels, SeparablePoolsWhereTheyReadFewerTaps) {
  Graph g("pools");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 4, 40, 40}));
  auto pool = [&](llvm::StringRef name, int64_t k, int64_t stride) {
    auto n = g.addNode(OpKind::MaxPool, name, {x},
                       {{"kernel_shape", Attr::ofInts({k, k})},
                        {"strides", Attr::ofInts({stride, stride})}});
    ASSERT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    g.addOutput(name, (*n)->getOutput());
  };
  pool("k2s1", 2, 1);
  pool("k3s1", 3, 1);
  pool("k3s2", 3, 2);
  pool("k5s2", 5, 2);
  pool("k17s1", 17, 1);
  pool("k20s20", 20, 20);
  lir::LIROptions opts;
  opts.vectorLanes = 16;
  EXPECT_EQ(strategies(g, opts), "k2s1 = MaxPool[plane]\n"
                                 "k3s1 = MaxPool[plane separable]\n"
                                 "k3s2 = MaxPool[plane]\n"
                                 "k5s2 = MaxPool[plane separable]\n"
                                 "k17s1 = MaxPool[plane separable]\n"
                                 "k20s20 = MaxPool[generic]\n");
}

/// Narrow depthwise rows of unit strides run as flat planes only on targets
/// of 16 lanes (AVX-512: VALIGND); with 8 lanes (AVX2) or 4 (NEON) their
/// channel blocks are as fast and stay.
TEST(SelectKernels, FlatPlanesOnlyOnSixteenLanes) {
  for (unsigned lanes : {4u, 8u}) {
    lir::LIROptions opts;
    opts.vectorLanes = lanes;
    std::string text = strategies(*buildGraph(), opts);
    EXPECT_EQ(kernelOf(text, "narrow_dw"), "Conv[depthwise channel-block 16]") << lanes;
    EXPECT_EQ(kernelOf(text, "k"), "Conv[depthwise channel-block 16]") << lanes;
  }
}

TEST(SelectKernels, ScalarTargetHasNoChannelBlockAndSmallWinogradTiles) {
  lir::LIROptions opts;
  opts.vectorLanes = 1;
  opts.vectorRegisters = 8;
  std::string text = strategies(*buildGraph(), opts);
  EXPECT_EQ(kernelOf(text, "wino"), "Conv[winograd F(2x2,3x3) tile 6x1]");
  EXPECT_EQ(kernelOf(text, "narrow_dw"), "Conv[depthwise rows]");
  // A scalar's "lanes" are one output channel each: 6 of them, 8 registers
  // less the step's pixel value and the weight.
  EXPECT_EQ(kernelOf(text, "strided"), "Conv[direct tile c6x1]");
}

/// Unstrided Convs on planes of up to 64 pixels read packed panels on a
/// vector target: the whole plane in one block while it fits 1 MiB (K = 2048
/// and 4608 on 7x7), else blocks of fewer pixels (K = 18432: 14, raised to
/// the 32 that hold any tile); not on a scalar one. Strided ones do with 1
/// MiB of weights or more.
TEST(SelectKernels, PanelsOnSmallPlanes) {
  Graph g("panels");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 2048, 7, 7}));
  auto conv = [&](llvm::StringRef name, Value *in, std::vector<int64_t> w, int64_t pad) {
    auto n = g.addNode(OpKind::Conv, name,
                       {in, g.addConstant((name + "_w").str(), Tensor(TensorType(DType::F32, w)))},
                       {{"pads", Attr::ofInts({pad, pad, pad, pad})}});
    EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    return (*n)->getOutput();
  };
  Value *a = conv("pointwise", x, {512, 2048, 1, 1}, 0);
  Value *b = conv("direct", a, {64, 512, 3, 3}, 1);
  Value *c = conv("blocks", x, {16, 2048, 3, 3}, 1);
  // Strided: panels only with 1 MiB of weights or more.
  auto strided = [&](llvm::StringRef name, std::vector<int64_t> w) {
    auto n = g.addNode(OpKind::Conv, name,
                       {x, g.addConstant((name + "_w").str(), Tensor(TensorType(DType::F32, w)))},
                       {{"pads", Attr::ofInts({1, 1, 1, 1})}, {"strides", Attr::ofInts({2, 2})}});
    EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    g.addOutput(name, (*n)->getOutput());
  };
  strided("strided_panels", {16, 2048, 3, 3});
  strided("strided_in_place", {14, 2048, 3, 3});
  // One input channel (a spectrogram, as ds_cnn_kws' first Conv): the plane
  // is read in place, where a panel would copy every tap of every pixel.
  Value *plane = g.addInput("plane", TensorType(DType::F32, {1, 1, 20, 10}));
  auto onePlane = g.addNode(
      OpKind::Conv, "one_plane",
      {plane, g.addConstant("one_plane_w", Tensor(TensorType(DType::F32, {64, 1, 3, 3})))},
      {{"pads", Attr::ofInts({1, 1, 1, 1})}, {"strides", Attr::ofInts({2, 2})}});
  ASSERT_TRUE(static_cast<bool>(onePlane)) << llvm::toString(onePlane.takeError());
  g.addOutput("direct", b);
  g.addOutput("blocks", c);
  g.addOutput("one_plane", (*onePlane)->getOutput());
  lir::LIROptions opts;
  opts.vectorLanes = 8;
  // Tiles of 14 pixels x 2 vectors of output channels (14 x 2 + 2 + 1 of 32
  // registers), K in blocks of 256 steps (16 KiB of a tile's weights); the
  // 3x3 Convs' tiles are a row of 7, each tap a run of an input row, and
  // their blocks of 32 pixels hold four whole tiles.
  EXPECT_EQ(strategies(g, opts), "pointwise = Conv[1x1 gemm panels 49 tile c14x2 b49 k256]\n"
                                 "direct = Conv[direct panels 49 tile c7x2 b49 k256]\n"
                                 "blocks = Conv[direct panels 32 tile c7x2 b28 k256]\n"
                                 "strided_panels = Conv[direct panels 16 tile c4x2 b16 k256]\n"
                                 "strided_in_place = Conv[direct tile c8x2 r2]\n"
                                 "one_plane = Conv[direct tile c30x1 r6]\n");
  opts.vectorLanes = 1;
  opts.vectorRegisters = 8;
  EXPECT_EQ(kernelOf(strategies(g, opts), "direct"), "Conv[direct tile p4x1]");
}

TEST(SelectKernels, WinogradOffAndForcedTile) {
  lir::LIROptions opts;
  opts.winograd = false;
  EXPECT_EQ(kernelOf(strategies(*buildGraph(), opts), "wino"), "Conv[direct tile p8x2]");
  opts.winograd = true;
  opts.winogradTile = 2;
  EXPECT_EQ(kernelOf(strategies(*buildGraph(), opts), "wino"),
            "Conv[winograd F(2x2,3x3) tile 8x3]");
}

/// A 3x3 Conv whose weights come at run time runs as Winograd that
/// transforms them first, on vector targets and over 256 output pixels or
/// more; otherwise, and without Winograd, direct from the weights as they
/// are.
TEST(SelectKernels, WinogradOfRunTimeWeights) {
  Graph g("run_time_weights");
  auto conv = [&](llvm::StringRef name, int64_t size) {
    Value *x = g.addInput((name + "_x").str(), TensorType(DType::F32, {1, 16, size, size}));
    Value *w = g.addInput((name + "_w").str(), TensorType(DType::F32, {16, 16, 3, 3}));
    auto n = g.addNode(OpKind::Conv, name, {x, w}, {{"pads", Attr::ofInts({1, 1, 1, 1})}});
    ASSERT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    g.addOutput(name, (*n)->getOutput());
  };
  conv("large", 16);
  conv("small", 15);
  lir::LIROptions opts;
  opts.vectorLanes = 16;
  opts.vectorRegisters = 32;
  opts.winogradTile = 4;
  std::string text = strategies(g, opts);
  EXPECT_NE(kernelOf(text, "large").find("Conv[winograd F(4x4,3x3) of run-time weights tile"),
            std::string::npos)
      << text;
  EXPECT_NE(kernelOf(text, "small").find("Conv[direct unpacked"), std::string::npos) << text;
  opts.winograd = false;
  EXPECT_NE(kernelOf(strategies(g, opts), "large").find("Conv[direct unpacked"),
            std::string::npos);
  opts.winograd = true;
  opts.vectorLanes = 1;
  opts.vectorRegisters = 8;
  EXPECT_NE(kernelOf(strategies(g, opts), "large").find("Conv[direct unpacked"),
            std::string::npos);
}

/// A grouped Conv runs group by group on any target, and its padded copy
/// holds one group's planes: 8 channels of 18 x 18 (its stride 2 splits the
/// columns into two phases of 9).
TEST(SelectKernels, GroupedConvCopiesOneGroup) {
  Graph g("grouped");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 32, 16, 16}));
  Value *w = g.addConstant("w", Tensor(TensorType(DType::F32, {32, 8, 3, 3})));
  auto n = g.addNode(OpKind::Conv, "grouped", {x, w},
                     {{"group", Attr::ofInt(4)},
                      {"strides", Attr::ofInts({2, 2})},
                      {"pads", Attr::ofInts({1, 1, 1, 1})}});
  ASSERT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
  g.addOutput("y", (*n)->getOutput());
  // A group's 8 output channels as rows, its 8 x 8 pixels on the lanes; 16
  // lanes take three output rows a tile.
  const std::tuple<unsigned, unsigned, const char *> targets[] = {
      {1, 8, "Conv[grouped gemm tile p4x1]"},
      {4, 32, "Conv[grouped gemm tile p8x2]"},
      {16, 32, "Conv[grouped gemm tile p8x3 r3]"}};
  for (auto [lanes, registers, kernel] : targets) {
    lir::LIROptions opts;
    opts.vectorLanes = lanes;
    opts.vectorRegisters = registers;
    EXPECT_EQ(kernelOf(strategies(g, opts), "y"), kernel) << lanes;
    auto f = lir::generateLIR(g, opts);
    ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    const lir::Instr &conv = f->instrs.back();
    ASSERT_TRUE(conv.padded.has_value());
    EXPECT_EQ(conv.padded->channels, 8);
    EXPECT_EQ(conv.padded->bytes(), 8u * 18 * 18 * sizeof(float));
  }
}

/// A constant B of 256 columns or more that only MatMuls read is packed in
/// strips of the tile's columns, once for readers of one strip width (a
/// tied weight); a narrower one, an input B and a B shared by readers of
/// different strip widths are read as they are.
TEST(SelectKernels, MatMulBInStrips) {
  Graph g("strips");
  auto matMul = [&](llvm::StringRef name, std::vector<int64_t> a, Value *b) {
    Value *x = g.addInput((name + "_a").str(), TensorType(DType::F32, a));
    auto n = g.addNode(OpKind::MatMul, name, {x, b}, {});
    EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    g.addOutput(name, (*n)->getOutput());
  };
  auto constant = [&](llvm::StringRef name, std::vector<int64_t> shape) {
    return g.addConstant(name, Tensor(TensorType(DType::F32, shape)));
  };
  matMul("fc", {1, 64}, constant("fc_b", {64, 1000}));
  matMul("wide", {49, 32}, constant("wide_b", {32, 384}));
  matMul("narrow", {49, 32}, constant("narrow_b", {32, 200}));
  matMul("input", {49, 32}, g.addInput("input_b", TensorType(DType::F32, {32, 384})));
  Value *shared = constant("shared_b", {32, 512});
  matMul("shared1", {4, 32}, shared);
  matMul("shared2", {4, 32}, shared);
  Value *mixed = constant("mixed_b", {32, 512});
  matMul("mixed1", {4, 32}, mixed);
  matMul("mixed2", {1, 32}, mixed);
  lir::LIROptions opts;
  opts.vectorLanes = 16;
  opts.vectorRegisters = 32;
  std::string text = strategies(g, opts);
  EXPECT_EQ(kernelOf(text, "fc"), "MatMul[gemm tile 1x8 b-strips 128]") << text;
  EXPECT_NE(kernelOf(text, "wide").find("b-strips 32"), std::string::npos) << text;
  for (const char *name : {"shared1", "shared2"})
    EXPECT_NE(kernelOf(text, name).find("b-strips 64"), std::string::npos) << name << "\n" << text;
  for (const char *name : {"narrow", "input", "mixed1", "mixed2"})
    EXPECT_EQ(kernelOf(text, name).find("b-strips"), std::string::npos) << name << "\n" << text;
}

/// Every f32 GEMM-shaped kernel gets a register tile that fits the target's
/// registers (its accumulators, a step's vectors and one broadcast value;
/// one row of several vectors where even that does not fit), of at most 4
/// vectors (8 for a matrix-vector product); output channels on the lanes
/// only over packed weights and, over packed panels, at most
/// kMinPanelPixels pixels a tile within a block of the panels; K blocks
/// only over panels.
TEST(SelectKernels, RegisterTilesFitTheRegisters) {
  Graph g("tiles");
  auto ints = [](std::vector<int64_t> v) { return Attr::ofInts(v); };
  auto conv = [&](llvm::StringRef name, std::vector<int64_t> x, std::vector<int64_t> w,
                  AttrMap attrs) {
    Value *in = g.addInput((name + "_x").str(), TensorType(DType::F32, x));
    Value *weights = g.addConstant((name + "_w").str(), Tensor(TensorType(DType::F32, w)));
    auto n = g.addNode(OpKind::Conv, name, {in, weights}, attrs);
    ASSERT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    g.addOutput(name, (*n)->getOutput());
  };
  auto matMul = [&](llvm::StringRef name, std::vector<int64_t> a, std::vector<int64_t> b) {
    Value *x = g.addInput((name + "_a").str(), TensorType(DType::F32, a));
    Value *w = g.addConstant((name + "_b").str(), Tensor(TensorType(DType::F32, b)));
    auto n = g.addNode(OpKind::MatMul, name, {x, w}, {});
    ASSERT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    g.addOutput(name, (*n)->getOutput());
  };
  conv("wino", {1, 16, 20, 20}, {24, 16, 3, 3}, {{"pads", ints({1, 1, 1, 1})}});
  conv("large", {1, 3, 96, 96}, {8, 3, 3, 3}, {{"pads", ints({1, 1, 1, 1})}});
  conv("narrow", {1, 4, 5, 3}, {7, 4, 3, 3}, {});
  conv("strided", {1, 24, 15, 15}, {40, 24, 3, 3},
       {{"pads", ints({1, 1, 1, 1})}, {"strides", ints({2, 2})}});
  conv("pointwise", {1, 96, 56, 56}, {24, 96, 1, 1}, {});
  conv("panels", {1, 512, 7, 7}, {20, 512, 1, 1}, {});
  conv("grouped", {1, 12, 9, 9}, {18, 4, 3, 3}, {{"group", Attr::ofInt(3)}});
  matMul("gemv", {1, 100}, {100, 37});
  matMul("gemm", {33, 20}, {20, 50});
  using Kind = lir::KernelStrategy::Kind;
  for (auto [lanes, registers] : {std::pair{16u, 32u}, {8u, 16u}, {4u, 32u}, {1u, 8u}}) {
    lir::LIROptions opts;
    opts.vectorLanes = lanes;
    opts.vectorRegisters = registers;
    auto f = lir::generateLIR(g, opts);
    ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
    int tiled = 0;
    for (const lir::Instr &in : f->instrs) {
      const lir::KernelStrategy &s = in.strategy;
      if (!s.is(Kind::Direct) && !s.is(Kind::Pointwise) && !s.is(Kind::Grouped) &&
          !s.is(Kind::Winograd) && !s.is(Kind::Gemm))
        continue;
      const lir::RegisterTile &t = s.registerTile;
      std::string name = (in.node->getName() + " at " + llvm::Twine(lanes) + "x" +
                          llvm::Twine(registers)).str();
      ++tiled;
      ASSERT_GE(t.rows, 1u) << name;
      bool gemv = s.is(Kind::Gemm) && in.node->getInput(0)->getType().shape[0] == 1;
      EXPECT_TRUE(t.vecs >= 1 && t.vecs <= (gemv ? 8u : 4u)) << name;
      if (!t.span)
        EXPECT_TRUE(t.rows == 1 || t.rows * t.vecs + t.vecs + 1 <= registers) << name;
      EXPECT_TRUE(!t.channelsOnLanes || s.packedWeights) << name;
      bool panels = (s.is(Kind::Direct) || s.is(Kind::Pointwise)) && s.tile;
      EXPECT_TRUE(!t.kBlock || (panels && t.kBlock >= lir::kConvUnrolledChannels)) << name;
      if (panels) {
        EXPECT_TRUE(t.channelsOnLanes) << name;
        EXPECT_LE(int64_t(t.rows), lir::kMinPanelPixels) << name;
        EXPECT_TRUE(t.block >= t.rows && t.block <= s.tile) << name;
      }
    }
    EXPECT_EQ(tiled, 9) << lanes;
  }
}

} // namespace
} // namespace kiln
