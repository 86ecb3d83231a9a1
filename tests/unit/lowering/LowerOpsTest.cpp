//===- LowerOpsTest.cpp - BatchNorm, pooling, data movement ---------------===//

#include "compiler/lowering/Lowering.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

/// Lowers `g`, expecting success and a change.
void lower(Graph &g) {
  auto changed = lowerGraph(g);
  ASSERT_TRUE(bool(changed)) << llvm::toString(changed.takeError());
  EXPECT_TRUE(*changed);
  llvm::Error err = checkLowered(g);
  EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
}

class LowerBatchNorm : public ::testing::TestWithParam<Shape> {};

TEST_P(LowerBatchNorm, BecomesMulAndAdd) {
  Shape shape = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32(shape));
    int64_t c = shape[1];
    Node *bn =
        addNode(g, OpKind::BatchNormalization, "bn",
                {x, randomConstant(g, "scale", {c}),
                 randomConstant(g, "bias", {c}), randomConstant(g, "mean", {c}),
                 randomConstant(g, "var", {c}, 0.1f, 2.0f)});
    g.addOutput("y", bn->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  ASSERT_EQ(g->getNumNodes(), 2u);
  Node *mul = g->getNodes()[0], *add = g->getNodes()[1];
  ASSERT_TRUE(mul->is(OpKind::Mul));
  ASSERT_TRUE(add->is(OpKind::Add));
  EXPECT_EQ(mul->getName(), "bn");
  Shape constShape(shape.size() - 1, 1);
  constShape[0] = shape[1];
  EXPECT_EQ(mul->getInput(1)->getType(), f32(constShape));
  EXPECT_EQ(add->getInput(1)->getType(), f32(constShape));
  EXPECT_TRUE(equivalent(*ref, *g));
}

INSTANTIATE_TEST_SUITE_P(Ranks, LowerBatchNorm,
                         ::testing::Values(Shape{2, 3, 4, 5}, Shape{4, 3},
                                           Shape{1, 2, 7}));

TEST(LowerRuntimeBatchNorm, BecomesTheFormula) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 3, 3}));
    Value *mean = g.addInput("mean", f32({2}));
    Value *p = randomConstant(g, "p", {2}, 0.5f, 1.0f);
    Node *bn = addNode(g, OpKind::BatchNormalization, "bn", {x, p, p, mean, p});
    g.addOutput("y", bn->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  auto changed = lowerGraph(*g);
  ASSERT_TRUE(bool(changed)) << llvm::toString(changed.takeError());
  EXPECT_TRUE(*changed);
  for (const Node *n : g->getNodes())
    EXPECT_TRUE(n->getDef().isPrimitive()) << n->getOpName().str();
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(LowerGlobalAveragePool, BecomesAveragePool) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 5, 4}));
    Node *gap = addNode(g, OpKind::GlobalAveragePool, "gap", {x});
    g.addOutput("y", gap->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  Node *pool = findOnly(*g, OpKind::AveragePool);
  ASSERT_TRUE(pool);
  EXPECT_EQ(g->getNumNodes(), 1u);
  EXPECT_EQ(pool->getName(), "gap");
  EXPECT_EQ(pool->getInts("kernel_shape"), llvm::ArrayRef<int64_t>({5, 4}));
  EXPECT_EQ(pool->getInts("strides"), llvm::ArrayRef<int64_t>({1, 1}));
  EXPECT_EQ(pool->getInts("pads"), llvm::ArrayRef<int64_t>({0, 0, 0, 0}));
  EXPECT_TRUE(equivalent(*ref, *g));
}

/// Global pools of one or three spatial dimensions pool [N, C, 1, S] planes.
TEST(LowerGlobalPool, OtherRanksPoolOneRow) {
  for (OpKind op : {OpKind::GlobalAveragePool, OpKind::GlobalMaxPool})
    for (Shape x : {Shape{2, 3, 7}, Shape{1, 4, 3, 5, 2}}) {
      SCOPED_TRACE(shapeStr(x));
      GraphBuilder build = [&](Graph &g) {
        Node *gap = addNode(g, op, "gap", {g.addInput("x", f32(x))});
        g.addOutput("y", gap->getOutput());
      };
      auto ref = buildGraph(build), g = buildGraph(build);
      lower(*g);
      Node *pool = findOnly(*g, op == OpKind::GlobalMaxPool ? OpKind::MaxPool
                                                            : OpKind::AveragePool);
      ASSERT_TRUE(pool);
      int64_t size = 1;
      for (size_t d = 2; d < x.size(); ++d)
        size *= x[d];
      EXPECT_EQ(pool->getInput(0)->getType().shape, Shape({x[0], x[1], 1, size}));
      EXPECT_TRUE(equivalent(*ref, *g));
    }
}

struct WindowCase {
  const char *name;
  OpKind op;
  AttrMap attrs;
  /// Expected explicit attributes.
  Shape pads, strides;
};

class LowerWindow : public ::testing::TestWithParam<WindowCase> {};

TEST_P(LowerWindow, MakesGeometryExplicit) {
  const WindowCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 7, 6}));
    llvm::SmallVector<Value *, 2> inputs{x};
    AttrMap attrs = c.attrs;
    if (c.op == OpKind::Conv)
      inputs.push_back(randomConstant(g, "w", {3, 2, 3, 2}));
    else
      attrs["kernel_shape"] = Attr::ofInts({3, 2});
    Node *n = addNode(g, c.op, "win", inputs, attrs);
    g.addOutput("y", n->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  ASSERT_EQ(g->getNumNodes(), 1u);
  Node *n = g->getNodes()[0];
  EXPECT_EQ(n->getString("auto_pad"), "NOTSET");
  EXPECT_EQ(n->getInts("kernel_shape"), llvm::ArrayRef<int64_t>({3, 2}));
  EXPECT_EQ(n->getInts("pads"), llvm::ArrayRef<int64_t>(c.pads));
  EXPECT_EQ(n->getInts("strides"), llvm::ArrayRef<int64_t>(c.strides));
  if (c.op == OpKind::AveragePool)
    EXPECT_FALSE(n->hasAttr("dilations"));
  else
    EXPECT_EQ(n->getInts("dilations"), llvm::ArrayRef<int64_t>({1, 1}));
  EXPECT_TRUE(equivalent(*ref, *g));
  // Already explicit: a second lowering changes nothing.
  auto again = lowerGraph(*g);
  ASSERT_TRUE(bool(again));
  EXPECT_FALSE(*again);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LowerWindow,
    ::testing::Values(
        WindowCase{"ConvDefaults", OpKind::Conv, {}, {0, 0, 0, 0}, {1, 1}},
        // in 7x6, stride 2: out 4x3; total pad 2 and 0 (rows), 1 (cols).
        WindowCase{"ConvSameUpper",
                   OpKind::Conv,
                   {{"auto_pad", Attr::ofString("SAME_UPPER")},
                    {"strides", Attr::ofInts({2, 2})}},
                   {1, 0, 1, 0},
                   {2, 2}},
        WindowCase{"ConvSameLower",
                   OpKind::Conv,
                   {{"auto_pad", Attr::ofString("SAME_LOWER")}},
                   {1, 1, 1, 0},
                   {1, 1}},
        WindowCase{"ConvValid",
                   OpKind::Conv,
                   {{"auto_pad", Attr::ofString("VALID")},
                    {"strides", Attr::ofInts({2, 1})}},
                   {0, 0, 0, 0},
                   {2, 1}},
        WindowCase{"MaxPoolSameUpper",
                   OpKind::MaxPool,
                   {{"auto_pad", Attr::ofString("SAME_UPPER")},
                    {"strides", Attr::ofInts({2, 2})}},
                   {1, 0, 1, 0},
                   {2, 2}},
        WindowCase{"AveragePoolDefaults",
                   OpKind::AveragePool,
                   {},
                   {0, 0, 0, 0},
                   {1, 1}},
        WindowCase{"AveragePoolSameLower",
                   OpKind::AveragePool,
                   {{"auto_pad", Attr::ofString("SAME_LOWER")}},
                   {1, 1, 1, 0},
                   {1, 1}}),
    [](const auto &info) { return std::string(info.param.name); });

struct ReshapeCase {
  const char *name;
  OpKind op;
  AttrMap attrs;
  Shape in, out;
};

class LowerToReshape : public ::testing::TestWithParam<ReshapeCase> {};

TEST_P(LowerToReshape, BecomesReshape) {
  const ReshapeCase &c = GetParam();
  GraphBuilder build = [&](Graph &g) {
    Value *x = g.addInput("x", f32(c.in));
    Node *n = addNode(g, c.op, "shape_op", {x}, c.attrs);
    Node *relu = addNode(g, OpKind::Relu, "relu", {n->getOutput()});
    g.addOutput("y", relu->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  Node *reshape = findOnly(*g, OpKind::Reshape);
  ASSERT_TRUE(reshape);
  EXPECT_EQ(g->getNumNodes(), 2u);
  EXPECT_EQ(reshape->getName(), "shape_op");
  EXPECT_EQ(reshape->getInts("shape"), llvm::ArrayRef<int64_t>(c.out));
  EXPECT_TRUE(equivalent(*ref, *g));
}

INSTANTIATE_TEST_SUITE_P(
    Ops, LowerToReshape,
    ::testing::Values(ReshapeCase{"Flatten",
                                  OpKind::Flatten,
                                  {{"axis", Attr::ofInt(2)}},
                                  {2, 3, 4, 5},
                                  {6, 20}},
                      ReshapeCase{"Squeeze",
                                  OpKind::Squeeze,
                                  {{"axes", Attr::ofInts({1, -1})}},
                                  {2, 1, 3, 1},
                                  {2, 3}},
                      ReshapeCase{
                          "SqueezeAll", OpKind::Squeeze, {}, {1, 3, 1}, {3}},
                      ReshapeCase{"Unsqueeze",
                                  OpKind::Unsqueeze,
                                  {{"axes", Attr::ofInts({0, 3})}},
                                  {2, 3},
                                  {1, 2, 3, 1}}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(LowerForwarding, IdentityDropoutAndNoOpCastDisappear) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3}));
    Value *off = g.addConstant(
        "off", Tensor::fromValues<uint8_t>(DType::Bool, {}, {uint8_t(0)}));
    Node *id = addNode(g, OpKind::Identity, "id", {x});
    Node *relu = addNode(g, OpKind::Relu, "relu", {id->getOutput()});
    Node *drop =
        addNode(g, OpKind::Dropout, "drop", {relu->getOutput(), nullptr, off});
    Node *cast = addNode(g, OpKind::Cast, "cast", {drop->getOutput()},
                         {{"to", Attr::ofInt(int64_t(DType::F32))}});
    Node *id2 = addNode(g, OpKind::Identity, "id2", {x});
    g.addOutput("y", cast->getOutput());
    g.addOutput("passthrough", id2->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  ASSERT_EQ(g->getNumNodes(), 1u);
  Node *relu = g->getNodes()[0];
  EXPECT_TRUE(relu->is(OpKind::Relu));
  EXPECT_EQ(relu->getInput(0), g->getInputs()[0]);
  ASSERT_EQ(g->getOutputs().size(), 2u);
  EXPECT_EQ(g->getOutputs()[0].name, "y");
  EXPECT_EQ(g->getOutputs()[0].value, relu->getOutput());
  EXPECT_EQ(g->getOutputs()[1].name, "passthrough");
  EXPECT_EQ(g->getOutputs()[1].value, g->getInputs()[0]);
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(LowerForwarding, OnlyAPadByNothingDisappears) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 3, 3}));
    Node *none = addNode(g, OpKind::Pad, "none", {x},
                         {{"pads", Attr::ofInts(Shape(8, 0))}});
    Node *some = addNode(g, OpKind::Pad, "some", {none->getOutput()},
                         {{"pads", Attr::ofInts({0, 0, 1, 0, 0, 0, 0, 2})},
                          {"value", Attr::ofFloat(0.5f)}});
    g.addOutput("y", some->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  ASSERT_EQ(g->getNumNodes(), 1u);
  EXPECT_EQ(g->getNodes()[0]->getName(), "some");
  EXPECT_EQ(g->getNodes()[0]->getInput(0), g->getInputs()[0]);
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(LowerForwarding, DropoutMaskInUseBecomesOnes) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2}));
    Node *drop = addNode(g, OpKind::Dropout, "drop", {x});
    g.addOutput("y", drop->getOutput(0));
    g.addOutput("mask", drop->getOutput(1));
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  EXPECT_EQ(g->getNumNodes(), 0u);
  EXPECT_TRUE(g->getOutputs()[1].value->isConstant());
  EXPECT_TRUE(equivalent(*ref, *g));
}

TEST(LowerTranspose, DefaultPermutationMadeExplicit) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 3, 4}));
    Node *t = addNode(g, OpKind::Transpose, "t", {x});
    g.addOutput("y", t->getOutput());
  };
  auto ref = buildGraph(build), g = buildGraph(build);
  lower(*g);
  EXPECT_EQ(g->getNodes()[0]->getInts("perm"),
            llvm::ArrayRef<int64_t>({2, 1, 0}));
  EXPECT_TRUE(equivalent(*ref, *g));
}

} // namespace
} // namespace kiln
