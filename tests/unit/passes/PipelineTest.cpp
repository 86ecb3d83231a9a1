//===- PipelineTest.cpp - Registry, pipeline runner, default pipeline -----===//

#include "compiler/pipeline/Pipeline.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/pipeline/PassRegistry.h"
#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

TEST(PassRegistry, CreatesEveryRegisteredPass) {
  std::vector<llvm::StringRef> names(registeredPassNames().begin(),
                                     registeredPassNames().end());
  EXPECT_EQ(names, (std::vector<llvm::StringRef>{
                       "constant-folding", "cse", "dce", "dilated-conv-to-batch",
                       "fold-batchnorm", "fold-pad-into-conv", "fold-qdq", "fuse-activation",
                       "fuse-layer-norm", "fuse-matmul-bias", "lower", "merge-constants",
                       "row-vector-matmul", "simplify-arithmetic", "simplify-layout",
                       "trim-conv-taps"}));
  for (llvm::StringRef name : names) {
    auto pass = createPass(name);
    ASSERT_TRUE(bool(pass)) << llvm::toString(pass.takeError());
    EXPECT_EQ((*pass)->getName(), name);
  }
}

TEST(PassRegistry, UnknownNameListsKnownOnes) {
  auto pass = createPass("inline");
  ASSERT_FALSE(bool(pass));
  EXPECT_EQ(llvm::toString(pass.takeError()),
            "unknown pass 'inline'; known passes: constant-folding, cse, dce, "
            "dilated-conv-to-batch, fold-batchnorm, fold-pad-into-conv, fold-qdq, fuse-activation, "
            "fuse-layer-norm, fuse-matmul-bias, lower, merge-constants, row-vector-matmul, "
            "simplify-arithmetic, simplify-layout, trim-conv-taps");
}

TEST(Pipeline, DefaultPipeline) {
  const std::vector<std::string> withoutWinograd = {
      "fold-qdq", "constant-folding", "fold-batchnorm", "fuse-layer-norm", "lower",
      "constant-folding", "simplify-arithmetic", "row-vector-matmul", "simplify-layout", "cse",
      "fold-pad-into-conv", "trim-conv-taps", "fuse-matmul-bias", "fuse-activation",
      "merge-constants", "dce"};
  std::vector<std::string> withWinograd = withoutWinograd;
  withWinograd.insert(withWinograd.end() - 2, "dilated-conv-to-batch");
  EXPECT_EQ(defaultPipeline(), withWinograd);
  EXPECT_EQ(defaultPipeline(/*winograd=*/false), withoutWinograd);
}

GraphBuilder reluGraph() {
  return [](Graph &g) {
    Value *x = g.addInput("x", f32({2}));
    Node *relu = addNode(g, OpKind::Relu, "relu", {x});
    g.addOutput("y", relu->getOutput());
  };
}

TEST(Pipeline, ChecksEveryNameBeforeRunning) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({2}));
    Node *relu = addNode(g, OpKind::Relu, "relu", {x});
    addNode(g, OpKind::Tanh, "dead", {x});
    g.addOutput("y", relu->getOutput());
  });
  llvm::Error err = runPipeline(*g, {"dce", "nonsense"}, {});
  ASSERT_TRUE(bool(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("unknown pass 'nonsense'"),
            std::string::npos);
  EXPECT_EQ(g->getNumNodes(), 2u);
}

/// A pass that corrupts the first node's result type.
class CorruptingPass : public Pass {
public:
  llvm::StringRef getName() const override { return "corrupt"; }
  llvm::Expected<bool> run(Graph &g) override {
    g.getNodes()[0]->getOutput()->setType(f32({3}));
    return true;
  }
};

/// A pass that fails.
class FailingPass : public Pass {
public:
  llvm::StringRef getName() const override { return "fail"; }
  llvm::Expected<bool> run(Graph &) override {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "boom");
  }
};

TEST(Pipeline, VerifyEachNamesThePassThatBrokeTheGraph) {
  auto g = buildGraph(reluGraph());
  std::vector<std::unique_ptr<Pass>> passes;
  auto dce = createPass("dce");
  ASSERT_TRUE(bool(dce));
  passes.push_back(std::move(*dce));
  passes.push_back(std::make_unique<CorruptingPass>());
  passes.push_back(std::make_unique<FailingPass>());
  llvm::Error err = runPasses(*g, passes, {});
  ASSERT_TRUE(bool(err));
  std::string msg = llvm::toString(std::move(err));
  EXPECT_NE(msg.find("pass 'corrupt' left an invalid graph: graph 'test' is "
                     "invalid (1 problem):\n  node 'relu' (Relu): result 0 has "
                     "type f32[3]"),
            std::string::npos)
      << msg;
}

TEST(Pipeline, WithoutVerificationReportsOnlyPassErrors) {
  auto g = buildGraph(reluGraph());
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<CorruptingPass>());
  passes.push_back(std::make_unique<FailingPass>());
  PipelineOptions opts;
  opts.verifyEach = false;
  llvm::Error err = runPasses(*g, passes, opts);
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)), "pass 'fail': boom");
}

TEST(Pipeline, RejectsAnInvalidInputGraph) {
  auto g = buildGraph(reluGraph());
  g->getNodes()[0]->getOutput()->setType(f32({3}));
  llvm::Error err = runPipeline(*g, {"dce"}, {});
  ASSERT_TRUE(bool(err));
  EXPECT_NE(
      llvm::toString(std::move(err)).find("invalid graph before the pipeline"),
      std::string::npos);
}

/// A small CNN as an ONNX exporter writes it: Conv -> BN -> Relu -> MaxPool
/// -> Flatten -> Gemm -> Relu -> Gemm.
GraphBuilder smallCnn() {
  return [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 8, 8}));
    Node *conv = addNode(g, OpKind::Conv, "conv",
                         {x, randomConstant(g, "conv.w", {4, 2, 3, 3})},
                         {{"auto_pad", Attr::ofString("SAME_UPPER")}});
    Node *bn = addNode(
        g, OpKind::BatchNormalization, "bn",
        {conv->getOutput(), randomConstant(g, "bn.scale", {4}, 0.5f, 2.0f),
         randomConstant(g, "bn.bias", {4}), randomConstant(g, "bn.mean", {4}),
         randomConstant(g, "bn.var", {4}, 0.5f, 2.0f)});
    Node *relu = addNode(g, OpKind::Relu, "relu", {bn->getOutput()});
    Node *pool = addNode(g, OpKind::MaxPool, "pool", {relu->getOutput()},
                         {{"kernel_shape", Attr::ofInts({2, 2})},
                          {"strides", Attr::ofInts({2, 2})}});
    Node *flat = addNode(g, OpKind::Flatten, "flat", {pool->getOutput()});
    Node *fc1 = addNode(g, OpKind::Gemm, "fc1",
                        {flat->getOutput(), randomConstant(g, "fc1.w", {8, 64}),
                         randomConstant(g, "fc1.b", {8})},
                        {{"transB", Attr::ofInt(1)}});
    Node *relu2 = addNode(g, OpKind::Relu, "relu2", {fc1->getOutput()});
    Node *fc2 = addNode(g, OpKind::Gemm, "fc2",
                        {relu2->getOutput(), randomConstant(g, "fc2.w", {3, 8}),
                         randomConstant(g, "fc2.b", {3})},
                        {{"transB", Attr::ofInt(1)}});
    g.addOutput("logits", fc2->getOutput());
  };
}

TEST(Pipeline, DefaultPipelineOnASmallCnn) {
  auto ref = buildGraph(smallCnn()), g = buildGraph(smallCnn());
  ASSERT_FALSE(bool(runPipeline(*g, defaultPipeline(), {})));
  std::vector<std::string> ops;
  for (const Node *n : g->getNodes())
    ops.push_back((n->getOpName() + ":" + n->getName()).str());
  EXPECT_EQ(ops, (std::vector<std::string>{"Conv:conv", "MaxPool:pool",
                                           "Reshape:flat", "MatMul:fc1",
                                           "MatMul:fc2"}));
  std::vector<Node *> nodes = g->getNodes();
  EXPECT_EQ(nodes[0]->getActivation("kiln.activation").getName(), "Relu");
  EXPECT_EQ(nodes[0]->getInts("pads"), llvm::ArrayRef<int64_t>({1, 1, 1, 1}));
  EXPECT_EQ(nodes[3]->getActivation("kiln.activation").getName(), "Relu");
  EXPECT_EQ(nodes[3]->getNumInputs(), 3u);
  EXPECT_EQ(nodes[4]->getActivation("kiln.activation").getName(), "None");
  EXPECT_EQ(nodes[4]->getNumInputs(), 3u);
  // Only the weights the nodes read are left: conv w+b, 2x (w, b).
  EXPECT_EQ(g->getConstants().size(), 6u);
  EXPECT_EQ(g->getOutputs()[0].name, "logits");
  EXPECT_TRUE(equivalent(*ref, *g));
}

} // namespace
} // namespace kiln
