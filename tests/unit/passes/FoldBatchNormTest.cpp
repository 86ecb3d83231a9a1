//===- FoldBatchNormTest.cpp ----------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

/// A BatchNormalization of `x` over `channels` with random constant
/// parameters (positive variances) named after `name`.
Node *addBatchNorm(Graph &g, llvm::StringRef name, Value *x, int64_t channels) {
  std::string n = name.str();
  Value *scale = randomConstant(g, n + ".scale", {channels}, 0.5f, 2.0f);
  Value *bias = randomConstant(g, n + ".bias", {channels});
  Value *mean = randomConstant(g, n + ".mean", {channels});
  Value *var = randomConstant(g, n + ".var", {channels}, 0.1f, 2.0f);
  return addNode(g, OpKind::BatchNormalization, name,
                 {x, scale, bias, mean, var},
                 {{"epsilon", Attr::ofFloat(1e-3f)}});
}

/// x -> Conv -> BN -> "y".
GraphBuilder convBatchNorm(bool withBias, int64_t group) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32({2, 4, 6, 6}));
    Value *w = randomConstant(g, "w", {6, 4 / group, 3, 3});
    llvm::SmallVector<Value *, 3> inputs{x, w};
    if (withBias)
      inputs.push_back(randomConstant(g, "b", {6}));
    Node *conv = addNode(
        g, OpKind::Conv, "conv", inputs,
        {{"group", Attr::ofInt(group)}, {"pads", Attr::ofInts({1, 1, 1, 1})}});
    Node *bn = addBatchNorm(g, "bn", conv->getOutput(), 6);
    g.addOutput("y", bn->getOutput());
  };
}

void expectFoldedInto(const Graph &g, OpKind producer) {
  EXPECT_EQ(countOps(g, OpKind::BatchNormalization), 0u);
  ASSERT_EQ(g.getNumNodes(), 1u);
  Node *p = g.getNodes()[0];
  EXPECT_TRUE(p->is(producer));
  EXPECT_EQ(p->getName(), producer == OpKind::Gemm     ? "gemm"
                          : producer == OpKind::MatMul ? "mm"
                                                       : "conv");
  ASSERT_EQ(p->getNumInputs(), 3u);
  EXPECT_TRUE(p->getInput(1)->isConstant());
  EXPECT_TRUE(p->getInput(2)->isConstant());
  ASSERT_EQ(g.getOutputs().size(), 1u);
  EXPECT_EQ(g.getOutputs()[0].name, "y");
  EXPECT_EQ(g.getOutputs()[0].value, p->getOutput());
}

TEST(FoldBatchNorm, ConvWithBias) {
  auto ref = buildGraph(convBatchNorm(true, 1));
  auto g = buildGraph(convBatchNorm(true, 1));
  EXPECT_TRUE(runPass(*createFoldBatchNormPass(), *g));
  expectFoldedInto(*g, OpKind::Conv);
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(FoldBatchNorm, ConvWithoutBiasGainsOne) {
  auto ref = buildGraph(convBatchNorm(false, 1));
  auto g = buildGraph(convBatchNorm(false, 1));
  EXPECT_TRUE(runPass(*createFoldBatchNormPass(), *g));
  expectFoldedInto(*g, OpKind::Conv);
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(FoldBatchNorm, GroupedConv) {
  auto ref = buildGraph(convBatchNorm(false, 2));
  auto g = buildGraph(convBatchNorm(false, 2));
  EXPECT_TRUE(runPass(*createFoldBatchNormPass(), *g));
  expectFoldedInto(*g, OpKind::Conv);
  EXPECT_TRUE(equivalent(*ref, *g));
}

/// x -> Gemm -> BN -> "y" with the given transB, alpha, beta and C shape
/// (empty: no C).
GraphBuilder gemmBatchNorm(bool transB, float alpha, float beta,
                           llvm::ArrayRef<int64_t> cShape) {
  Shape c(cShape.begin(), cShape.end());
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32({3, 5}));
    Value *w = randomConstant(g, "w", transB ? Shape{4, 5} : Shape{5, 4});
    llvm::SmallVector<Value *, 3> inputs{x, w};
    if (!c.empty())
      inputs.push_back(randomConstant(g, "c", c));
    Node *gemm = addNode(g, OpKind::Gemm, "gemm", inputs,
                         {{"transB", Attr::ofInt(transB)},
                          {"alpha", Attr::ofFloat(alpha)},
                          {"beta", Attr::ofFloat(beta)}});
    Node *bn = addBatchNorm(g, "bn", gemm->getOutput(), 4);
    g.addOutput("y", bn->getOutput());
  };
}

struct GemmCase {
  bool transB;
  float alpha, beta;
  Shape cShape;
};

class FoldBatchNormGemm : public ::testing::TestWithParam<GemmCase> {};

TEST_P(FoldBatchNormGemm, FoldsIntoWeightsAndC) {
  const GemmCase &c = GetParam();
  auto ref = buildGraph(gemmBatchNorm(c.transB, c.alpha, c.beta, c.cShape));
  auto g = buildGraph(gemmBatchNorm(c.transB, c.alpha, c.beta, c.cShape));
  EXPECT_TRUE(runPass(*createFoldBatchNormPass(), *g));
  expectFoldedInto(*g, OpKind::Gemm);
  EXPECT_EQ(g->getNodes()[0]->getFloat("beta"), 1.0f);
  EXPECT_TRUE(equivalent(*ref, *g));
}

INSTANTIATE_TEST_SUITE_P(Cases, FoldBatchNormGemm,
                         ::testing::Values(GemmCase{true, 1.0f, 1.0f, {4}},
                                           GemmCase{false, 0.5f, 2.0f, {1, 4}},
                                           GemmCase{true, 1.5f, 0.5f, {3, 4}},
                                           GemmCase{false, 1.0f, 1.0f, {}}));

TEST(FoldBatchNorm, MatMul) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({3, 5}));
    Value *w = randomConstant(g, "w", {5, 4});
    Node *mm = addNode(g, OpKind::MatMul, "mm", {x, w});
    Node *bn = addBatchNorm(g, "bn", mm->getOutput(), 4);
    g.addOutput("y", bn->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  EXPECT_TRUE(runPass(*createFoldBatchNormPass(), *g));
  expectFoldedInto(*g, OpKind::MatMul);
  EXPECT_TRUE(equivalent(*ref, *g));
}

} // namespace
} // namespace kiln
