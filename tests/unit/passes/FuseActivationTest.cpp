//===- FuseActivationTest.cpp ---------------------------------------------===//

#include "compiler/passes/Passes.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

struct ActivationCase {
  OpKind op;
  const char *name;
  AttrMap attrs;
  std::vector<float> params;
};

class FuseActivationInto : public ::testing::TestWithParam<ActivationCase> {};

TEST_P(FuseActivationInto, Conv) {
  const ActivationCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32({1, 3, 5, 5}));
    Value *w = randomConstant(g, "w", {4, 3, 3, 3});
    Value *b = randomConstant(g, "b", {4});
    Node *conv = addNode(g, OpKind::Conv, "conv", {x, w, b});
    Node *act = addNode(g, c.op, "act", {conv->getOutput()}, c.attrs);
    g.addOutput("y", act->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto pass = createFuseActivationPass();
  EXPECT_TRUE(runPass(*pass, *g));
  ASSERT_EQ(g->getNumNodes(), 1u);
  Node *conv = g->getNodes()[0];
  EXPECT_EQ(conv->getActivation("kiln.activation").getName(), c.name);
  EXPECT_EQ(conv->getActivation("kiln.activation").getParams(),
            llvm::ArrayRef<float>(c.params));
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_EQ(g->getOutputs()[0].value, conv->getOutput());
  EXPECT_TRUE(equivalent(*ref, *g));
  EXPECT_FALSE(runPass(*pass, *g));
}

TEST_P(FuseActivationInto, MatMul) {
  const ActivationCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32({2, 6}));
    Value *w = randomConstant(g, "w", {6, 3});
    Value *b = randomConstant(g, "b", {3});
    Node *mm = addNode(g, OpKind::MatMul, "mm", {x, w, b});
    Node *act = addNode(g, c.op, "act", {mm->getOutput()}, c.attrs);
    g.addOutput("y", act->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  EXPECT_TRUE(runPass(*createFuseActivationPass(), *g));
  ASSERT_EQ(g->getNumNodes(), 1u);
  EXPECT_EQ(g->getNodes()[0]->getActivation("kiln.activation").getName(), c.name);
  EXPECT_TRUE(equivalent(*ref, *g));
}

INSTANTIATE_TEST_SUITE_P(
    Activations, FuseActivationInto,
    ::testing::Values(ActivationCase{OpKind::Relu, "Relu", {}, {}},
                      ActivationCase{OpKind::LeakyRelu,
                                     "LeakyRelu",
                                     {{"alpha", Attr::ofFloat(0.2f)}},
                                     {0.2f}},
                      ActivationCase{OpKind::Clip,
                                     "Clip",
                                     {{"min", Attr::ofFloat(-0.25f)},
                                      {"max", Attr::ofFloat(0.5f)}},
                                     {-0.25f, 0.5f}},
                      ActivationCase{OpKind::Sigmoid, "Sigmoid", {}, {}},
                      ActivationCase{OpKind::Tanh, "Tanh", {}, {}},
                      ActivationCase{OpKind::HardSwish, "HardSwish", {}, {}}),
    [](const auto &info) { return std::string(info.param.name); });

/// Exporters write SiLU as x * Sigmoid(x), in either operand order.
TEST(FuseActivation, SigmoidTimesItsInputIsSiLU) {
  for (bool sigmoidFirst : {false, true}) {
    GraphBuilder build = [&](Graph &g) {
      Value *x = g.addInput("x", f32({1, 3, 5, 5}));
      Node *conv = addNode(g, OpKind::Conv, "conv",
                           {x, randomConstant(g, "w", {4, 3, 3, 3})});
      Value *c = conv->getOutput();
      Value *s = addNode(g, OpKind::Sigmoid, "sig", {c})->getOutput();
      Node *mul = addNode(g, OpKind::Mul, "silu",
                          sigmoidFirst ? llvm::ArrayRef<Value *>{s, c}
                                       : llvm::ArrayRef<Value *>{c, s});
      g.addOutput("y", mul->getOutput());
    };
    auto ref = buildGraph(build), g = buildGraph(build);
    EXPECT_TRUE(runPass(*createFuseActivationPass(), *g));
    ASSERT_EQ(g->getNumNodes(), 1u);
    EXPECT_EQ(g->getNodes()[0]->getActivation("kiln.activation").getName(), "SiLU");
    EXPECT_TRUE(equivalent(*ref, *g));
  }
}

/// PyTorch exports GELU as Div, Erf, Add, Mul, Mul: one activation.
TEST(FuseActivation, ExportedGeluIsGelu) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({3, 8}));
    Value *mm = addNode(g, OpKind::MatMul, "mm", {x, randomConstant(g, "w", {8, 5})})
                    ->getOutput();
    g.addOutput("y", addExportedGelu(g, mm, "gelu"));
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  EXPECT_TRUE(runPass(*createFuseActivationPass(), *g));
  ASSERT_EQ(g->getNumNodes(), 1u);
  EXPECT_EQ(g->getNodes()[0]->getActivation("kiln.activation").getName(), "Gelu");
  EXPECT_TRUE(equivalent(*ref, *g));
}

/// GELU's tanh form as PyTorch exports it (approximate='tanh', before
/// opset 20): x * (x * x), 0.044715, Add x, sqrt(2 / pi), Tanh, Add 1, Mul x,
/// Mul 0.5, constants first; `cubed` stands for x in the cube where given.
Value *addExportedTanhGelu(Graph &g, Value *x, Value *cubed = nullptr) {
  auto mul = [&](const char *name, Value *a, Value *b) {
    return addNode(g, OpKind::Mul, name, {a, b})->getOutput();
  };
  auto add = [&](const char *name, Value *a, Value *b) {
    return addNode(g, OpKind::Add, name, {a, b})->getOutput();
  };
  Value *c = cubed ? cubed : x;
  Value *cube = mul("cube", c, mul("square", c, c));
  Value *inner = add("inner", x, mul("cubic", constantF32(g, "kappa", {}, {0.044715f}), cube));
  Value *t = addNode(g, OpKind::Tanh, "tanh",
                     {mul("scaled", constantF32(g, "beta", {}, {0.7978845834732056f}), inner)})
                 ->getOutput();
  Value *product = mul("product", x, add("one_plus", constantF32(g, "one", {}, {1.0f}), t));
  return mul("half", constantF32(g, "half_c", {}, {0.5f}), product);
}

TEST(FuseActivation, ExportedTanhGeluIsGeluTanh) {
  auto build = [](bool cubeOfAnother) {
    return [=](Graph &g) {
      Value *x = g.addInput("x", f32({3, 8}));
      Value *mm = addNode(g, OpKind::MatMul, "mm", {x, randomConstant(g, "w", {8, 5})})
                      ->getOutput();
      Value *other =
          cubeOfAnother ? addNode(g, OpKind::Relu, "relu", {mm})->getOutput() : nullptr;
      g.addOutput("y", addExportedTanhGelu(g, mm, other));
    };
  };
  auto ref = buildGraph(build(false)), g = buildGraph(build(false));
  EXPECT_TRUE(runPass(*createFuseActivationPass(), *g));
  ASSERT_EQ(g->getNumNodes(), 1u);
  EXPECT_EQ(g->getNodes()[0]->getActivation("kiln.activation").getName(), "GeluTanh");
  EXPECT_TRUE(equivalent(*ref, *g));
  // The cube of another value than the one the curve multiplies: no fusion.
  auto other = buildGraph(build(true));
  EXPECT_FALSE(runPass(*createFuseActivationPass(), *other));
}

/// The MatMul's result read outside the pattern too: nothing fuses.
TEST(FuseActivation, GeluNeedsItsInputToItself) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({3, 8}));
    Value *mm = addNode(g, OpKind::MatMul, "mm", {x, randomConstant(g, "w", {8, 5})})
                    ->getOutput();
    g.addOutput("y", addExportedGelu(g, mm, "gelu"));
    g.addOutput("z", addNode(g, OpKind::Relu, "relu", {mm})->getOutput());
  });
  EXPECT_FALSE(runPass(*createFuseActivationPass(), *g));
}

TEST(FuseActivation, SiLUNeedsTheSigmoidOfTheSameValue) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({1, 3, 5, 5}));
    Value *c = addNode(g, OpKind::Conv, "conv",
                       {x, randomConstant(g, "w", {4, 3, 3, 3})})
                   ->getOutput();
    Value *other = g.addInput("z", f32({1, 4, 3, 3}));
    Value *s = addNode(g, OpKind::Sigmoid, "sig", {other})->getOutput();
    g.addOutput("y", addNode(g, OpKind::Mul, "mul", {c, s})->getOutput());
    // The Sigmoid's input also feeds a second user: no fusion either.
    Value *s2 = addNode(g, OpKind::Sigmoid, "sig2", {c})->getOutput();
    g.addOutput("y2", addNode(g, OpKind::Mul, "mul2", {c, s2})->getOutput());
  });
  EXPECT_FALSE(runPass(*createFuseActivationPass(), *g));
}

} // namespace
} // namespace kiln
