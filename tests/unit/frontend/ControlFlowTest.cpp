//===- ControlFlowTest.cpp - If and Loop resolved at import ---------------===//
//
// PyTorch exports some functions with an If on the input's rank
// (LocalResponseNorm) or a Loop of a known trip count (EmbeddingBag):
// conditions and trip counts that fold at import, so the importer puts the
// branch an If takes in its place and unrolls a Loop. Each model here runs
// in the reference interpreter against values computed in the test. The
// whole path against PyTorch is the suite model lrn_net (//tests/e2e), and
// against ONNX Runtime the opset cases loop_* (//tests/conformance).
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

TEST(ControlFlowIf, ATrueConditionTakesTheThenBranch) {
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

TEST(ControlFlowIf, AFalseConditionTakesTheElseBranch) {
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
TEST(ControlFlowIf, NestedBranchesWithInitializersAndOuterOutputs) {
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

TEST(ControlFlowIf, TheBranchNotTakenMayHoldUnsupportedOps) {
  ModelBuilder b = rowsCheck(2);
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"Unique", "x", "nz"}, {"Bernoulli", "nz", "u"}}, "u"));
  EXPECT_TRUE(test::importOk(b));
}

TEST(ControlFlowIf, TheTakenBranchsUnsupportedOpsAreListedTogether) {
  ModelBuilder b = rowsCheck(3);
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"Unique", "x", "nz"}, {"Bernoulli", "nz", "u"}}, "u"));
  std::string error = test::importError(b);
  EXPECT_NE(error.find("unsupported ops: node 'nz' (Unique: "), std::string::npos) << error;
  EXPECT_NE(error.find("node 'u' (Bernoulli: "), std::string::npos) << error;
}

TEST(ControlFlowIf, AConditionComputedAtRunTimeIsAnError) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).input("c", {}, onnx::TensorProto::BOOL).output("y", {2, 3});
  addIf(*b.proto().mutable_graph(), "c", "y", branch("then", {{"Relu", "x", "r"}}, "r"),
        branch("else", {{"Neg", "x", "n"}}, "n"));
  EXPECT_EQ(test::importError(b),
            "node 'if_y' (If): input 0 (the condition) must be a constant (control flow at run "
            "time is not supported: kiln compiles the path the model takes); 'c' is a graph "
            "input: give it a value with --const-input NAME=FILE.npy");
  // Given one, it compiles.
  OnnxImportOptions opts;
  opts.constantInputs.emplace("c", Tensor::fromValues<bool>(DType::Bool, {}, {false}));
  auto g = test::importOk(b, opts);
  ASSERT_TRUE(g);
  EXPECT_TRUE(test::singleNode(*g, OpKind::Neg));
}

TEST(ControlFlowIf, ABranchWithTheWrongNumberOfOutputsIsAnError) {
  ModelBuilder b = rowsCheck(2);
  onnx::GraphProto two = branch("then", {{"Relu", "x", "r"}}, "r");
  two.add_output()->set_name("x");
  addIf(*b.proto().mutable_graph(), "c", "y", two, branch("else", {{"Neg", "x", "n"}}, "n"));
  EXPECT_EQ(test::importError(b),
            "node 'if_y' (If): its then_branch has 2 outputs; the If has 1");
}

/// Loop(M, cond, acc0) over x of f32[3]: acc += x; scan = acc * i; cond
/// passes through, or is `condition` (a node of the body, reading i) when
/// given.
ModelBuilder loopModel(const char *m, const char *cond, const std::string &condition = "") {
  ModelBuilder b(13);
  b.input("x", {3}).output("acc", {3}).output("scan");
  b.int64Initializer("three", {}, {3}).initializer("acc0", {3}, {0.5f, -1.0f, 2.0f});
  onnx::TensorProto yes;
  yes.set_data_type(onnx::TensorProto::BOOL);
  yes.add_int32_data(1);
  yes.set_name("yes");
  *b.proto().mutable_graph()->add_initializer() = yes;
  onnx::NodeProto &loop = b.node("Loop", {m, cond, "acc0"}, {"acc", "scan"}, "loop");
  onnx::AttributeProto *a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto &body = *a->mutable_g();
  for (const char *in : {"i", "c_in", "acc_in"})
    body.add_input()->set_name(in);
  auto node = [&](const char *op, std::vector<std::string> ins, const char *out) {
    onnx::NodeProto *n = body.add_node();
    n->set_op_type(op);
    for (const std::string &in : ins)
      n->add_input(in);
    n->add_output(out);
    return n;
  };
  node("Add", {"acc_in", "x"}, "acc_out");
  test::setInt(*node("Cast", {"i"}, "i_f"), "to", onnx::TensorProto::FLOAT);
  node("Mul", {"acc_out", "i_f"}, "scan_out");
  if (condition.empty()) {
    node("Identity", {"c_in"}, "c_out");
  } else {
    *body.add_initializer() = ModelBuilder::int64Tensor({}, {2});
    body.mutable_initializer(0)->set_name("two");
    node(condition.c_str(), {"i", "two"}, "c_out");
  }
  for (const char *out : {"c_out", "acc_out", "scan_out"})
    body.add_output()->set_name(out);
  return b;
}

const float kAcc0[3] = {0.5f, -1.0f, 2.0f};
const std::vector<float> kLoopX = {1.0f, 0.25f, -3.0f};

/// Runs a loopModel: the final acc and the stacked scans.
std::pair<std::vector<float>, std::vector<float>> runLoop(const ModelBuilder &b,
                                                         int64_t iterations) {
  auto g = test::importOk(b);
  if (!g)
    return {};
  auto out = runGraph(*g, {Tensor::fromValues<float>(DType::F32, {3}, kLoopX)});
  if (!out) {
    ADD_FAILURE() << llvm::toString(out.takeError());
    return {};
  }
  EXPECT_EQ((*out)[1].getShape(), llvm::ArrayRef<int64_t>({iterations, 3}));
  llvm::ArrayRef<float> acc = (*out)[0].values<float>(), scan = (*out)[1].values<float>();
  return {std::vector<float>(acc.begin(), acc.end()), std::vector<float>(scan.begin(), scan.end())};
}

void expectIterations(const std::pair<std::vector<float>, std::vector<float>> &got,
                      int64_t iterations) {
  ASSERT_EQ(got.first.size(), 3u);
  ASSERT_EQ(got.second.size(), size_t(iterations * 3));
  for (int k = 0; k < 3; ++k) {
    float acc = kAcc0[k];
    for (int64_t i = 0; i < iterations; ++i) {
      acc += kLoopX[k];
      EXPECT_EQ(got.second[i * 3 + k], acc * float(i)) << i << " " << k;
    }
    EXPECT_EQ(got.first[k], acc) << k;
  }
}

TEST(ControlFlowLoop, ATripCountUnrollsTheBody) {
  expectIterations(runLoop(loopModel("three", ""), 3), 3);
}

/// The condition before each iteration: i < 2 after iterations 0 and 1,
/// not after 2, whatever M allows.
TEST(ControlFlowLoop, AConditionFoldedEachIterationEndsIt) {
  ModelBuilder b = loopModel("", "yes", "Less");
  expectIterations(runLoop(b, 3), 3);
  b.proto().mutable_graph()->mutable_node(0)->set_input(0, "three");
  b.proto().mutable_graph()->mutable_node(0)->set_input(1, "yes");
  expectIterations(runLoop(b, 3), 3);
}

TEST(ControlFlowLoop, ARunTimeTripCountIsAnError) {
  ModelBuilder b = loopModel("m", "");
  b.input("m", {}, onnx::TensorProto::INT64);
  EXPECT_EQ(test::importError(b),
            "node 'loop' (Loop): input 0 (the trip count M) must be a constant (control flow "
            "at run time is not supported: kiln compiles the path the model takes); 'm' is a "
            "graph input: give it a value with --const-input NAME=FILE.npy");
}

TEST(ControlFlowLoop, ARunTimeConditionIsAnError) {
  ModelBuilder b = loopModel("three", "yes");
  onnx::GraphProto &body =
      *b.proto().mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  // c_out = ReduceSum(acc_out) > 0, from the input's values.
  body.mutable_node(3)->set_op_type("ReduceSum");
  body.mutable_node(3)->set_input(0, "acc_out");
  body.mutable_node(3)->set_output(0, "sum");
  onnx::NodeProto *greater = body.add_node();
  greater->set_op_type("Greater");
  greater->add_input("sum");
  greater->add_input("zero");
  greater->add_output("c_out");
  *body.add_initializer() = ModelBuilder::floatTensor({}, {0.0f});
  body.mutable_initializer(0)->set_name("zero");
  EXPECT_EQ(test::importError(b),
            "node 'loop' (Loop): its body computes the condition of iteration 1 at run time; "
            "kiln unrolls a Loop only where it folds at compile time");
}

TEST(ControlFlowLoop, MoreIterationsThanTheLimitIsAnError) {
  OnnxImportOptions opts;
  opts.limits.maxUnrolledSteps = 2;
  EXPECT_EQ(test::importError(loopModel("three", ""), opts),
            "node 'loop' (Loop): the model's Loops run more than 2 iterations in all "
            "(--max-unrolled-steps): kiln unrolls them");
}

} // namespace
} // namespace kiln
