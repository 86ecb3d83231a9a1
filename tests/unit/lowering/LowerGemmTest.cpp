//===- LowerGemmTest.cpp - Gemm -> MatMul and elementwise ops -------------===//

#include "compiler/lowering/Lowering.h"
#include "compiler/pipeline/PassRegistry.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

enum class Operand { Constant, Input };

struct GemmCase {
  const char *name;
  bool transA, transB;
  float alpha, beta;
  /// C's shape; empty for no C.
  Shape cShape;
  Operand b, c;
};

/// A (3x5, or 5x3 with transA) x B (5x4, or 4x5 with transB) + C.
GraphBuilder gemmGraph(const GemmCase &c) {
  return [c](Graph &g) {
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
}

class LowerGemm : public ::testing::TestWithParam<GemmCase> {};

TEST_P(LowerGemm, BecomesPrimitivesWithTheSameResult) {
  const GemmCase &c = GetParam();
  auto ref = buildGraph(gemmGraph(c)), g = buildGraph(gemmGraph(c));
  auto changed = lowerGraph(*g);
  ASSERT_TRUE(bool(changed)) << llvm::toString(changed.takeError());
  EXPECT_TRUE(*changed);
  EXPECT_FALSE(bool(checkLowered(*g)));
  EXPECT_EQ(countOps(*g, OpKind::Gemm), 0u);
  Node *mm = findOnly(*g, OpKind::MatMul);
  ASSERT_TRUE(mm);
  // The MatMul stands for the Gemm and keeps its name.
  EXPECT_EQ(mm->getName(), "gemm");
  // Transposes of constants are done on the data; of inputs, by a node.
  unsigned nonConstTransposes =
      unsigned(c.transA) + unsigned(c.transB && c.b == Operand::Input);
  EXPECT_EQ(countOps(*g, OpKind::Transpose), nonConstTransposes);
  // alpha lands in constant weights, else in a Mul; likewise beta and C.
  unsigned muls = unsigned(c.alpha != 1.0f && c.b == Operand::Input) +
                  unsigned(!c.cShape.empty() && c.beta != 1.0f &&
                           c.beta != 0.0f && c.c == Operand::Input);
  EXPECT_EQ(countOps(*g, OpKind::Mul), muls);
  EXPECT_EQ(countOps(*g, OpKind::Add),
            unsigned(!c.cShape.empty() && c.beta != 0.0f));
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_TRUE(equivalent(*ref, *g));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LowerGemm,
    ::testing::Values(
        GemmCase{"Plain",
                 false,
                 false,
                 1,
                 1,
                 {4},
                 Operand::Constant,
                 Operand::Constant},
        GemmCase{"TransBConstant",
                 false,
                 true,
                 1,
                 1,
                 {1, 4},
                 Operand::Constant,
                 Operand::Constant},
        GemmCase{"TransAll",
                 true,
                 true,
                 1,
                 1,
                 {3, 4},
                 Operand::Input,
                 Operand::Constant},
        GemmCase{"AlphaIntoWeights",
                 false,
                 true,
                 0.5f,
                 1,
                 {4},
                 Operand::Constant,
                 Operand::Constant},
        GemmCase{"AlphaAsMul",
                 false,
                 false,
                 2.0f,
                 1,
                 {4},
                 Operand::Input,
                 Operand::Constant},
        GemmCase{"BetaIntoC",
                 false,
                 false,
                 1,
                 0.25f,
                 {3, 1},
                 Operand::Constant,
                 Operand::Constant},
        GemmCase{"BetaAsMul",
                 true,
                 false,
                 1.5f,
                 3.0f,
                 {4},
                 Operand::Constant,
                 Operand::Input},
        GemmCase{"BetaZeroDropsC",
                 false,
                 false,
                 1,
                 0,
                 {4},
                 Operand::Constant,
                 Operand::Constant},
        GemmCase{
            "NoC", false, true, 1, 1, {}, Operand::Input, Operand::Constant}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(LowerGemm, FullPipelineMakesOneBiasedMatMul) {
  GemmCase c{"", false, true, 1, 1, {4}, Operand::Constant, Operand::Constant};
  auto ref = buildGraph(gemmGraph(c)), g = buildGraph(gemmGraph(c));
  for (llvm::StringRef name :
       {"lower", "constant-folding", "fuse-matmul-bias", "dce"}) {
    auto pass = createPass(name);
    ASSERT_TRUE(bool(pass));
    runPass(**pass, *g);
  }
  ASSERT_EQ(g->getNumNodes(), 1u);
  Node *mm = g->getNodes()[0];
  EXPECT_TRUE(mm->is(OpKind::MatMul));
  EXPECT_EQ(mm->getNumInputs(), 3u);
  EXPECT_EQ(mm->getInput(1)->getType(), f32({5, 4}));
  EXPECT_EQ(g->getConstants().size(), 2u);
  EXPECT_TRUE(equivalent(*ref, *g));
}

} // namespace
} // namespace kiln
