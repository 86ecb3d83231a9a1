//===- DeadCodeEliminationTest.cpp ----------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

TEST(DeadCodeElimination, RemovesDeadChainsAndUnusedConstants) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3}));
    g.addInput("unused", f32({1}));
    Value *bias = randomConstant(g, "bias", {3});
    Value *deadWeight = randomConstant(g, "dead_weight", {3});
    randomConstant(g, "orphan", {4});
    Node *add = addNode(g, OpKind::Add, "add", {x, bias});
    Node *relu = addNode(g, OpKind::Relu, "relu", {add->getOutput()});
    // A dead chain reading a live value and a constant only it uses.
    Node *mul = addNode(g, OpKind::Mul, "mul", {add->getOutput(), deadWeight});
    addNode(g, OpKind::Tanh, "tanh", {mul->getOutput()});
    g.addOutput("y", relu->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createDeadCodeEliminationPass();
  EXPECT_TRUE(runPass(*pass, *g));
  ASSERT_EQ(g->getNumNodes(), 2u);
  EXPECT_TRUE(findOnly(*g, OpKind::Add));
  EXPECT_TRUE(findOnly(*g, OpKind::Relu));
  ASSERT_EQ(g->getConstants().size(), 1u);
  EXPECT_EQ(g->getConstants()[0]->getName(), "bias");
  // Graph inputs are the interface and stay, used or not.
  EXPECT_EQ(g->getInputs().size(), 2u);
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

} // namespace
} // namespace kiln
