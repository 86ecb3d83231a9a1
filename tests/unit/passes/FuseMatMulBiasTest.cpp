//===- FuseMatMulBiasTest.cpp ---------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

/// x (of `xShape`) -> MatMul -> Add(bias of `biasShape`, on the given
/// side) -> "y".
GraphBuilder matMulAdd(llvm::ArrayRef<int64_t> biasShape, bool biasFirst,
                       Shape xShape = {3, 5}) {
  Shape shape(biasShape.begin(), biasShape.end());
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32(xShape));
    Value *w = randomConstant(g, "w", {5, 4});
    Value *b = randomConstant(g, "b", shape);
    Node *mm = addNode(g, OpKind::MatMul, "mm", {x, w});
    Node *add = biasFirst
                    ? addNode(g, OpKind::Add, "add", {b, mm->getOutput()})
                    : addNode(g, OpKind::Add, "add", {mm->getOutput(), b});
    g.addOutput("y", add->getOutput());
  };
}

class FuseMatMulBiasShapes
    : public ::testing::TestWithParam<std::pair<Shape, bool>> {};

TEST_P(FuseMatMulBiasShapes, Fuses) {
  auto [shape, biasFirst] = GetParam();
  auto ref = buildGraph(matMulAdd(shape, biasFirst));
  auto g = buildGraph(matMulAdd(shape, biasFirst));
  auto pass = createFuseMatMulBiasPass();
  EXPECT_TRUE(runPass(*pass, *g));
  ASSERT_EQ(g->getNumNodes(), 1u);
  Node *mm = g->getNodes()[0];
  EXPECT_TRUE(mm->is(OpKind::MatMul));
  EXPECT_EQ(mm->getName(), "mm");
  ASSERT_EQ(mm->getNumInputs(), 3u);
  EXPECT_EQ(mm->getInput(2)->getType(), f32({4}));
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

/// A batch of products (a transformer's [1,T,K] x [K,N] projection) takes
/// its bias too, also one written [1,1,N].
TEST(FuseMatMulBias, FusesABatchedProduct) {
  for (Shape bias : {Shape{4}, Shape{1, 1, 4}}) {
    auto ref = buildGraph(matMulAdd(bias, false, {2, 3, 5}));
    auto g = buildGraph(matMulAdd(bias, false, {2, 3, 5}));
    EXPECT_TRUE(runPass(*createFuseMatMulBiasPass(), *g));
    ASSERT_EQ(g->getNumNodes(), 1u);
    ASSERT_EQ(g->getNodes()[0]->getNumInputs(), 3u);
    EXPECT_EQ(g->getNodes()[0]->getInput(2)->getType(), f32({4}));
    EXPECT_TRUE(equivalent(*ref, *g));
  }
}

INSTANTIATE_TEST_SUITE_P(Biases, FuseMatMulBiasShapes,
                         ::testing::Values(std::make_pair(Shape{4}, false),
                                           std::make_pair(Shape{1, 4}, false),
                                           std::make_pair(Shape{4}, true),
                                           std::make_pair(Shape{1, 4}, true)));

TEST(FuseMatMulBias, LeavesWhatItCannotFuse) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({3, 5}));
    Value *dynBias = g.addInput("dyn_bias", f32({4}));
    Value *w = randomConstant(g, "w", {5, 4});
    Value *b = randomConstant(g, "b", {4});
    // A full [M,N] addend is not a bias.
    Node *mm1 = addNode(g, OpKind::MatMul, "mm1", {x, w});
    Node *add1 = addNode(g, OpKind::Add, "add1",
                         {mm1->getOutput(), randomConstant(g, "full", {3, 4})});
    // A bias that is not constant.
    Node *mm2 = addNode(g, OpKind::MatMul, "mm2", {x, w});
    Node *add2 = addNode(g, OpKind::Add, "add2", {mm2->getOutput(), dynBias});
    // A bias of higher rank than the product: the Add broadcasts it.
    Node *mm3 = addNode(g, OpKind::MatMul, "mm3", {x, w});
    Node *add3 = addNode(g, OpKind::Add, "add3",
                         {mm3->getOutput(), randomConstant(g, "b3", {2, 1, 4})});
    // The product has another user.
    Node *mm4 = addNode(g, OpKind::MatMul, "mm4", {x, w});
    Node *add4 = addNode(g, OpKind::Add, "add4", {mm4->getOutput(), b});
    // The product already has an activation, which must come after a bias.
    Node *mm5 = addNode(g, OpKind::MatMul, "mm5", {x, w},
                        {{"kiln.activation", Attr::ofActivation(*Activation::make(ActivationKind::Relu))}});
    Node *add5 = addNode(g, OpKind::Add, "add5", {mm5->getOutput(), b});
    g.addOutput("y1", add1->getOutput());
    g.addOutput("y2", add2->getOutput());
    g.addOutput("y3", add3->getOutput());
    g.addOutput("y4", add4->getOutput());
    g.addOutput("p4", mm4->getOutput());
    g.addOutput("y5", add5->getOutput());
  });
  EXPECT_FALSE(runPass(*createFuseMatMulBiasPass(), *g));
  EXPECT_EQ(g->getNumNodes(), 10u);
}

} // namespace
} // namespace kiln
