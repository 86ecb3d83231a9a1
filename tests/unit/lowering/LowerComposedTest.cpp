//===- LowerComposedTest.cpp - Ops lowered to several primitives ----------===//
//
// 3-D Conv, LRN, CumSum, the recurrent ops and (de)quantization become
// graphs of primitives. Each is checked against the op itself: the
// reference interpreter runs the unlowered op from its own definition.
//
//===----------------------------------------------------------------------===//

#include "compiler/interpreter/Interpreter.h"
#include "compiler/lowering/Lowering.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

namespace kiln {
namespace {

using namespace test;

/// Lowers `g` to primitives only, expecting a change.
void lowerToPrimitives(Graph &g) {
  auto changed = lowerGraph(g);
  ASSERT_TRUE(bool(changed)) << llvm::toString(changed.takeError());
  EXPECT_TRUE(*changed);
  llvm::Error err = checkLowered(g);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
}

/// Lowers a graph built by `build` and compares it with the original.
void expectLoweringEquivalent(const GraphBuilder &build, double rtol = 1e-5) {
  auto ref = buildGraph(build), g = buildGraph(build);
  lowerToPrimitives(*g);
  EXPECT_TRUE(equivalent(*ref, *g, 1, rtol));
  EXPECT_TRUE(equivalent(*ref, *g, 2, rtol));
}

struct Conv3DCase {
  Shape x, w;
  Shape strides, dilations, pads;
  int64_t group;
  bool bias;
  const char *autoPad = "NOTSET";
};

class LowerConv3D : public ::testing::TestWithParam<Conv3DCase> {};

TEST_P(LowerConv3D, MatchesTheDirectConvolution) {
  const Conv3DCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    llvm::SmallVector<Value *, 3> in{g.addInput("x", f32(c.x)),
                                     randomConstant(g, "w", c.w)};
    if (c.bias)
      in.push_back(randomConstant(g, "b", {c.w[0]}));
    AttrMap attrs{{"strides", Attr::ofInts(c.strides)},
                  {"dilations", Attr::ofInts(c.dilations)},
                  {"group", Attr::ofInt(c.group)},
                  {"auto_pad", Attr::ofString(c.autoPad)}};
    if (!c.pads.empty())
      attrs["pads"] = Attr::ofInts(c.pads);
    g.addOutput("y", addNode(g, OpKind::Conv, "conv", in, attrs)->getOutput());
  };
  expectLoweringEquivalent(build);
  auto g = buildGraph(build);
  lowerToPrimitives(*g);
  for (const Node *n : g->getNodes()) {
    if (n->is(OpKind::Conv)) {
      EXPECT_EQ(n->getInput(0)->getType().rank(), 4u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Geometries, LowerConv3D,
                         ::testing::Values(Conv3DCase{{1, 2, 4, 5, 5},
                                                      {3, 2, 3, 3, 3},
                                                      {1, 1, 1},
                                                      {1, 1, 1},
                                                      {0, 0, 0, 0, 0, 0},
                                                      1,
                                                      true},
                                           Conv3DCase{{2, 2, 6, 5, 4},
                                                      {4, 2, 3, 2, 2},
                                                      {2, 1, 2},
                                                      {1, 1, 1},
                                                      {1, 0, 1, 1, 1, 0},
                                                      1,
                                                      false},
                                           Conv3DCase{{1, 4, 7, 6, 6},
                                                      {4, 2, 2, 3, 3},
                                                      {1, 2, 1},
                                                      {2, 1, 2},
                                                      {1, 1, 1, 0, 1, 1},
                                                      2,
                                                      true},
                                           Conv3DCase{{1, 3, 5, 5, 5},
                                                      {2, 3, 3, 3, 3},
                                                      {2, 2, 2},
                                                      {1, 1, 1},
                                                      {},
                                                      1,
                                                      true,
                                                      "SAME_UPPER"}));

TEST(LowerLRN, MatchesTheWindowedSum) {
  expectLoweringEquivalent([](Graph &g) {
    Value *x = g.addInput("x", f32({2, 7, 3, 3}));
    g.addOutput("y", addNode(g, OpKind::LRN, "lrn", {x},
                             {{"size", Attr::ofInt(4)},
                              {"alpha", Attr::ofFloat(0.01f)},
                              {"beta", Attr::ofFloat(0.6f)},
                              {"bias", Attr::ofFloat(1.5f)}})
                         ->getOutput());
  });
}

class LowerCumSum
    : public ::testing::TestWithParam<std::tuple<int64_t, bool, bool>> {};

TEST_P(LowerCumSum, MatchesTheRunningSum) {
  auto [axis, exclusive, reverse] = GetParam();
  expectLoweringEquivalent([&](Graph &g) {
    Value *x = g.addInput("x", f32({3, 5, 4}));
    g.addOutput("y", addNode(g, OpKind::CumSum, "cumsum", {x},
                             {{"axis", Attr::ofInt(axis)},
                              {"exclusive", Attr::ofInt(exclusive)},
                              {"reverse", Attr::ofInt(reverse)}})
                         ->getOutput());
  });
}

INSTANTIATE_TEST_SUITE_P(AxesAndModes, LowerCumSum,
                         ::testing::Combine(::testing::Values(0, 1, -1),
                                            ::testing::Bool(),
                                            ::testing::Bool()));

class LowerRecurrent
    : public ::testing::TestWithParam<std::tuple<OpKind, const char *>> {};

TEST_P(LowerRecurrent, MatchesTheRecurrence) {
  auto [kind, direction] = GetParam();
  int64_t gates = kind == OpKind::LSTM ? 4 : kind == OpKind::GRU ? 3 : 1;
  int64_t dirs = llvm::StringRef(direction) == "bidirectional" ? 2 : 1;
  int64_t seq = 4, batch = 2, input = 3, hidden = 5;
  expectLoweringEquivalent(
      [&](Graph &g) {
        Value *x = g.addInput("x", f32({seq, batch, input}));
        Value *w = randomConstant(g, "w", {dirs, gates * hidden, input});
        Value *r = randomConstant(g, "r", {dirs, gates * hidden, hidden});
        Value *b = randomConstant(g, "b", {dirs, 2 * gates * hidden});
        Node *n = addNode(g, kind, "rnn", {x, w, r, b},
                          {{"hidden_size", Attr::ofInt(hidden)},
                           {"direction", Attr::ofString(direction)}});
        g.addOutput("y", n->getOutput(0));
        g.addOutput("y_h", n->getOutput(1));
      },
      1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    KindsAndDirections, LowerRecurrent,
    ::testing::Combine(
        ::testing::Values(OpKind::RNN, OpKind::GRU, OpKind::LSTM),
        ::testing::Values("forward", "reverse", "bidirectional")));

/// TFLite's cell clip (kiln.cell_clip) bounds the cell state after each
/// update, in the interpreter and in the unrolled steps alike.
TEST(LowerRecurrent, LSTMCellClip) {
  const int64_t seq = 5, batch = 2, input = 3, hidden = 4;
  auto build = [&](std::optional<float> cellClip) {
    return [=](Graph &g) {
      Value *x = g.addInput("x", f32({batch, seq, input}));
      AttrMap attrs{{"hidden_size", Attr::ofInt(hidden)}, {"layout", Attr::ofInt(1)}};
      if (cellClip)
        attrs["kiln.cell_clip"] = Attr::ofFloat(*cellClip);
      // Weights up to 3 drive the cell state past 0.2 within a few steps.
      Node *n = addNode(g, OpKind::LSTM, "lstm",
                        {x, g.addConstant("w", randomTensor(f32({1, 4 * hidden, input}), 1, -3, 3)),
                         g.addConstant("r", randomTensor(f32({1, 4 * hidden, hidden}), 2, -3, 3))},
                        std::move(attrs));
      g.addOutput("y", n->getOutput(0));
      g.addOutput("c", n->getOutput(2));
    };
  };
  expectLoweringEquivalent(build(0.2f), 1e-4);
  auto clipped = buildGraph(build(0.2f)), free = buildGraph(build(std::nullopt));
  Tensor in = randomTensor(f32({batch, seq, input}), 3, -2, 2);
  auto c = runGraph(*clipped, {in}), u = runGraph(*free, {in});
  ASSERT_TRUE(c && u);
  for (float v : (*c)[1].values<float>())
    EXPECT_LE(std::fabs(v), 0.2f);
  llvm::ArrayRef<float> unclipped = (*u)[1].values<float>();
  EXPECT_TRUE(llvm::any_of(unclipped, [](float v) { return std::fabs(v) > 0.2f; }));
}

/// A long sequence's step results are joined by Concats of at most 33
/// inputs (one Concat kernel of a thousand copies took LLVM quadratic time),
/// and the result is the same recurrence. The groups are joined by a Concat
/// of Concats only (no lone step, whose Reshape would keep ElideConcat from
/// making the groups slices of the whole): 70 steps are 32 + 32 + 6, 65 are
/// 32 + 33.
class LowerRecurrentLong : public ::testing::TestWithParam<int64_t> {};

TEST_P(LowerRecurrentLong, JoinsStepsInGroups) {
  const int64_t seq = GetParam(), batch = 1, input = 3, hidden = 4;
  auto build = [&](Graph &g) {
    Value *x = g.addInput("x", f32({seq, batch, input}));
    Node *n = addNode(g, OpKind::GRU, "gru",
                      {x, randomConstant(g, "w", {2, 3 * hidden, input}),
                       randomConstant(g, "r", {2, 3 * hidden, hidden})},
                      {{"hidden_size", Attr::ofInt(hidden)},
                       {"direction", Attr::ofString("bidirectional")}});
    g.addOutput("y", n->getOutput(0));
  };
  expectLoweringEquivalent(build, 1e-4);
  auto g = buildGraph(build);
  ASSERT_TRUE(static_cast<bool>(lowerGraph(*g)));
  size_t joins = 0;
  for (const Node *n : g->getNodes()) {
    if (!n->is(OpKind::Concat))
      continue;
    EXPECT_LE(n->getNumInputs(), 33u);
    auto isConcat = [](const Value *v) { return v->getProducer()->is(OpKind::Concat); };
    if (llvm::any_of(n->getInputs(), isConcat)) {
      ++joins;
      EXPECT_TRUE(llvm::all_of(n->getInputs(), isConcat));
    }
  }
  // One join of groups per direction, then Y's join of the two directions.
  EXPECT_EQ(joins, 3u);
}

INSTANTIATE_TEST_SUITE_P(Steps, LowerRecurrentLong, ::testing::Values(70, 65));

/// Each time step becomes kernels of its own, so the steps over all
/// directions are held to ResourceLimits::maxUnrolledSteps.
TEST(LowerRecurrentLimit, StepsOverTheLimitAreAnError) {
  auto lowerWithLimit = [](uint64_t maxSteps) {
    Graph g;
    ResourceLimits limits;
    limits.maxUnrolledSteps = maxSteps;
    g.setLimits(limits);
    int64_t hidden = 2;
    Value *x = g.addInput("x", f32({3, 1, 2}));
    Value *w = randomConstant(g, "w", {2, 3 * hidden, 2});
    Value *r = randomConstant(g, "r", {2, 3 * hidden, hidden});
    Node *n = addNode(g, OpKind::GRU, "gru", {x, w, r},
                      {{"hidden_size", Attr::ofInt(hidden)},
                       {"direction", Attr::ofString("bidirectional")}});
    g.addOutput("y", n->getOutput(0));
    auto changed = lowerGraph(g);
    return changed ? std::string() : llvm::toString(changed.takeError());
  };
  EXPECT_EQ(lowerWithLimit(5), "node 'gru' (GRU): 3 time steps x 2 directions to unroll, over "
                               "the limit of 5 (--max-unrolled-steps)");
  EXPECT_EQ(lowerWithLimit(6), "");
}

TEST(LowerQuantization, QuantizeThenDequantizeMatch) {
  expectLoweringEquivalent([](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4}));
    Value *scale = constantF32(g, "scale", {3}, {0.01f, 0.02f, 0.005f});
    Tensor zp(TensorType(DType::I8, {3}));
    zp.data<int8_t>()[0] = 3;
    zp.data<int8_t>()[1] = -7;
    zp.data<int8_t>()[2] = 0;
    Value *zeroPoint = g.addConstant("zero_point", std::move(zp));
    Node *q = addNode(g, OpKind::QuantizeLinear, "q", {x, scale, zeroPoint},
                      {{"axis", Attr::ofInt(1)}});
    Node *dq =
        addNode(g, OpKind::DequantizeLinear, "dq",
                {q->getOutput(), scale, zeroPoint}, {{"axis", Attr::ofInt(1)}});
    g.addOutput("q", q->getOutput());
    g.addOutput("y", dq->getOutput());
  });
}

} // namespace
} // namespace kiln
