// findElementwiseChains: which elementwise nodes become one instruction.

#include "compiler/lir/ElementwiseChains.h"

#include "gtest/gtest.h"

#include "llvm/Support/Error.h"

namespace kiln {
namespace {

struct Chains : ::testing::Test {
  Graph g{"chains"};
  Value *x = g.addInput("x", TensorType(DType::F32, {4}));
  Value *y = g.addInput("y", TensorType(DType::F32, {4}));

  const Node *node(OpKind kind, llvm::StringRef name, Value *a, Value *b) {
    auto n = g.addNode(kind, name, {a, b});
    EXPECT_TRUE(static_cast<bool>(n)) << llvm::toString(n.takeError());
    return *n;
  }
};

TEST_F(Chains, SoleUsersChainUpToABranch) {
  // (x + y) * y - x is one chain; x * y, read twice, ends one there.
  const Node *a = node(OpKind::Add, "a", x, y);
  const Node *b = node(OpKind::Mul, "b", a->getOutput(), y);
  const Node *c = node(OpKind::Sub, "c", b->getOutput(), x);
  const Node *e = node(OpKind::Mul, "e", x, y);
  const Node *f = node(OpKind::Add, "f", e->getOutput(), y);
  const Node *h = node(OpKind::Sub, "h", e->getOutput(), f->getOutput());
  g.addOutput("c", c->getOutput());
  g.addOutput("h", h->getOutput());
  lir::ElementwiseChains chains = lir::findElementwiseChains(g, [](const Node &) { return false; });
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains.lookup(c), (llvm::SmallVector<const Node *, 4>{a, b, c}));
  EXPECT_EQ(chains.lookup(h), (llvm::SmallVector<const Node *, 4>{f, h}));
}

TEST_F(Chains, TakenNodesBreakChains) {
  const Node *a = node(OpKind::Add, "a", x, y);
  const Node *b = node(OpKind::Mul, "b", a->getOutput(), y);
  const Node *c = node(OpKind::Sub, "c", b->getOutput(), x);
  g.addOutput("c", c->getOutput());
  EXPECT_TRUE(lir::findElementwiseChains(g, [&](const Node &n) { return &n == b; }).empty());
}

} // namespace
} // namespace kiln
