//===- NodeRewritePassTest.cpp --------------------------------------------===//
//
// NodeRewritePass walks a copy of the node list; a rewrite that erases a
// node still to be visited must not have that node visited (under ASan, a
// visit would read freed memory).
//
//===----------------------------------------------------------------------===//

#include "tests/unit/passes/GraphTestUtil.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

std::vector<std::string> visited;

/// Relu(Relu(v)) -> Relu(v): erases the outer Relu, which comes later.
llvm::Expected<bool> dropOuterRelu(Graph &g, Node *n) {
  visited.push_back(n->getName().str());
  Node *outer = g.getSoleUser(n->getOutput());
  if (!outer || !outer->is(OpKind::Relu))
    return false;
  g.replaceAllUsesWith(outer->getOutput(), n->getOutput());
  g.eraseNode(outer);
  return true;
}

void reluChain(Graph &g) {
  Value *v = g.addInput("x", f32({2, 3}));
  for (const char *name : {"a", "b", "c"})
    v = addNode(g, OpKind::Relu, name, {v})->getOutput();
  g.addOutput("y", v);
}

TEST(NodeRewritePass, SkipsNodesARewriteErased) {
  auto g = buildGraph(reluChain);
  NodeRewritePass pass("drop-outer-relu", OpKind::Relu, dropOuterRelu);
  visited.clear();
  EXPECT_TRUE(runPass(pass, *g));
  // a erased b; a's user is now c, which has no Relu user.
  EXPECT_EQ(visited, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(countOps(*g, OpKind::Relu), 2u);
}

TEST(GraphErasedNodes, ScopesNest) {
  auto g = buildGraph(reluChain);
  std::vector<Node *> nodes = g->getNodes();
  Graph::ErasedNodes outer(*g);
  g->replaceAllUsesWith(nodes[2]->getOutput(), nodes[1]->getOutput());
  g->eraseNode(nodes[2]);
  {
    Graph::ErasedNodes inner(*g);
    EXPECT_FALSE(inner.contains(nodes[2]));
    g->replaceAllUsesWith(nodes[1]->getOutput(), nodes[0]->getOutput());
    g->eraseNode(nodes[1]);
    EXPECT_TRUE(inner.contains(nodes[1]));
  }
  EXPECT_TRUE(outer.contains(nodes[1]));
  EXPECT_TRUE(outer.contains(nodes[2]));
  EXPECT_FALSE(outer.contains(nodes[0]));
}

} // namespace
} // namespace kiln
