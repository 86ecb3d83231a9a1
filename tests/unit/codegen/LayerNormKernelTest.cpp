//===- LayerNormKernelTest.cpp - LayerNormalization row kernel ------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct LayerNormCase {
  Shape x;
  int64_t axis;
  /// Scale's and B's shapes; B absent when empty and `bias` is false.
  Shape scale, bias;
  bool hasBias = true;
  /// Parameters as constants (the usual model) or graph inputs.
  bool constantParams = true;
};

std::string layerNormCaseName(const ::testing::TestParamInfo<LayerNormCase> &info) {
  const LayerNormCase &c = info.param;
  std::string name = "Shape";
  for (int64_t d : c.x)
    name += "_" + std::to_string(d);
  name += "_Axis" + (c.axis < 0 ? "Minus" + std::to_string(-c.axis) : std::to_string(c.axis));
  name += "_Scale" + std::to_string(c.scale.size());
  name += c.hasBias ? "_Bias" + std::to_string(c.bias.size()) : "_NoBias";
  if (!c.constantParams)
    name += "_ParamsInputs";
  return name;
}

/// x -> LayerNormalization -> y, Mean and InvStdDev all graph outputs.
GraphBuilder layerNorm(const LayerNormCase &c) {
  return [c](Graph &g) {
    Value *x = g.addInput("x", f32(c.x));
    auto param = [&](const char *name, const Shape &shape) {
      return c.constantParams ? randomConstant(g, name, shape) : g.addInput(name, f32(shape));
    };
    llvm::SmallVector<Value *, 3> inputs{x, param("scale", c.scale)};
    if (c.hasBias)
      inputs.push_back(param("bias", c.bias));
    Node *n = addNode(g, OpKind::LayerNormalization, "ln", inputs,
                      {{"axis", Attr::ofInt(c.axis)}, {"epsilon", Attr::ofFloat(1e-3f)}});
    g.addOutput("y", n->getOutput(0));
    g.addOutput("mean", n->getOutput(1));
    g.addOutput("inv_std_dev", n->getOutput(2));
  };
}

/// Whether the graph after the passes still holds the LayerNormalization
/// (the row kernel runs it) or has it written out.
std::function<void(const Graph &)> expectKernel(bool kept) {
  return [kept](const Graph &g) {
    bool found = llvm::any_of(g.getNodes(), [](const Node *n) {
      return n->is(OpKind::LayerNormalization);
    });
    EXPECT_EQ(found, kept);
  };
}

class LayerNormKernel : public ::testing::TestWithParam<LayerNormCase> {};

TEST_P(LayerNormKernel, MatchesTheInterpreter) {
  JitCheck check;
  check.lo = -3.0f;
  check.hi = 5.0f;
  check.expectGraph = expectKernel(true);
  EXPECT_TRUE(jitMatchesInterpreter(layerNorm(GetParam()), check));
}

/// Rows far from zero and close together: the variance is of x - mean,
/// not a difference of two large sums.
TEST_P(LayerNormKernel, MatchesTheInterpreterOffCentre) {
  JitCheck check;
  check.lo = 1000.0f;
  check.hi = 1001.0f;
  check.rtol = 1e-4;
  check.expectGraph = expectKernel(true);
  EXPECT_TRUE(jitMatchesInterpreter(layerNorm(GetParam()), check));
}

INSTANTIATE_TEST_SUITE_P(
    Rows, LayerNormKernel,
    ::testing::Values(
        // A transformer's tokens: full vectors, a partial one after them,
        // and a row shorter than a vector.
        LayerNormCase{{1, 16, 64}, -1, {64}, {64}},
        LayerNormCase{{65, 72}, -1, {72}, {72}},
        LayerNormCase{{3, 5}, 1, {5}, {5}},
        LayerNormCase{{7}, 0, {7}, {7}},
        // Rows over several trailing axes.
        LayerNormCase{{2, 3, 4, 5}, 1, {3, 4, 5}, {3, 4, 5}},
        LayerNormCase{{2, 3, 20}, -2, {3, 20}, {3, 20}},
        // Scalar parameters, no B, parameters as graph inputs.
        LayerNormCase{{4, 33}, -1, {1}, {}},
        LayerNormCase{{4, 33}, -1, {33}, {}, false},
        LayerNormCase{{2, 40}, 1, {40}, {40}, true, false},
        // One element a row: y is B.
        LayerNormCase{{6, 1}, -1, {1}, {1}}),
    layerNormCaseName);

/// Scale broadcast over part of a row only: lowering writes the formula
/// out, and the written-out form still matches.
TEST(LayerNormKernelFallback, PartialBroadcastIsLowered) {
  JitCheck check;
  check.expectGraph = expectKernel(false);
  EXPECT_TRUE(jitMatchesInterpreter(layerNorm({{2, 3, 8}, 1, {8}, {3, 8}}), check));
}

} // namespace
} // namespace kiln
