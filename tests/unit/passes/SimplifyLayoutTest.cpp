//===- SimplifyLayoutTest.cpp ---------------------------------------------===//

#include "compiler/ops/QuantizedTypes.h"
#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

Node *transpose(Graph &g, Value *x, llvm::StringRef name, std::vector<int64_t> perm) {
  return addNode(g, OpKind::Transpose, name, {x}, {{"perm", Attr::ofInts(perm)}});
}

Node *reshape(Graph &g, Value *x, llvm::StringRef name, std::vector<int64_t> shape) {
  return addNode(g, OpKind::Reshape, name, {x}, {{"shape", Attr::ofInts(shape)}});
}

TEST(SimplifyLayout, TransposesThatCancelDisappear) {
  // NCHW -> NHWC -> NCHW around a Relu's input.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 3, 4}));
    Node *toNhwc = transpose(g, x, "to_nhwc", {0, 2, 3, 1});
    Node *toNchw = transpose(g, toNhwc->getOutput(), "to_nchw", {0, 3, 1, 2});
    Node *relu = addNode(g, OpKind::Relu, "relu", {toNchw->getOutput()});
    g.addOutput("y", relu->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createSimplifyLayoutPass();
  EXPECT_TRUE(runPass(*pass, *g));
  auto dce = createDeadCodeEliminationPass();
  runPass(*dce, *g);
  EXPECT_EQ(countOps(*g, OpKind::Transpose), 0u);
  EXPECT_EQ(findOnly(*g, OpKind::Relu)->getInput(0)->getName(), "x");
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

TEST(SimplifyLayout, TransposeChainBecomesOne) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4, 5}));
    // Default perm: reversed.
    Node *a = addNode(g, OpKind::Transpose, "a", {x});
    Node *b = transpose(g, a->getOutput(), "b", {2, 3, 0, 1});
    Node *c = transpose(g, b->getOutput(), "c", {0, 2, 1, 3});
    g.addOutput("y", c->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createSimplifyLayoutPass();
  EXPECT_TRUE(runPass(*pass, *g));
  auto dce = createDeadCodeEliminationPass();
  runPass(*dce, *g);
  Node *t = findOnly(*g, OpKind::Transpose);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->getInput(0)->getName(), "x");
  EXPECT_EQ(t->getInts("perm"), llvm::ArrayRef<int64_t>({1, 3, 0, 2}));
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(SimplifyLayout, ReshapeChainsMergeAndNoOpsGo) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4}));
    Node *flat = reshape(g, x, "flat", {6, 4});
    Node *back = reshape(g, flat->getOutput(), "back", {2, 12});
    Node *same = reshape(g, back->getOutput(), "same", {2, -1});
    Node *relu = addNode(g, OpKind::Relu, "relu", {same->getOutput()});
    // A Reshape whose input is still used elsewhere keeps that input.
    Node *other = reshape(g, flat->getOutput(), "other", {24});
    g.addOutput("y", relu->getOutput());
    g.addOutput("z", other->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createSimplifyLayoutPass();
  EXPECT_TRUE(runPass(*pass, *g));
  auto dce = createDeadCodeEliminationPass();
  runPass(*dce, *g);
  // x -> Reshape[2,12] -> Relu, and x -> Reshape[24].
  EXPECT_EQ(countOps(*g, OpKind::Reshape), 2u);
  EXPECT_EQ(findOnly(*g, OpKind::Relu)->getInput(0)->getProducer()->getInput(0)->getName(), "x");
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

TEST(SimplifyLayout, TransposeSinksThroughElementwiseAndCancels) {
  // NCHW -> NHWC, two elementwise ops (one with a scalar), back to NCHW.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 3, 4}));
    Node *toNhwc = transpose(g, x, "to_nhwc", {0, 2, 3, 1});
    Node *relu = addNode(g, OpKind::Relu, "relu", {toNhwc->getOutput()});
    Node *mul = addNode(g, OpKind::Mul, "mul",
                        {relu->getOutput(), constantF32(g, "two", {}, {2.0f})});
    Node *toNchw = transpose(g, mul->getOutput(), "to_nchw", {0, 3, 1, 2});
    g.addOutput("y", toNchw->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createSimplifyLayoutPass();
  EXPECT_TRUE(runPass(*pass, *g));
  auto dce = createDeadCodeEliminationPass();
  runPass(*dce, *g);
  EXPECT_EQ(countOps(*g, OpKind::Transpose), 0u);
  EXPECT_EQ(findOnly(*g, OpKind::Relu)->getInput(0)->getName(), "x");
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

TEST(SimplifyLayout, TransposedOperandsBecomeOneTranspose) {
  GraphBuilder build = [](Graph &g) {
    Value *a = g.addInput("a", f32({2, 3, 4}));
    Value *b = g.addInput("b", f32({2, 3, 4}));
    Node *ta = transpose(g, a, "ta", {2, 0, 1});
    Node *tb = transpose(g, b, "tb", {2, 0, 1});
    Node *add = addNode(g, OpKind::Add, "add", {ta->getOutput(), tb->getOutput()});
    g.addOutput("y", add->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createSimplifyLayoutPass();
  EXPECT_TRUE(runPass(*pass, *g));
  Node *t = findOnly(*g, OpKind::Transpose);
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->getInput(0)->getProducer()->is(OpKind::Add));
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_TRUE(equivalent(*ref, *g));
}

/// `build`'s graph after simplify-layout (which must change it) and dce,
/// checked against the graph as built in the interpreter.
std::unique_ptr<Graph> simplifiedEquivalent(const GraphBuilder &build) {
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createSimplifyLayoutPass();
  EXPECT_TRUE(runPass(*pass, *g));
  auto dce = createDeadCodeEliminationPass();
  runPass(*dce, *g);
  EXPECT_TRUE(equivalent(*ref, *g));
  return g;
}

TEST(SimplifyLayout, TransposeSinksThroughPadAndCancels) {
  // TFLite's int8 PAD in NHWC between two NCHW layers, and a float one.
  for (bool int8 : {true, false}) {
    SCOPED_TRACE(int8 ? "int8" : "f32");
    GraphBuilder build = [int8](Graph &g) {
      Value *x = g.addInput("x", int8 ? q8({1, 3, 4, 5}, 0.1f, -7) : f32({1, 3, 4, 5}));
      Node *toNhwc = transpose(g, x, "to_nhwc", {0, 2, 3, 1});
      Node *pad = addNode(g, OpKind::Pad, "pad", {toNhwc->getOutput()},
                          {{"pads", Attr::ofInts({0, 1, 0, 0, 0, 2, 1, 0})},
                           {"value", Attr::ofFloat(int8 ? -7.0f : 0.0f)}});
      Node *toNchw = transpose(g, pad->getOutput(), "to_nchw", {0, 3, 1, 2});
      g.addOutput("y", toNchw->getOutput());
    };
    std::unique_ptr<Graph> g = simplifiedEquivalent(build);
    EXPECT_EQ(countOps(*g, OpKind::Transpose), 0u);
    Node *pad = findOnly(*g, OpKind::Pad);
    ASSERT_NE(pad, nullptr);
    EXPECT_EQ(pad->getInts("pads"), llvm::ArrayRef<int64_t>({0, 0, 1, 0, 0, 0, 2, 1}));
  }
}

TEST(SimplifyLayout, TransposeSinksThroughReductions) {
  // An int8 MEAN over NHWC's H and W (TFLite's global pool): the mean over
  // NCHW's, then a Reshape (the Transpose of [1, C, 1, 1] moves no byte).
  GraphBuilder mean = [](Graph &g) {
    Value *x = g.addInput("x", q8({1, 6, 5, 4}, 0.1f, -7));
    Node *toNhwc = transpose(g, x, "to_nhwc", {0, 2, 3, 1});
    QuantParams out;
    out.scales = {0.03f};
    out.zeroPoints = {4};
    Node *reduce = addNode(g, OpKind::ReduceMean, "mean", {toNhwc->getOutput()},
                           {{"axes", Attr::ofInts({1, 2})},
                            {"keepdims", Attr::ofInt(1)},
                            {kQuantAttr.str(), Attr::ofQuant(out)}});
    g.addOutput("y", reduce->getOutput());
  };
  std::unique_ptr<Graph> g = simplifiedEquivalent(mean);
  EXPECT_EQ(countOps(*g, OpKind::Transpose), 0u);
  EXPECT_EQ(findOnly(*g, OpKind::ReduceMean)->getInts("axes"), llvm::ArrayRef<int64_t>({2, 3}));
  // Without keepdims: the remaining dimensions in the Transpose's order.
  GraphBuilder sums = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4}));
    Node *t = transpose(g, x, "t", {2, 0, 1});
    Node *max = addNode(g, OpKind::ReduceMax, "max", {t->getOutput()},
                        {{"axes", Attr::ofInts({-2})}, {"keepdims", Attr::ofInt(0)}});
    Node *u = transpose(g, x, "u", {0, 2, 1});
    Node *sum = addNode(g, OpKind::ReduceSum, "sum", {u->getOutput()},
                        {{"axes", Attr::ofInts({2})}, {"keepdims", Attr::ofInt(0)}});
    g.addOutput("y", max->getOutput());
    g.addOutput("z", sum->getOutput());
  };
  g = simplifiedEquivalent(sums);
  Node *back = findOnly(*g, OpKind::Transpose);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->getInput(0)->getProducer()->getKind(), OpKind::ReduceMax);
  EXPECT_EQ(back->getInts("perm"), llvm::ArrayRef<int64_t>({1, 0}));
}

TEST(SimplifyLayout, TransposeOfUnitDimsIsAReshape) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 8, 1, 1}));
    Node *t = transpose(g, x, "t", {0, 2, 3, 1});
    Node *relu = addNode(g, OpKind::Relu, "relu", {t->getOutput()});
    g.addOutput("y", relu->getOutput());
  };
  std::unique_ptr<Graph> g = simplifiedEquivalent(build);
  EXPECT_EQ(countOps(*g, OpKind::Transpose), 0u);
  EXPECT_EQ(countOps(*g, OpKind::Reshape), 1u);
}

} // namespace
} // namespace kiln
