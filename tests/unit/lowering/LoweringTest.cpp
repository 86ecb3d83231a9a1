//===- LoweringTest.cpp - The primitive set and the "lower" pass ----------===//

#include "compiler/lowering/Lowering.h"
#include "compiler/pipeline/PassRegistry.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

TEST(Lowering, PrimitiveSet) {
  std::vector<std::string> primitives;
  for (const OpDef *d : allOpDefs())
    if (d->isPrimitive())
      primitives.push_back(d->name);
  // Every elementwise op is primitive (one kernel serves them all).
  for (const char *op : {"Add", "Relu", "Cast", "Exp", "Pow", "Equal", "Not",
                         "Where", "Max", "Sum"})
    EXPECT_TRUE(llvm::is_contained(primitives, op)) << op;
  for (const char *op : {"Conv", "MatMul", "MaxPool", "AveragePool", "Softmax",
                         "Reshape", "Transpose", "Concat", "Pad", "Gather"})
    EXPECT_TRUE(llvm::is_contained(primitives, op)) << op;
  for (const char *op : {"Gemm", "BatchNormalization", "GlobalAveragePool",
                         "Flatten", "Squeeze", "Unsqueeze", "Identity",
                         "Dropout", "Shape"})
    EXPECT_FALSE(llvm::is_contained(primitives, op)) << op;
}

TEST(Lowering, SurvivingUnsupportedNodesAreListed) {
  // Without constant folding first, Shape survives (twice).
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3}));
    Node *shape = addNode(g, OpKind::Shape, "shape", {x});
    Node *shape2 = addNode(g, OpKind::Shape, "shape2", {x});
    Node *relu = addNode(g, OpKind::Relu, "relu", {x});
    g.addOutput("s", shape->getOutput());
    g.addOutput("s2", shape2->getOutput());
    g.addOutput("r", relu->getOutput());
  });
  auto pass = createPass("lower");
  ASSERT_TRUE(bool(pass));
  auto changed = (*pass)->run(*g);
  ASSERT_FALSE(bool(changed));
  EXPECT_EQ(llvm::toString(changed.takeError()),
            "2 nodes cannot be compiled:\n"
            "  node 'shape' (Shape): not supported by the code generator\n"
            "  node 'shape2' (Shape): not supported by the code generator");
}

TEST(Lowering, OnlyTwoDimensionalConvolution) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 5, 5, 5}));
    Node *conv = addNode(g, OpKind::Conv, "conv3d",
                         {x, randomConstant(g, "w", {3, 2, 3, 3, 3})});
    g.addOutput("y", conv->getOutput());
  });
  llvm::Error err = checkLowered(*g);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err))
                .find("node 'conv3d' (Conv): 3-D convolution is not supported "
                      "by the code generator"),
            std::string::npos);
}

TEST(Lowering, OneDimensionalConvolutionBecomesTwoDimensional) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 4, 9}));
    Node *conv = addNode(g, OpKind::Conv, "conv1d",
                         {x, randomConstant(g, "w", {6, 2, 3}),
                          randomConstant(g, "b", {6})},
                         {{"group", Attr::ofInt(2)},
                          {"auto_pad", Attr::ofString("SAME_LOWER")},
                          {"strides", Attr::ofInts({2})},
                          {"dilations", Attr::ofInts({2})}});
    g.addOutput("y", conv->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto changed = lowerGraph(*g);
  ASSERT_TRUE(bool(changed)) << llvm::toString(changed.takeError());
  EXPECT_FALSE(bool(checkLowered(*g)));
  EXPECT_TRUE(equivalent(*ref, *g));
}

/// Of stride 1: the plane kernel runs them without a copy into stride phases.
TEST(Lowering, OneDimensionalPoolsBecomeTwoDimensional) {
  struct Case {
    OpKind op;
    AttrMap attrs;
  };
  const Case cases[] = {
      {OpKind::MaxPool,
       {{"kernel_shape", Attr::ofInts({3})},
        {"dilations", Attr::ofInts({2})},
        {"pads", Attr::ofInts({1, 2})}}},
      {OpKind::MaxPool,
       {{"kernel_shape", Attr::ofInts({4})}, {"auto_pad", Attr::ofString("SAME_UPPER")}}},
      {OpKind::AveragePool,
       {{"kernel_shape", Attr::ofInts({3})}, {"pads", Attr::ofInts({1, 1})}}},
      {OpKind::AveragePool,
       {{"kernel_shape", Attr::ofInts({4})},
        {"pads", Attr::ofInts({2, 1})},
        {"count_include_pad", Attr::ofInt(1)}}},
      // One window over the row: its stride does not matter.
      {OpKind::MaxPool,
       {{"kernel_shape", Attr::ofInts({11})}, {"strides", Attr::ofInts({11})}}},
  };
  for (const Case &c : cases) {
    GraphBuilder build = [&](Graph &g) {
      Value *x = g.addInput("x", f32({2, 3, 11}));
      Node *pool = addNode(g, c.op, "pool1d", {x}, c.attrs);
      g.addOutput("y", pool->getOutput());
    };
    auto ref = buildGraph(build), g = buildGraph(build);
    auto changed = lowerGraph(*g);
    ASSERT_TRUE(bool(changed)) << llvm::toString(changed.takeError());
    EXPECT_FALSE(bool(checkLowered(*g)));
    for (const Node *n : g->getNodes())
      if (n->is(c.op))
        EXPECT_EQ(n->getInput(0)->getType().rank(), 4u);
    EXPECT_TRUE(equivalent(*ref, *g));
  }
}

/// Also one window that does not cover the row.
TEST(Lowering, StridedOneDimensionalPoolsStay) {
  for (int64_t length : {12, 5}) {
    auto g = buildGraph([&](Graph &g) {
      Node *pool = addNode(g, OpKind::MaxPool, "pool1d", {g.addInput("x", f32({1, 2, length}))},
                           {{"kernel_shape", Attr::ofInts({4})}, {"strides", Attr::ofInts({4})}});
      g.addOutput("y", pool->getOutput());
    });
    ASSERT_TRUE(bool(lowerGraph(*g)));
    EXPECT_EQ(g->getNumNodes(), 1u) << length;
  }
}

TEST(Lowering, PassLeavesLoweredGraphAlone) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 4, 4}));
    Node *conv = addNode(g, OpKind::Conv, "conv",
                         {x, randomConstant(g, "w", {2, 2, 3, 3})},
                         {{"auto_pad", Attr::ofString("SAME_UPPER")}});
    Node *flat = addNode(g, OpKind::Flatten, "flat", {conv->getOutput()});
    g.addOutput("y", flat->getOutput());
  });
  auto pass = createPass("lower");
  ASSERT_TRUE(bool(pass));
  EXPECT_TRUE(runPass(**pass, *g));
  EXPECT_FALSE(runPass(**pass, *g));
}

} // namespace
} // namespace kiln
