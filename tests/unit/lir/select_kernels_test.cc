// selectKernels: the strategy each Conv and pooling gets, as --print-lir
// shows it, for a vector target, a scalar one and without Winograd.

#include "compiler/lir/LIR.h"

#include "gtest/gtest.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace kiln {
namespace {

/// One of each strategy: on a 16-channel 32x32 image a Winograd-sized 3x3
/// Conv, a strided one, a 1x1 one, a depthwise one on 16-wide rows and one
/// on 32-wide rows, a MaxPool and an AveragePool whose divisor varies at
/// the borders.
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
  g.addOutput("f", f);
  g.addOutput("h", h);
  return graph;
}

/// "result = op[strategy]" of each instruction of the printed LIR.
std::string strategies(const Graph &g, const lir::LIROptions &opts) {
  auto f = lir::generateLIR(g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  std::string text, out;
  llvm::raw_string_ostream os(text);
  lir::printLIR(*f, os);
  llvm::SmallVector<llvm::StringRef, 16> lines;
  llvm::StringRef(os.str()).split(lines, '\n', -1, false);
  for (llvm::StringRef line : llvm::drop_begin(lines)) {
    llvm::StringRef result = line.ltrim().drop_front().split('@').first;
    llvm::StringRef op = line.split(" = ").second;
    op = op.take_front(op.contains("](") ? op.find("](") + 1 : op.find('('));
    out += (result + " = " + op + "\n").str();
  }
  return out;
}

TEST(SelectKernels, VectorTarget) {
  lir::LIROptions opts;
  opts.vectorLanes = 16;
  EXPECT_EQ(strategies(*buildGraph(), opts), "wino = Conv[winograd F(4x4,3x3)]\n"
                                            "strided = Conv[direct]\n"
                                            "pointwise = Conv[1x1 gemm]\n"
                                            "narrow_dw = Conv[depthwise channel-block 16]\n"
                                            "maxpool = MaxPool[plane]\n"
                                            "f = AveragePool[generic]\n"
                                            "h = Conv[depthwise rows]\n");
}

/// The kernel of the instruction writing `result` in strategies()'s text.
std::string kernelOf(llvm::StringRef text, llvm::StringRef result) {
  size_t at = text.find((result + " = ").str());
  EXPECT_NE(at, llvm::StringRef::npos) << result.str();
  return text.drop_front(at + result.size() + 3).split('\n').first.str();
}

TEST(SelectKernels, ScalarTargetHasNoChannelBlockAndSmallWinogradTiles) {
  lir::LIROptions opts;
  opts.vectorLanes = 1;
  std::string text = strategies(*buildGraph(), opts);
  EXPECT_EQ(kernelOf(text, "wino"), "Conv[winograd F(2x2,3x3)]");
  EXPECT_EQ(kernelOf(text, "narrow_dw"), "Conv[depthwise rows]");
  EXPECT_EQ(kernelOf(text, "strided"), "Conv[direct]");
}

TEST(SelectKernels, WinogradOffAndForcedTile) {
  lir::LIROptions opts;
  opts.winograd = false;
  EXPECT_EQ(kernelOf(strategies(*buildGraph(), opts), "wino"), "Conv[direct]");
  opts.winograd = true;
  opts.winogradTile = 2;
  EXPECT_EQ(kernelOf(strategies(*buildGraph(), opts), "wino"), "Conv[winograd F(2x2,3x3)]");
}

} // namespace
} // namespace kiln
