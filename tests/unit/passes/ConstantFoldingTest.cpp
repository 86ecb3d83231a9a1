//===- ConstantFoldingTest.cpp --------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

TEST(ConstantFolding, FoldsNodesOfConstantsOnly) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({3, 2}));
    Value *c = randomConstant(g, "c", {2, 3});
    Node *t = addNode(g, OpKind::Transpose, "t", {c},
                      {{"perm", Attr::ofInts({1, 0})}});
    Node *sum = addNode(g, OpKind::Add, "sum", {x, t->getOutput()});
    g.addOutput("y", sum->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createConstantFoldingPass();
  EXPECT_TRUE(runPass(*pass, *g));
  EXPECT_EQ(g->getNumNodes(), 1u);
  Node *sum = findOnly(*g, OpKind::Add);
  ASSERT_TRUE(sum);
  EXPECT_TRUE(sum->getInput(1)->isConstant());
  EXPECT_EQ(sum->getInput(1)->getType(), f32({3, 2}));
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

TEST(ConstantFolding, FoldsShapeOfANonConstant) {
  // Shape reads only the static type, so Shape -> Cast folds to [2,3,3].
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 3}));
    Node *shape = addNode(g, OpKind::Shape, "shape", {x});
    Node *cast = addNode(g, OpKind::Cast, "cast", {shape->getOutput()},
                         {{"to", Attr::ofInt(int64_t(DType::F32))}});
    Node *mul = addNode(g, OpKind::Mul, "mul", {x, cast->getOutput()});
    g.addOutput("y", mul->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createConstantFoldingPass();
  EXPECT_TRUE(runPass(*pass, *g));
  EXPECT_EQ(countOps(*g, OpKind::Shape), 0u);
  EXPECT_EQ(countOps(*g, OpKind::Cast), 0u);
  Node *mul = findOnly(*g, OpKind::Mul);
  ASSERT_TRUE(mul);
  ASSERT_TRUE(mul->getInput(1)->isConstant());
  EXPECT_EQ(mul->getInput(1)->getConstant().values<float>(),
            llvm::ArrayRef<float>({2, 3, 3}));
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(ConstantFolding, GraphOutputKeepsItsName) {
  GraphBuilder build = [](Graph &g) {
    g.addInput("x", f32({2}));
    Value *a = randomConstant(g, "a", {2});
    Value *b = randomConstant(g, "b", {2});
    Node *sum = addNode(g, OpKind::Add, "sum", {a, b});
    g.addOutput("y", sum->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createConstantFoldingPass();
  EXPECT_TRUE(runPass(*pass, *g));
  EXPECT_EQ(g->getNumNodes(), 0u);
  ASSERT_EQ(g->getOutputs().size(), 1u);
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_TRUE(g->getOutputs()[0].value->isConstant());
  EXPECT_TRUE(equivalent(*ref, *g));
}

} // namespace
} // namespace kiln
