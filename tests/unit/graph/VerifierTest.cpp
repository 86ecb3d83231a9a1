//===- VerifierTest.cpp - verifyGraph finds broken graphs -----------------===//

#include "compiler/graph/Verifier.h"

#include <gtest/gtest.h>

#include <memory>

namespace kiln {
namespace {

TensorType f32(llvm::ArrayRef<int64_t> shape) {
  return TensorType(DType::F32, shape);
}

Node *add(Graph &g, OpKind kind, llvm::StringRef name,
          llvm::ArrayRef<Value *> inputs, AttrMap attrs = {},
          Node *insertBefore = nullptr) {
  auto n = g.addNode(kind, name, inputs, std::move(attrs), insertBefore);
  if (!n)
    llvm::report_fatal_error(llvm::StringRef(llvm::toString(n.takeError())));
  return *n;
}

/// x -> conv(w, b) -> relu -> "y".
struct SmallGraph {
  Graph g{"small"};
  Value *x, *w, *b;
  Node *conv, *relu;

  SmallGraph() {
    x = g.addInput("x", f32({1, 2, 5, 5}));
    w = g.addConstant("w", Tensor(f32({3, 2, 3, 3})));
    b = g.addConstant("b", Tensor(f32({3})));
    conv = add(g, OpKind::Conv, "conv", {x, w, b},
               {{"pads", Attr::ofInts({1, 1, 1, 1})}});
    relu = add(g, OpKind::Relu, "relu", {conv->getOutput()});
    g.addOutput("y", relu->getOutput());
  }
};

/// The verifier's message, or "" when the graph verifies.
std::string verifyMessage(const Graph &g) {
  llvm::Error err = verifyGraph(g);
  return err ? llvm::toString(std::move(err)) : std::string();
}

TEST(Verifier, AcceptsWellFormedGraph) {
  SmallGraph s;
  EXPECT_EQ(verifyMessage(s.g), "");
}

TEST(Verifier, ReportsCorruptedResultType) {
  SmallGraph s;
  s.conv->getOutput()->setType(f32({1, 3, 4, 4}));
  std::string msg = verifyMessage(s.g);
  EXPECT_NE(msg.find("node 'conv' (Conv): result 0 has type f32[1,3,4,4] but "
                     "the type rule gives f32[1,3,5,5]"),
            std::string::npos)
      << msg;
}

TEST(Verifier, CollectsEveryProblem) {
  SmallGraph s;
  s.relu->getOutput()->setType(TensorType(DType::I32, {1, 3, 5, 5}));
  s.b->setType(f32({4}));
  std::string msg = verifyMessage(s.g);
  EXPECT_NE(msg.find("(3 problems)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("constant 'b' has type f32[4] but its data is f32[3]"),
            std::string::npos)
      << msg;
  // The type rule itself rejects the node now that its bias looks wrong.
  EXPECT_NE(msg.find("node 'conv' (Conv): bias must be [3], got f32[4]"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("node 'relu' (Relu): result 0 has type i32"),
            std::string::npos)
      << msg;
}

TEST(Verifier, ReportsUseBeforeDefinition) {
  SmallGraph s;
  // A node placed before the producer of its input.
  add(s.g, OpKind::Sigmoid, "early", {s.relu->getOutput()}, {}, s.conv);
  std::string msg = verifyMessage(s.g);
  EXPECT_NE(msg.find("node 'early' (Sigmoid): input 0 ('relu') is not defined "
                     "before use"),
            std::string::npos)
      << msg;
}

TEST(Verifier, ReportsAttributeProblems) {
  SmallGraph s;
  s.conv->removeAttr("group");
  s.conv->setAttr("bogus", Attr::ofInt(1));
  s.conv->setAttr("strides", Attr::ofFloats({1, 1}));
  std::string msg = verifyMessage(s.g);
  EXPECT_NE(msg.find("attribute 'group' has a default but is missing"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("unsupported attribute 'bogus'"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("attribute 'strides' must be ints, is floats"),
            std::string::npos)
      << msg;
}

TEST(Verifier, ReportsMissingRequiredAttribute) {
  Graph g;
  Value *x = g.addInput("x", f32({1, 1, 4, 4}));
  Node *pool = add(g, OpKind::MaxPool, "pool", {x},
                   {{"kernel_shape", Attr::ofInts({2, 2})}});
  g.addOutput("y", pool->getOutput());
  pool->removeAttr("kernel_shape");
  EXPECT_NE(
      verifyMessage(g).find("node 'pool' (MaxPool): missing required attribute "
                            "'kernel_shape'"),
      std::string::npos);
}

TEST(Verifier, ReportsMissingRequiredInput) {
  SmallGraph s;
  s.conv->setInput(1, nullptr);
  EXPECT_NE(verifyMessage(s.g).find("node 'conv' (Conv): required input 1 is "
                                    "missing"),
            std::string::npos);
}

TEST(Verifier, ReportsDuplicateNodeNames) {
  SmallGraph s;
  Node *dup = add(s.g, OpKind::Relu, "relu", {s.conv->getOutput()});
  s.g.addOutput("z", dup->getOutput());
  EXPECT_NE(verifyMessage(s.g).find("node 'relu' (Relu): node name is used "
                                    "more than once"),
            std::string::npos);
}

TEST(Verifier, ReportsBadGraphOutputs) {
  SmallGraph s;
  Graph other;
  Value *stranger = other.addInput("stranger", f32({1}));
  s.g.addOutput("y", stranger);
  std::string msg = verifyMessage(s.g);
  EXPECT_NE(msg.find("graph output name 'y' is used more than once"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("graph output 'y' refers to undefined value 'stranger'"),
            std::string::npos)
      << msg;
}

} // namespace
} // namespace kiln
