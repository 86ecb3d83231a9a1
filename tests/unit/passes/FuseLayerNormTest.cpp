//===- FuseLayerNormTest.cpp ----------------------------------------------===//
//
// The fused LayerNormalization computes what the written-out formula did
// (the interpreter runs both); the IR shapes are checked in
// ir/fuse_layer_norm.kir.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct Written {
  Shape x;
  /// ReduceMean's axes, trailing ones.
  Shape axes;
  bool squareByPow;
  /// Gamma's and beta's shapes; none when empty.
  Shape gamma, beta;
};

/// x -> the LayerNorm formula over `w.axes` -> "y".
GraphBuilder writtenLayerNorm(const Written &w) {
  return [w](Graph &g) {
    Value *x = g.addInput("x", f32(w.x));
    AttrMap reduce{{"axes", Attr::ofInts(w.axes)}, {"keepdims", Attr::ofInt(1)}};
    Value *m = addNode(g, OpKind::ReduceMean, "m", {x}, reduce)->getOutput();
    Value *d = addNode(g, OpKind::Sub, "d", {x, m})->getOutput();
    Value *sq = w.squareByPow
                    ? addNode(g, OpKind::Pow, "sq", {d, constantF32(g, "two", {}, {2.0f})})
                          ->getOutput()
                    : addNode(g, OpKind::Mul, "sq", {d, d})->getOutput();
    Value *v = addNode(g, OpKind::ReduceMean, "v", {sq}, reduce)->getOutput();
    Value *ve =
        addNode(g, OpKind::Add, "ve", {v, constantF32(g, "eps", {}, {1e-3f})})->getOutput();
    Value *s = addNode(g, OpKind::Sqrt, "s", {ve})->getOutput();
    Value *y = addNode(g, OpKind::Div, "n", {d, s})->getOutput();
    if (!w.gamma.empty())
      y = addNode(g, OpKind::Mul, "scaled", {y, randomConstant(g, "gamma", w.gamma)})
              ->getOutput();
    if (!w.beta.empty())
      y = addNode(g, OpKind::Add, "shifted", {randomConstant(g, "beta", w.beta), y})
              ->getOutput();
    g.addOutput("y", y);
  };
}

class FuseLayerNorm : public ::testing::TestWithParam<Written> {};

TEST_P(FuseLayerNorm, FusesIntoOneNodeOfTheSameValues) {
  auto ref = buildGraph(writtenLayerNorm(GetParam()));
  auto g = buildGraph(writtenLayerNorm(GetParam()));
  auto pass = createFuseLayerNormPass();
  EXPECT_TRUE(runPass(*pass, *g));
  ASSERT_EQ(g->getNumNodes(), 1u);
  EXPECT_TRUE(g->getNodes()[0]->is(OpKind::LayerNormalization));
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

INSTANTIATE_TEST_SUITE_P(
    Forms, FuseLayerNorm,
    ::testing::Values(Written{{1, 16, 64}, {-1}, true, {64}, {64}},
                      Written{{3, 10}, {1}, false, {}, {}},
                      Written{{3, 10}, {1}, false, {10}, {}},
                      Written{{3, 10}, {1}, false, {}, {1, 10}},
                      Written{{2, 3, 4, 5}, {2, 3}, true, {4, 5}, {1}},
                      Written{{2, 3, 4}, {-1}, false, {1, 1, 4}, {1, 1, 4}}));

} // namespace
} // namespace kiln
