//===- ElementwiseKernelTest.cpp - Broadcasting binary ops, activations ---===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace kiln {
namespace {

using namespace test;

//===----------------------------------------------------------------------===//
// Add / Sub / Mul / Div
//===----------------------------------------------------------------------===//

struct BroadcastCase {
  const char *name;
  Shape a, b;
};

const BroadcastCase kBroadcasts[] = {
    {"SameShape", {2, 3, 4}, {2, 3, 4}},
    {"ScalarRight", {2, 3}, {}},
    {"ScalarLeft", {}, {3, 5}},
    {"Row", {3, 4}, {4}},
    {"Column", {3, 4}, {3, 1}},
    {"RowTimesColumn", {3, 1}, {1, 4}},
    {"FourDByOneD", {2, 3, 4, 5}, {5}},
    {"OneDByFourD", {5}, {2, 3, 4, 5}},
    {"PerChannel", {2, 3, 4, 5}, {3, 1, 1}},
    {"BothBroadcast4D", {1, 3, 1, 5}, {2, 1, 4, 1}},
    {"OddLength", {131}, {131}},
    {"BothScalars", {}, {}},
    // Dimensions every operand walks as one merge (the kernel's nest):
    // a squeeze-excitation scale, broadcast rows inside, and a dimension of
    // extent 1 between two that do not merge.
    {"ChannelScale", {1, 6, 7, 9}, {1, 6, 1, 1}},
    {"InnerRuns", {2, 3, 4, 5}, {2, 1, 4, 5}},
    {"BroadcastBetween", {3, 1, 4, 5}, {3, 2, 1, 5}},
    // Rows LLVM unrolls fully (a 7x7 plane, 9 and 8 elements), under outer
    // loops it is kept from vectorizing; and rows of 4, which it may.
    {"ChannelScaleSevenBySeven", {1, 37, 7, 7}, {1, 37, 1, 1}},
    {"ChannelScaleThreeByThree", {1, 40, 3, 3}, {1, 40, 1, 1}},
    {"RowsOfEight", {5, 3, 8}, {5, 1, 8}},
    {"RowsOfFour", {2, 33, 4}, {1, 33, 1}},
};

struct BinaryCase {
  OpKind op;
  DType dtype;
  BroadcastCase shapes;
};

std::string binaryCaseName(const BinaryCase &c) {
  return getOpDef(c.op).name + std::string("_") + dtypeName(c.dtype).str() +
         "_" + c.shapes.name;
}

class BinaryKernel : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryKernel, MatchesTheInterpreter) {
  const BinaryCase &c = GetParam();
  JitCheck check;
  // Quotients of inputs near 0 are large; keep the divisor away from 0.
  if (c.op == OpKind::Div && c.dtype == DType::F32) {
    check.lo = 0.5f;
    check.hi = 2.0f;
  }
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(c.op, {TensorType(c.dtype, c.shapes.a),
                        TensorType(c.dtype, c.shapes.b)}),
      check));
}

std::vector<BinaryCase> binaryCases() {
  std::vector<BinaryCase> cases;
  for (OpKind op : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div})
    for (const BroadcastCase &s : kBroadcasts)
      cases.push_back({op, DType::F32, s});
  // Integers: every op on a few layouts (Div truncates toward zero).
  for (OpKind op : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div})
    for (DType t : {DType::I32, DType::I64})
      for (const BroadcastCase &s :
           {kBroadcasts[0], kBroadcasts[1], kBroadcasts[3], kBroadcasts[8]})
        cases.push_back({op, t, s});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Broadcasting, BinaryKernel,
                         ::testing::ValuesIn(binaryCases()),
                         [](const auto &info) { return binaryCaseName(info.param); });

TEST(BinaryKernel, ConstantOperandsComeFromTheWeights) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4}));
    Node *mul = addNode(g, OpKind::Mul, "mul", {randomConstant(g, "s", {3, 1}), x});
    Node *sub = addNode(g, OpKind::Sub, "sub",
                        {mul->getOutput(), randomConstant(g, "t", {4})});
    g.addOutput("y", sub->getOutput());
  };
  EXPECT_TRUE(jitMatchesInterpreter(build));
}

/// Integer arithmetic wraps around (two's complement), as in the
/// interpreter.
TEST(BinaryKernel, IntegerOverflowWraps) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  Tensor a = Tensor::fromValues<int32_t>(DType::I32, {4}, {kMax, kMin, kMax, -7});
  Tensor b = Tensor::fromValues<int32_t>(DType::I32, {4}, {1, -1, kMax, 2});
  for (OpKind op : {OpKind::Add, OpKind::Sub, OpKind::Mul}) {
    SCOPED_TRACE(getOpDef(op).name);
    JitCheck check;
    check.inputs = {a, b};
    check.rtol = 0;
    TensorType t(DType::I32, {4});
    EXPECT_TRUE(jitMatchesInterpreter(singleNode(op, {t, t}), check));
  }
}

TEST(BinaryKernel, IntegerDivisionOfTheMinimumByMinusOneWraps) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  JitCheck check;
  check.inputs = {Tensor::fromValues<int64_t>(DType::I64, {2}, {kMin, 9}),
                  Tensor::fromValues<int64_t>(DType::I64, {2}, {-1, -1})};
  check.rtol = 0;
  TensorType t(DType::I64, {2});
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(OpKind::Div, {t, t}), check));
}

//===----------------------------------------------------------------------===//
// Relu, LeakyRelu, Clip, Sigmoid, Tanh
//===----------------------------------------------------------------------===//

struct UnaryCase {
  const char *name;
  OpKind op;
  AttrMap attrs;
};

class UnaryKernel : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryKernel, MatchesTheInterpreterOnRandomInputs) {
  const UnaryCase &c = GetParam();
  JitCheck check;
  check.lo = -100.0f;
  check.hi = 100.0f;
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(c.op, {f32({4, 257})}, c.attrs),
                                    check));
  check.lo = -4.0f;
  check.hi = 4.0f;
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(c.op, {f32({3, 5, 7})}, c.attrs),
                                    check));
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(c.op, {f32({})}, c.attrs), check));
}

/// Where exp-based ops can go wrong: exp's clamping range (about +-88),
/// saturation, zero and values near it. The piecewise-linear ops must be
/// exact; Sigmoid and Tanh within 1e-6 (their outputs are at most 1).
TEST_P(UnaryKernel, MatchesTheInterpreterOnEdgeValues) {
  const UnaryCase &c = GetParam();
  std::vector<float> edges = {-100.0f, -88.8f,  -88.3f, -87.5f, -87.3f, -44.0f,
                              -20.0f,  -9.0f,   -1.0f,  -0.5f,  -1e-4f, -1e-30f,
                              0.0f,    -0.0f,   1e-30f, 1e-4f,  0.5f,   1.0f,
                              9.0f,    20.0f,   44.0f,  87.3f,  88.3f,  88.8f,
                              100.0f,  -1e30f,  1e30f,  -3e38f, 3e38f};
  int64_t n = edges.size();
  JitCheck check;
  check.inputs = {Tensor::fromValues<float>(DType::F32, {n}, edges)};
  check.rtol = c.op == OpKind::Sigmoid || c.op == OpKind::Tanh ? 1e-6 : 0.0;
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(c.op, {f32({n})}, c.attrs), check));
}

INSTANTIATE_TEST_SUITE_P(
    Activations, UnaryKernel,
    ::testing::Values(
        UnaryCase{"Relu", OpKind::Relu, {}},
        UnaryCase{"LeakyReluDefault", OpKind::LeakyRelu, {}},
        UnaryCase{"LeakyRelu", OpKind::LeakyRelu, {{"alpha", Attr::ofFloat(0.2f)}}},
        UnaryCase{"ClipMinMax", OpKind::Clip,
                  {{"min", Attr::ofFloat(-0.5f)}, {"max", Attr::ofFloat(6.0f)}}},
        UnaryCase{"ClipMinOnly", OpKind::Clip, {{"min", Attr::ofFloat(0.0f)}}},
        UnaryCase{"ClipMaxOnly", OpKind::Clip, {{"max", Attr::ofFloat(-2.0f)}}},
        UnaryCase{"ClipMinAboveMax", OpKind::Clip,
                  {{"min", Attr::ofFloat(1.0f)}, {"max", Attr::ofFloat(-1.0f)}}},
        UnaryCase{"Sigmoid", OpKind::Sigmoid, {}},
        UnaryCase{"Tanh", OpKind::Tanh, {}}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// BatchNormalization not foldable into a Conv: lowered to Mul + Add
//===----------------------------------------------------------------------===//

TEST(BatchNormKernel, UnfoldedMatchesTheInterpreter) {
  for (Shape x : {Shape{2, 3, 4, 5}, Shape{4, 6}, Shape{1, 5, 7}}) {
    SCOPED_TRACE(shapeStr(x));
    GraphBuilder build = [&](Graph &g) {
      Value *in = g.addInput("x", f32(x));
      int64_t c = x[1];
      Node *bn = addNode(g, OpKind::BatchNormalization, "bn",
                         {in, randomConstant(g, "scale", {c}),
                          randomConstant(g, "shift", {c}),
                          randomConstant(g, "mean", {c}),
                          randomConstant(g, "var", {c}, 0.1f, 3.0f)});
      g.addOutput("y", bn->getOutput());
    };
    JitCheck check;
    check.expectGraph = [](const Graph &g) {
      EXPECT_EQ(countOps(g, OpKind::BatchNormalization), 0u);
      EXPECT_EQ(countOps(g, OpKind::Mul), 1u);
      EXPECT_EQ(countOps(g, OpKind::Add), 1u);
    };
    EXPECT_TRUE(jitMatchesInterpreter(build, check));
  }
}

} // namespace
} // namespace kiln
