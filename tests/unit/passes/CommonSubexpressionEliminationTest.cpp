//===- CommonSubexpressionEliminationTest.cpp -----------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

TEST(CommonSubexpressionElimination, MergesRepeatedChains) {
  // Two branches compute Relu(x) and then the same Transpose of it; a third
  // transposes differently; a fourth adds a different operand.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4}));
    Value *z = g.addInput("z", f32({2, 3, 4}));
    Node *r1 = addNode(g, OpKind::Relu, "r1", {x});
    Node *r2 = addNode(g, OpKind::Relu, "r2", {x});
    AttrMap perm{{"perm", Attr::ofInts({0, 2, 1})}};
    Node *t1 = addNode(g, OpKind::Transpose, "t1", {r1->getOutput()}, perm);
    Node *t2 = addNode(g, OpKind::Transpose, "t2", {r2->getOutput()}, perm);
    Node *t3 = addNode(g, OpKind::Transpose, "t3", {r2->getOutput()},
                       {{"perm", Attr::ofInts({2, 1, 0})}});
    Node *a1 = addNode(g, OpKind::Add, "a1", {r1->getOutput(), x});
    Node *a2 = addNode(g, OpKind::Add, "a2", {r2->getOutput(), z});
    g.addOutput("y1", t1->getOutput());
    g.addOutput("y2", t2->getOutput());
    g.addOutput("y3", t3->getOutput());
    g.addOutput("y4", a1->getOutput());
    g.addOutput("y5", a2->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createCommonSubexpressionEliminationPass();
  EXPECT_TRUE(runPass(*pass, *g));
  EXPECT_EQ(countOps(*g, OpKind::Relu), 1u);
  EXPECT_EQ(countOps(*g, OpKind::Transpose), 2u);
  EXPECT_EQ(countOps(*g, OpKind::Add), 2u);
  // Every output keeps its name, two of them now the same value.
  ASSERT_EQ(g->getOutputs().size(), 5u);
  EXPECT_EQ(g->getOutputs()[1].name, "y2");
  EXPECT_EQ(g->getOutputs()[0].value, g->getOutputs()[1].value);
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

} // namespace
} // namespace kiln
