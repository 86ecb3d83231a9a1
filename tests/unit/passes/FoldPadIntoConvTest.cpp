//===- FoldPadIntoConvTest.cpp --------------------------------------------===//

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

TEST(FoldPadIntoConv, SpatialZeroPadBecomesConvPads) {
  // Asymmetric, as TensorFlow's SAME padding of a strided conv is.
  GraphBuilder build = padConv({0, 0, 0, 1, 0, 0, 1, 2}, 0.0f,
                               {{"pads", Attr::ofInts({1, 0, 0, 1})},
                                {"strides", Attr::ofInts({2, 2})}});
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createFoldPadIntoConvPass();
  EXPECT_TRUE(runPass(*pass, *g));
  auto dce = createDeadCodeEliminationPass();
  runPass(*dce, *g);
  EXPECT_EQ(countOps(*g, OpKind::Pad), 0u);
  Node *conv = findOnly(*g, OpKind::Conv);
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->getName(), "conv");
  EXPECT_EQ(conv->getInput(0)->getName(), "x");
  EXPECT_EQ(conv->getInts("pads"), llvm::ArrayRef<int64_t>({1, 1, 1, 3}));
  EXPECT_TRUE(equivalent(*ref, *g));
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

} // namespace
} // namespace kiln
