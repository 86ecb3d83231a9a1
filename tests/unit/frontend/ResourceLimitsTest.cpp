// The importer refuses models that would make kiln allocate beyond its
// ResourceLimits, with the node and the op, before the allocation: the
// hostile models of tests/common, and limits lowered to catch the
// total-constant and node-count cases on small models.

#include "OnnxModelBuilder.h"
#include "compiler/frontend/onnx/OnnxImporter.h"
#include "tests/common/HostileModels.h"

#include "gtest/gtest.h"

#include <chrono>

namespace kiln {
namespace {

using test::ModelBuilder;

/// The import error of `bytes` under `opts`, "" when it imports.
std::string importError(const std::string &bytes,
                        const OnnxImportOptions &opts = OnnxImportOptions()) {
  auto g = importOnnxBuffer(bytes, "m", opts);
  return g ? "" : llvm::toString(g.takeError());
}

TEST(ResourceLimits, HostileModelsAreRefusedQuickly) {
  for (const test::HostileModel &m : test::hostileModels()) {
    auto start = std::chrono::steady_clock::now();
    std::string err = importError(m.bytes);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                         .count();
    EXPECT_NE(err.find(m.expectedError), std::string::npos) << m.name << ": " << err;
    // Before the limits, a Resize to 1x2e9 spent minutes in resizeTaps.
    EXPECT_LT(seconds, 2.0) << m.name;
  }
}

/// The limit, not something else, refuses the 100 GB initializer: raised,
/// the missing data is the error.
TEST(ResourceLimits, RaisedTensorLimitMovesTheError) {
  for (const test::HostileModel &m : test::hostileModels()) {
    if (m.name != "initializer_100gb")
      continue;
    OnnxImportOptions opts;
    opts.limits.maxTensorBytes = uint64_t(200) << 30;
    opts.limits.maxConstantBytes = uint64_t(200) << 30;
    EXPECT_NE(importError(m.bytes, opts).find("tensor 'W': holds 0 values, the dims "
                                              "need 25000000000"),
              std::string::npos)
        << importError(m.bytes, opts);
  }
}

TEST(ResourceLimits, ResultsWithinTheLimitImport) {
  ModelBuilder b(13);
  b.input("x", {1, 1}).output("y");
  b.int64Initializer("shape", {2}, {1, 1000});
  b.node("Expand", {"x", "shape"}, {"y"}, "expand");
  OnnxImportOptions opts;
  opts.limits.maxTensorBytes = 4000;
  EXPECT_EQ(importError(b.bytes(), opts), "");
  opts.limits.maxTensorBytes = 3999;
  EXPECT_EQ(importError(b.bytes(), opts),
            "node 'expand' (Expand): a result of f32[1,1000] (4000 bytes) would exceed the "
            "limit of 3999 bytes per tensor (--max-tensor-bytes)");
}

TEST(ResourceLimits, InitializersOverTheConstantLimit) {
  ModelBuilder b(13);
  b.input("x", {16}).output("y");
  b.initializer("a", {16}, std::vector<float>(16, 1.f));
  b.initializer("b", {16}, std::vector<float>(16, 2.f));
  b.node("Add", {"x", "a"}, {"s"});
  b.node("Add", {"s", "b"}, {"y"});
  OnnxImportOptions opts;
  opts.limits.maxConstantBytes = 100;
  EXPECT_EQ(importError(b.bytes(), opts),
            "initializer 'b' would bring the constants to 128 bytes, over the limit of "
            "100 bytes (--max-constant-bytes)");
}

/// Results folded while importing count as constants, checked before they
/// are computed.
TEST(ResourceLimits, FoldedConstantsOverTheConstantLimit) {
  ModelBuilder b(13);
  b.input("x", {1000}).output("y");
  b.int64Initializer("shape", {1}, {1000});
  b.node("ConstantOfShape", {"shape"}, {"c"}, "fill");
  b.node("Add", {"x", "c"}, {"y"});
  OnnxImportOptions opts;
  opts.limits.maxConstantBytes = 2000;
  EXPECT_EQ(importError(b.bytes(), opts),
            "node 'fill' (ConstantOfShape): folding it to constants would bring the "
            "constants to 4008 bytes, over the limit of 2000 bytes (--max-constant-bytes)");
}

TEST(ResourceLimits, ConstantNodeOverTheTensorLimit) {
  ModelBuilder b(13);
  b.input("x", {1}).output("y");
  onnx::NodeProto &c = b.node("Constant", {}, {"c"}, "k");
  test::setTensor(c, "value", ModelBuilder::floatTensor({64}, std::vector<float>(64, 1.f)));
  b.node("Add", {"x", "c"}, {"y"});
  OnnxImportOptions opts;
  opts.limits.maxTensorBytes = 255;
  EXPECT_EQ(importError(b.bytes(), opts),
            "node 'k' (Constant): its value needs 256 bytes, over the limit of 255 bytes "
            "per tensor (--max-tensor-bytes)");
}

TEST(ResourceLimits, GraphInputOverTheTensorLimit) {
  ModelBuilder b(13);
  b.input("x", {1, 2000000000}).output("y");
  b.node("Relu", {"x"}, {"y"}, "r");
  EXPECT_EQ(importError(b.bytes()),
            "input 'x' of f32[1,2000000000] needs 8000000000 bytes, over the limit of "
            "1073741824 bytes per tensor (--max-tensor-bytes)");
}

TEST(ResourceLimits, ModelNodeCount) {
  ModelBuilder b(13);
  b.input("x", {4}).output("y");
  b.node("Relu", {"x"}, {"a"}, "r0");
  b.node("Relu", {"a"}, {"b"}, "r1");
  b.node("Relu", {"b"}, {"y"}, "r2");
  OnnxImportOptions opts;
  opts.limits.maxNodes = 3;
  EXPECT_EQ(importError(b.bytes(), opts), "");
  opts.limits.maxNodes = 2;
  EXPECT_EQ(importError(b.bytes(), opts),
            "node 'r2' (Relu): the model has more than 2 nodes (--max-nodes)");
}

/// The importer's expansions count too: Graph::addNode holds every node to
/// the limit.
TEST(ResourceLimits, GraphNodeCount) {
  Graph g;
  ResourceLimits limits;
  limits.maxNodes = 1;
  g.setLimits(limits);
  Value *x = g.addInput("x", TensorType(DType::F32, {4}));
  ASSERT_TRUE(bool(g.addNode(OpKind::Relu, "r0", {x})));
  auto second = g.addNode(OpKind::Relu, "r1", {x});
  ASSERT_FALSE(second);
  EXPECT_EQ(llvm::toString(second.takeError()),
            "node 'r1' (Relu): the graph would have more than 1 nodes (--max-nodes)");
}

/// Raised, the nesting limit lets the model through to the next check: its
/// condition, a graph input, declares no shape.
TEST(ResourceLimits, RaisedNestingLimitMovesTheError) {
  for (const test::HostileModel &m : test::hostileModels()) {
    if (m.name != "if_nested_20")
      continue;
    OnnxImportOptions opts;
    opts.limits.maxSubgraphDepth = 20;
    EXPECT_NE(importError(m.bytes, opts).find("input 'c' has no shape"),
              std::string::npos)
        << importError(m.bytes, opts);
  }
}

} // namespace
} // namespace kiln
