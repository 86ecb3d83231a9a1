//===- TrimConvTapsTest.cpp -----------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct Case {
  const char *why;
  std::vector<int64_t> input, weights, pads, strides, dilations;
  int64_t group;
  /// The kernel's spatial extent after the pass (the same if it keeps it).
  std::vector<int64_t> kernel;
};

/// x -> Conv(random constant weights and bias) -> "y".
GraphBuilder conv(const Case &c) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32(c.input));
    Value *w = randomConstant(g, "w", c.weights);
    Value *b = randomConstant(g, "b", {c.weights[0]});
    Node *n = addNode(g, OpKind::Conv, "conv", {x, w, b},
                      {{"pads", Attr::ofInts(c.pads)},
                       {"strides", Attr::ofInts(c.strides)},
                       {"dilations", Attr::ofInts(c.dilations)},
                       {"group", Attr::ofInt(c.group)}});
    g.addOutput("y", n->getOutput());
  };
}

/// The reference interpreter on the graph before the pass is the oracle.
TEST(TrimConvTaps, SameOutputsWithFewerTaps) {
  for (const Case &c : {
           Case{"ASPP: dilation 24 on 14x14", {1, 8, 14, 14}, {4, 8, 3, 3}, {24, 24, 24, 24},
                {1, 1}, {24, 24}, 1, {1, 1}},
           Case{"dilation 12 on 14x14 keeps every tap", {1, 8, 14, 14}, {4, 8, 3, 3},
                {12, 12, 12, 12}, {1, 1}, {12, 12}, 1, {3, 3}},
           Case{"stride 2, asymmetric pads, grouped", {1, 4, 5, 9}, {6, 2, 5, 3}, {6, 1, 7, 1},
                {2, 2}, {3, 1}, 2, {3, 3}},
           Case{"1-D, the first taps dead", {1, 3, 6}, {2, 3, 5}, {8, 0}, {1}, {2}, 1, {3}},
           Case{"depthwise, height 1", {1, 4, 1, 7}, {4, 1, 3, 3}, {1, 1, 1, 1}, {1, 1},
                {1, 1}, 4, {1, 3}},
       }) {
    SCOPED_TRACE(c.why);
    auto ref = buildGraph(conv(c)), g = buildGraph(conv(c));
    auto pass = createTrimConvTapsPass();
    const bool trims = c.kernel != std::vector<int64_t>(c.weights.begin() + 2, c.weights.end());
    EXPECT_EQ(runPass(*pass, *g), trims);
    Node *n = findOnly(*g, OpKind::Conv);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->getName(), "conv");
    llvm::ArrayRef<int64_t> wShape = n->getInput(1)->getType().shape;
    EXPECT_EQ(std::vector<int64_t>(wShape.begin() + 2, wShape.end()), c.kernel);
    EXPECT_TRUE(equivalent(*ref, *g));
    EXPECT_FALSE(runPass(*pass, *g));
  }
}

} // namespace
} // namespace kiln
