//===- StaticIfTest.cpp - If nodes whose condition is known at import -----===//
//
// PyTorch exports some functions (LocalResponseNorm) with an If on the
// input's rank, a condition that folds at import: the importer puts the
// branch it takes in the If's place. Each model here runs in the reference
// interpreter against values computed in the test. The whole path against
// PyTorch is the suite model lrn_net (//tests/e2e).
//
//===----------------------------------------------------------------------===//

#include "tests/unit/frontend/ImportTestUtil.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using test::ModelBuilder;

/// A branch graph of `nodes` (op, input, output) with output `out`.
onnx::GraphProto branch(const std::string &name,
                        std::vector<std::array<std::string, 3>> nodes,
                        const std::string &out) {
  onnx::GraphProto g;
  g.set_name(name);
  for (const auto &[op, in, result] : nodes) {
    onnx::NodeProto *n = g.add_node();
    n->set_op_type(op);
    n->set_name(result);
    n->add_input(in);
    n->add_output(result);
  }
  g.add_output()->set_name(out);
  return g;
}

onnx::NodeProto &addIf(onnx::GraphProto &g, const std::string &cond, const std::string &out,
                       const onnx::GraphProto &thenBranch, const onnx::GraphProto &elseBranch) {
  onnx::NodeProto *n = g.add_node();
  n->set_op_type("If");
  n->set_name("if_" + out);
  n->add_input(cond);
  n->add_output(out);
  for (const auto &[attr, body] : {std::pair("then_branch", &thenBranch),
                                   std::pair("else_branch", &elseBranch)}) {
    onnx::AttributeProto *a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *body;
  }
  return *n;
}

/// x of f32[2, 3] and c = (x.shape[0] == rows), which folds at import, as
/// PyTorch writes its rank checks.
ModelBuilder rowsCheck(int64_t rows) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).output("y", {2, 3});
  b.int64Initializer("zero", {}, {0}).int64Initializer("rows", {}, {rows});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "zero"}, {"d"});
  b.node("Equal", {"d", "rows"}, {"c"});
  return b;
}

const std::vector<float> kX = {-1.5f, 2.0f, -0.25f, 0.5f, 3.0f, -4.0f};

std::vector<float> runX(const Graph &g) { return test::runOnInput(g, {2, 3}, kX); }

TEST(StaticIf, ATrueConditionTakesTheThenBranch) {
  ModelBuilder b = rowsCheck(2);
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"Neg", "x", "n"}}, "n"));
  auto g = test::importOk(b);
  ASSERT_TRUE(g);
  const Node *relu = test::singleNode(*g, OpKind::Relu);
  ASSERT_TRUE(relu);
  std::vector<float> y = runX(*g);
  ASSERT_EQ(y.size(), kX.size());
  for (size_t i = 0; i < kX.size(); ++i)
    EXPECT_EQ(y[i], std::max(kX[i], 0.0f)) << i;
}

TEST(StaticIf, AFalseConditionTakesTheElseBranch) {
  ModelBuilder b = rowsCheck(3);
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"Neg", "x", "n"}}, "n"));
  auto g = test::importOk(b);
  ASSERT_TRUE(g);
  ASSERT_TRUE(test::singleNode(*g, OpKind::Neg));
  std::vector<float> y = runX(*g);
  ASSERT_EQ(y.size(), kX.size());
  for (size_t i = 0; i < kX.size(); ++i)
    EXPECT_EQ(y[i], -kX[i]) << i;
}

/// A branch may read its own initializers and output an outer value as it
/// is; a taken branch may hold another If.
TEST(StaticIf, NestedBranchesWithInitializersAndOuterOutputs) {
  ModelBuilder b = rowsCheck(2);
  onnx::GraphProto inner = branch("inner", {}, "x");
  onnx::GraphProto outer = branch("outer", {}, "z");
  *outer.add_initializer() = ModelBuilder::floatTensor({3}, {1.0f, 2.0f, 4.0f});
  outer.mutable_initializer(0)->set_name("w");
  onnx::NodeProto *add = outer.add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("sum");
  addIf(outer, "c", "z", branch("sum_then", {{"Abs", "sum", "a"}}, "a"), inner);
  addIf(*b.proto().mutable_graph(), "c", "y", outer, branch("else", {{"Neg", "x", "n"}}, "n"));
  auto g = test::importOk(b);
  ASSERT_TRUE(g);
  std::vector<float> y = runX(*g);
  const float w[3] = {1.0f, 2.0f, 4.0f};
  ASSERT_EQ(y.size(), kX.size());
  for (size_t i = 0; i < kX.size(); ++i)
    EXPECT_EQ(y[i], std::abs(kX[i] + w[i % 3])) << i;
}

TEST(StaticIf, TheBranchNotTakenMayHoldUnsupportedOps) {
  ModelBuilder b = rowsCheck(2);
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"NonZero", "x", "nz"}, {"Unique", "nz", "u"}}, "u"));
  EXPECT_TRUE(test::importOk(b));
}

TEST(StaticIf, TheTakenBranchsUnsupportedOpsAreListedTogether) {
  ModelBuilder b = rowsCheck(3);
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"NonZero", "x", "nz"}, {"Unique", "nz", "u"}}, "u"));
  std::string error = test::importError(b);
  EXPECT_NE(error.find("unsupported ops: node 'nz' (NonZero: "), std::string::npos) << error;
  EXPECT_NE(error.find("node 'u' (Unique: "), std::string::npos) << error;
}

TEST(StaticIf, AConditionComputedAtRunTimeIsAnError) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).input("c", {}, onnx::TensorProto::BOOL).output("y", {2, 3});
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"Neg", "x", "n"}}, "n"));
  EXPECT_EQ(test::importError(b),
            "node 'if_y' (If): input 0 (the condition) must be a constant (control flow at run "
            "time is not supported: kiln compiles the branch the condition takes); 'c' is a "
            "graph input: give it a value with --const-input NAME=FILE.npy");
  // Given one, it compiles.
  OnnxImportOptions opts;
  opts.constantInputs.emplace("c", Tensor::fromValues<bool>(DType::Bool, {}, {false}));
  auto g = test::importOk(b, opts);
  ASSERT_TRUE(g);
  EXPECT_TRUE(test::singleNode(*g, OpKind::Neg));
}

TEST(StaticIf, ABranchWithTheWrongNumberOfOutputsIsAnError) {
  ModelBuilder b = rowsCheck(2);
  onnx::GraphProto two = branch("then", {{"Relu", "x", "r"}}, "r");
  two.add_output()->set_name("x");
  addIf(*b.proto().mutable_graph(), "c", "y", two, branch("else", {{"Neg", "x", "n"}}, "n"));
  EXPECT_EQ(test::importError(b),
            "node 'if_y' (If): its then_branch has 2 outputs; the If has 1");
}

} // namespace
} // namespace kiln
