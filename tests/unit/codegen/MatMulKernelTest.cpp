//===- MatMulKernelTest.cpp - MatMul, Gemm, fused bias and activation -----===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

enum class Operand { Constant, Input };

struct MatMulCase {
  const char *name;
  Shape a, b;
  Operand bKind = Operand::Input;
};

class MatMulKernel : public ::testing::TestWithParam<MatMulCase> {};

GraphBuilder matMulGraph(const MatMulCase &c) {
  return [c](Graph &g) {
    Value *a = g.addInput("a", f32(c.a));
    Value *b = c.bKind == Operand::Constant ? randomConstant(g, "b", c.b)
                                            : g.addInput("b", f32(c.b));
    Node *mm = addNode(g, OpKind::MatMul, "mm", {a, b});
    g.addOutput("y", mm->getOutput());
  };
}

TEST_P(MatMulKernel, MatchesTheInterpreter) {
  EXPECT_TRUE(jitMatchesInterpreter(matMulGraph(GetParam())));
}

/// Tiles of at most 6 registers (lir::matMulRegisterTile): fewer rows and
/// vectors than the host's own, as the strategy gives them.
TEST_P(MatMulKernel, MatchesTheInterpreterInTilesOfSixRegisters) {
  JitCheck check;
  check.lir.vectorRegisters = 6;
  EXPECT_TRUE(jitMatchesInterpreter(matMulGraph(GetParam()), check));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MatMulKernel,
    ::testing::Values(
        MatMulCase{"Square", {4, 4}, {4, 4}},
        MatMulCase{"Rect", {3, 5}, {5, 7}},
        MatMulCase{"OddSizes", {17, 33}, {33, 19}},
        MatMulCase{"InnerDimOne", {3, 1}, {1, 4}},
        MatMulCase{"LongInnerDim", {8, 512}, {512, 8}, Operand::Constant},
        MatMulCase{"RowVector", {1, 64}, {64, 10}, Operand::Constant},
        MatMulCase{"ColumnResult", {6, 8}, {8, 1}},
        MatMulCase{"Batched3D", {2, 3, 4}, {2, 4, 5}},
        MatMulCase{"Batched4D", {2, 3, 4, 5}, {2, 3, 5, 2}},
        MatMulCase{"BroadcastBatch", {2, 1, 3, 4}, {5, 4, 6}},
        MatMulCase{"BroadcastBothWays", {3, 1, 2, 4}, {1, 2, 4, 3}},
        MatMulCase{"MatrixTimesBatch", {3, 4}, {2, 4, 5}},
        MatMulCase{"BatchTimesConstantMatrix", {2, 3, 4}, {4, 5}, Operand::Constant},
        // One product of the batch's rows: B has no batch, or only ones.
        MatMulCase{"RowBatchTimesMatrix", {19, 1, 24}, {24, 40}, Operand::Constant},
        MatMulCase{"BatchTimesBatchOfOnes", {2, 3, 5, 8}, {1, 1, 8, 6}},
        MatMulCase{"RowBatchTimesVector", {5, 1, 4}, {4}},
        MatMulCase{"VectorTimesMatrix", {4}, {4, 5}},
        MatMulCase{"MatrixTimesVector", {3, 4}, {4}},
        MatMulCase{"VectorTimesVector", {7}, {7}},
        MatMulCase{"VectorTimesBatch", {4}, {2, 4, 5}},
        MatMulCase{"BatchTimesVector", {2, 3, 4}, {4}},
        // A constant B of 256 columns or more, packed in strips of the
        // tile's columns (lir::Packing::MatMulStrips), the last one partial.
        MatMulCase{"StripsRowVector", {1, 40}, {40, 300}, Operand::Constant},
        MatMulCase{"StripsRows", {13, 24}, {24, 520}, Operand::Constant},
        MatMulCase{"StripsBatchTimesMatrix", {2, 3, 16}, {16, 257}, Operand::Constant},
        // 1 MB of B and one row block: each tile prefetches the next strip,
        // the last ones the strip that ends B.
        MatMulCase{"StripsPrefetched", {10, 512}, {512, 520}, Operand::Constant}),
    [](const auto &info) { return std::string(info.param.name); });

/// A tied weight exported once per reader: after the passes both MatMuls
/// read one B, packed in strips once for both.
TEST(TiedMatMulWeights, MatchTheInterpreter) {
  GraphBuilder build = [](Graph &g) {
    Value *b = randomConstant(g, "b", {24, 300});
    Value *copy = g.addConstant("b_copy", b->getConstant());
    Value *a1 = g.addInput("a1", f32({13, 24}));
    Value *a2 = g.addInput("a2", f32({13, 24}));
    g.addOutput("y1", addNode(g, OpKind::MatMul, "mm1", {a1, b})->getOutput());
    g.addOutput("y2", addNode(g, OpKind::MatMul, "mm2", {a2, copy})->getOutput());
  };
  JitCheck check;
  check.expectGraph = [](const Graph &g) { EXPECT_EQ(g.getConstants().size(), 1u); };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

//===----------------------------------------------------------------------===//
// Gemm, lowered to MatMul (+ Transpose, Mul, Add)
//===----------------------------------------------------------------------===//

struct GemmCase {
  const char *name;
  bool transA, transB;
  float alpha, beta;
  /// C's shape; empty for no C.
  Shape cShape;
  Operand b = Operand::Constant, c = Operand::Constant;
};

class GemmKernel : public ::testing::TestWithParam<GemmCase> {};

/// A (3x5, or 5x3 with transA) x B (5x4, or 4x5 with transB) + C.
TEST_P(GemmKernel, MatchesTheInterpreter) {
  const GemmCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *a = g.addInput("a", f32(c.transA ? Shape{5, 3} : Shape{3, 5}));
    Shape bShape = c.transB ? Shape{4, 5} : Shape{5, 4};
    Value *b = c.b == Operand::Constant ? randomConstant(g, "b", bShape)
                                        : g.addInput("b", f32(bShape));
    llvm::SmallVector<Value *, 3> inputs{a, b};
    if (!c.cShape.empty())
      inputs.push_back(c.c == Operand::Constant
                           ? randomConstant(g, "c", c.cShape)
                           : g.addInput("c", f32(c.cShape)));
    Node *gemm = addNode(g, OpKind::Gemm, "gemm", inputs,
                         {{"transA", Attr::ofInt(c.transA)},
                          {"transB", Attr::ofInt(c.transB)},
                          {"alpha", Attr::ofFloat(c.alpha)},
                          {"beta", Attr::ofFloat(c.beta)}});
    g.addOutput("y", gemm->getOutput());
  };
  JitCheck check;
  check.expectGraph = [](const Graph &g) {
    EXPECT_EQ(countOps(g, OpKind::Gemm), 0u);
    EXPECT_EQ(countOps(g, OpKind::MatMul), 1u);
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

INSTANTIATE_TEST_SUITE_P(
    Attributes, GemmKernel,
    ::testing::Values(
        GemmCase{"Plain", false, false, 1.0f, 1.0f, {4}},
        GemmCase{"NoC", false, false, 1.0f, 1.0f, {}},
        GemmCase{"TransA", true, false, 1.0f, 1.0f, {4}},
        GemmCase{"TransB", false, true, 1.0f, 1.0f, {4}},
        GemmCase{"TransAB", true, true, 1.0f, 1.0f, {4}},
        GemmCase{"AlphaBeta", false, false, 0.5f, 2.0f, {4}},
        GemmCase{"BetaZeroIgnoresC", false, false, 1.0f, 0.0f, {4}},
        GemmCase{"CColumn", false, false, 1.0f, 1.0f, {3, 1}},
        GemmCase{"CFull", false, true, 1.0f, -1.0f, {3, 4}},
        GemmCase{"CRow2D", false, false, 1.0f, 1.0f, {1, 4}},
        GemmCase{"CScalar", false, false, 1.0f, 1.0f, {1}},
        GemmCase{"BInputTransB", false, true, 1.0f, 1.0f, {4}, Operand::Input},
        GemmCase{"BInputAlpha", true, true, 1.5f, 0.5f, {3, 4}, Operand::Input,
                 Operand::Input},
        GemmCase{"CInputBeta", false, false, 1.0f, 3.0f, {1, 4},
                 Operand::Constant, Operand::Input}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// Fully-connected epilogue: bias (fuse-matmul-bias) and activation
//===----------------------------------------------------------------------===//

struct EpilogueCase {
  const char *name;
  OpKind act; ///< OpKind::MatMul for none
  AttrMap attrs;
};

class MatMulEpilogue : public ::testing::TestWithParam<EpilogueCase> {};

TEST_P(MatMulEpilogue, MatchesTheInterpreter) {
  const EpilogueCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32({5, 12}));
    Node *mm = addNode(g, OpKind::MatMul, "mm",
                       {x, randomConstant(g, "w", {12, 9})});
    Node *add = addNode(g, OpKind::Add, "bias",
                        {mm->getOutput(), randomConstant(g, "b", {9})});
    Value *y = add->getOutput();
    if (c.act != OpKind::MatMul)
      y = addNode(g, c.act, "act", {y}, c.attrs)->getOutput();
    g.addOutput("y", y);
  };
  JitCheck check;
  check.lo = -3.0f;
  check.hi = 3.0f;
  check.expectGraph = [&](const Graph &g) {
    ASSERT_EQ(g.getNumNodes(), 1u);
    const Node *mm = g.getNodes()[0];
    EXPECT_EQ(mm->getNumInputs(), 3u);
    EXPECT_EQ(mm->getActivation("kiln.activation").getName(),
              c.act == OpKind::MatMul ? "None" : c.name);
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

/// GELU as PyTorch exports it (Div, Erf, Add, Mul, Mul) runs as the
/// MatMul's epilogue; a wide product so that full and partial vectors and
/// several tiles go through it.
TEST(MatMulEpilogue, ExportedGeluMatchesTheInterpreter) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 19, 24}));
    Node *mm = addNode(g, OpKind::MatMul, "mm", {x, randomConstant(g, "w", {24, 45})});
    Value *y = addNode(g, OpKind::Add, "bias", {mm->getOutput(), randomConstant(g, "b", {45})})
                   ->getOutput();
    g.addOutput("y", addExportedGelu(g, y, "gelu"));
  };
  JitCheck check;
  check.lo = -3.0f;
  check.hi = 3.0f;
  check.expectGraph = [](const Graph &g) {
    ASSERT_EQ(g.getNumNodes(), 1u);
    EXPECT_EQ(g.getNodes()[0]->getActivation("kiln.activation").getName(), "Gelu");
  };
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

INSTANTIATE_TEST_SUITE_P(
    Activations, MatMulEpilogue,
    ::testing::Values(
        EpilogueCase{"BiasOnly", OpKind::MatMul, {}},
        EpilogueCase{"Relu", OpKind::Relu, {}},
        EpilogueCase{"LeakyRelu", OpKind::LeakyRelu, {{"alpha", Attr::ofFloat(0.3f)}}},
        EpilogueCase{"Clip", OpKind::Clip,
                     {{"min", Attr::ofFloat(0.0f)}, {"max", Attr::ofFloat(1.0f)}}},
        EpilogueCase{"Sigmoid", OpKind::Sigmoid, {}},
        EpilogueCase{"Tanh", OpKind::Tanh, {}},
        EpilogueCase{"HardSwish", OpKind::HardSwish, {}}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace kiln
