//===- FoldPadIntoConvTest.cpp --------------------------------------------===//

#include "compiler/ops/QuantizedTypes.h"
#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

/// x -> Pad(pads, value) -> Conv(convAttrs) -> "y".
GraphBuilder padConv(std::vector<int64_t> pads, float value, AttrMap convAttrs) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32({1, 3, 6, 7}));
    Value *w = randomConstant(g, "w", {4, 3, 3, 3});
    Value *b = randomConstant(g, "b", {4});
    Node *pad = addNode(g, OpKind::Pad, "pad", {x},
                        {{"pads", Attr::ofInts(pads)}, {"value", Attr::ofFloat(value)}});
    Node *conv = addNode(g, OpKind::Conv, "conv", {pad->getOutput(), w, b}, convAttrs);
    g.addOutput("y", conv->getOutput());
  };
}

/// `build`'s graph after fold-pad-into-conv (which must change it) and dce:
/// no Pad left, and the outputs of the graph as built (the interpreter).
std::unique_ptr<Graph> foldedEquivalent(const GraphBuilder &build) {
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createFoldPadIntoConvPass();
  EXPECT_TRUE(runPass(*pass, *g));
  auto dce = createDeadCodeEliminationPass();
  runPass(*dce, *g);
  EXPECT_EQ(countOps(*g, OpKind::Pad), 0u);
  EXPECT_TRUE(equivalent(*ref, *g));
  return g;
}

TEST(FoldPadIntoConv, SpatialZeroPadBecomesConvPads) {
  // Asymmetric, as TensorFlow's SAME padding of a strided conv is.
  GraphBuilder build = padConv({0, 0, 0, 1, 0, 0, 1, 2}, 0.0f,
                               {{"pads", Attr::ofInts({1, 0, 0, 1})},
                                {"strides", Attr::ofInts({2, 2})}});
  std::unique_ptr<Graph> g = foldedEquivalent(build);
  Node *conv = findOnly(*g, OpKind::Conv);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->getName(), "conv");
  EXPECT_EQ(conv->getInput(0)->getName(), "x");
  EXPECT_EQ(conv->getInts("pads"), llvm::ArrayRef<int64_t>({1, 1, 1, 3}));
  auto pass = createFoldPadIntoConvPass();
  EXPECT_FALSE(runPass(*pass, *g));
}

TEST(FoldPadIntoConv, LeavesOtherPads) {
  struct Case {
    const char *why;
    std::vector<int64_t> pads;
    float value;
  };
  for (const Case &c : {Case{"pads the batch", {1, 0, 1, 1, 0, 0, 1, 1}, 0.0f},
                        Case{"pads with a non-zero value", {0, 0, 1, 1, 0, 0, 1, 1}, 0.5f},
                        Case{"crops", {0, 0, -1, 1, 0, 0, 1, 1}, 0.0f}}) {
    SCOPED_TRACE(c.why);
    auto g = buildGraph(padConv(c.pads, c.value, {}));
    auto pass = createFoldPadIntoConvPass();
    EXPECT_FALSE(runPass(*pass, *g));
    EXPECT_EQ(countOps(*g, OpKind::Pad), 1u);
  }
}

TEST(FoldPadIntoConv, PadWithAnotherUserStays) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 3, 5, 5}));
    Value *w = randomConstant(g, "w", {4, 3, 3, 3});
    Node *pad = addNode(g, OpKind::Pad, "pad", {x},
                        {{"pads", Attr::ofInts({0, 0, 1, 1, 0, 0, 1, 1})}});
    Node *conv = addNode(g, OpKind::Conv, "conv", {pad->getOutput(), w});
    g.addOutput("y", conv->getOutput());
    g.addOutput("padded", pad->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createFoldPadIntoConvPass();
  EXPECT_TRUE(runPass(*pass, *g));
  EXPECT_EQ(countOps(*g, OpKind::Pad), 1u);
  EXPECT_EQ(findOnly(*g, OpKind::Conv)->getInput(0)->getName(), "x");
  EXPECT_TRUE(equivalent(*ref, *g));
}

/// int8 x (zero point -3) -> Pad(pads, value) -> int8 Conv -> "y", as
/// TFLite's PAD before an unpadded CONV_2D or DEPTHWISE_CONV_2D.
GraphBuilder int8PadConv(float value, int64_t group) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", q8({1, 4, 6, 7}, 0.1f, -3));
    Tensor weights(q8({4, 4 / group, 3, 3}, 0.05f, 0));
    for (int64_t i = 0; i < weights.numElements(); ++i)
      weights.data<int8_t>()[i] = int8_t(i * 37 % 255 - 127);
    Value *w = g.addConstant("w", std::move(weights));
    Node *pad = addNode(g, OpKind::Pad, "pad", {x},
                        {{"pads", Attr::ofInts({0, 0, 1, 0, 0, 0, 1, 2})},
                         {"value", Attr::ofFloat(value)}});
    QuantParams out;
    out.scales = {0.3f};
    out.zeroPoints = {5};
    Node *conv = addNode(g, OpKind::Conv, "conv", {pad->getOutput(), w},
                         {{"group", Attr::ofInt(group)}, {kQuantAttr.str(), Attr::ofQuant(out)}});
    g.addOutput("y", conv->getOutput());
  };
}

TEST(FoldPadIntoConv, Int8PadOfTheZeroPointBecomesConvPads) {
  // TFLite pads an int8 tensor with its zero point (the real 0); an int8
  // Conv's own padding reads the same (each padded x - zeroPoint is 0).
  for (int64_t group : {1, 4}) {
    SCOPED_TRACE(group == 1 ? "Conv" : "depthwise Conv");
    std::unique_ptr<Graph> g = foldedEquivalent(int8PadConv(-3.0f, group));
    Node *conv = findOnly(*g, OpKind::Conv);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->getInts("pads"), llvm::ArrayRef<int64_t>({1, 0, 1, 2}));
  }
  // Code 0 is not this tensor's real 0.
  auto g = buildGraph(int8PadConv(0.0f, 1));
  auto pass = createFoldPadIntoConvPass();
  EXPECT_FALSE(runPass(*pass, *g));
  EXPECT_EQ(countOps(*g, OpKind::Pad), 1u);
}

} // namespace
} // namespace kiln
