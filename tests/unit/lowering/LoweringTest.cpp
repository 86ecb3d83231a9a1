//===- LoweringTest.cpp - The primitive set and the "lower" pass ----------===//

#include "compiler/lowering/Lowering.h"
#include "compiler/passes/PassRegistry.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

TEST(Lowering, PrimitiveSet) {
  std::vector<std::string> primitives;
  for (const OpDef *d : allOpDefs())
    if (isPrimitive(d->kind))
      primitives.push_back(d->name);
  EXPECT_EQ(primitives, (std::vector<std::string>{
                            "Conv", "MatMul", "Add", "Sub", "Mul", "Div",
                            "Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh",
                            "MaxPool", "AveragePool", "Softmax", "Reshape",
                            "Transpose", "Concat", "Pad"}));
}

TEST(Lowering, SurvivingUnsupportedNodesAreListed) {
  // Without constant folding first, Shape and a real Cast survive.
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3}));
    Node *shape = addNode(g, OpKind::Shape, "shape", {x});
    Node *cast = addNode(g, OpKind::Cast, "to_int", {x},
                         {{"to", Attr::ofInt(int64_t(DType::I32))}});
    Node *relu = addNode(g, OpKind::Relu, "relu", {x});
    g.addOutput("s", shape->getOutput());
    g.addOutput("c", cast->getOutput());
    g.addOutput("r", relu->getOutput());
  });
  auto pass = createPass("lower");
  ASSERT_TRUE(bool(pass));
  auto changed = (*pass)->run(*g);
  ASSERT_FALSE(bool(changed));
  EXPECT_EQ(llvm::toString(changed.takeError()),
            "2 nodes cannot be compiled:\n"
            "  node 'shape' (Shape): not supported by the code generator\n"
            "  node 'to_int' (Cast): not supported by the code generator");
}

TEST(Lowering, OnlyTwoDimensionalConvolution) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 9}));
    Node *conv = addNode(g, OpKind::Conv, "conv1d",
                         {x, randomConstant(g, "w", {3, 2, 3})});
    g.addOutput("y", conv->getOutput());
  });
  llvm::Error err = checkLowered(*g);
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err))
                .find("node 'conv1d' (Conv): only 2-D convolution is "
                      "supported by the code generator"),
            std::string::npos);
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
