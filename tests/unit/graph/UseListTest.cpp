//===- UseListTest.cpp - The graph's use-lists against a scan -------------===//
//
// Graph keeps who reads each value, and which names are taken, as nodes are
// added, rewired, renamed and erased. The oracle here is the definition: a
// scan over every node's inputs, and over every node's and value's name.
//
//===----------------------------------------------------------------------===//

#include "compiler/graph/Graph.h"
#include "compiler/graph/Verifier.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln {
namespace {

TensorType f32(llvm::ArrayRef<int64_t> shape) {
  return TensorType(DType::F32, shape);
}

Node *add(Graph &g, OpKind kind, llvm::StringRef name,
          llvm::ArrayRef<Value *> inputs, Node *insertBefore = nullptr) {
  auto n = g.addNode(kind, name, inputs, {}, insertBefore);
  if (!n)
    llvm::report_fatal_error(llvm::StringRef(llvm::toString(n.takeError())));
  return *n;
}

/// Users by definition: nodes in order whose inputs hold `v`.
std::vector<Node *> scanUsers(const Graph &g, const Value *v) {
  std::vector<Node *> out;
  for (Node *n : g.getNodes())
    if (llvm::is_contained(n->getInputs(), v))
      out.push_back(n);
  return out;
}

unsigned scanUses(const Graph &g, const Value *v) {
  unsigned uses = 0;
  for (Node *n : g.getNodes())
    uses += llvm::count(n->getInputs(), v);
  return uses;
}

/// Every value's users, use count and sole user against the scan.
void expectUseListsMatchScan(const Graph &g, llvm::ArrayRef<Value *> values) {
  for (Value *v : values) {
    SCOPED_TRACE(v->getName().str());
    std::vector<Node *> users = scanUsers(g, v);
    EXPECT_EQ(g.getUsers(v), users);
    EXPECT_EQ(v->getNumUses(), scanUses(g, v));
    EXPECT_EQ(g.hasUses(v), !users.empty() || g.isGraphOutput(v));
    Node *sole = users.size() == 1 && scanUses(g, v) == 1 && !g.isGraphOutput(v)
                     ? users.front()
                     : nullptr;
    EXPECT_EQ(g.getSoleUser(v), sole);
  }
  EXPECT_FALSE(verifyGraph(g)) << "the verifier counts the same uses";
}

TEST(UseLists, FollowAddSetInputReplaceAndErase) {
  Graph g;
  Value *x = g.addInput("x", f32({4}));
  Value *y = g.addInput("y", f32({4}));
  Node *a = add(g, OpKind::Add, "a", {x, x});
  Node *r = add(g, OpKind::Relu, "r", {a->getOutput()});
  // Inserted before `a`: users come in node order, not insertion order.
  Node *m = add(g, OpKind::Mul, "m", {x, y}, a);
  g.addOutput("out", r->getOutput());
  std::vector<Value *> values{x, y, a->getOutput(), r->getOutput(),
                              m->getOutput()};
  EXPECT_EQ(g.getUsers(x), (std::vector<Node *>{m, a}));
  EXPECT_EQ(x->getNumUses(), 3u);
  EXPECT_EQ(g.getSoleUser(a->getOutput()), r);
  EXPECT_EQ(g.getSoleUser(r->getOutput()), nullptr) << "a graph output";
  expectUseListsMatchScan(g, values);

  a->setInput(1, y);
  expectUseListsMatchScan(g, values);

  g.replaceAllUsesWith(x, y);
  EXPECT_EQ(x->getNumUses(), 0u);
  EXPECT_EQ(y->getNumUses(), 4u);
  expectUseListsMatchScan(g, values);

  g.replaceAllUsesWith(r->getOutput(), a->getOutput());
  g.eraseNode(r);
  values.erase(values.begin() + 3);
  EXPECT_EQ(g.getOutputs().front().value, a->getOutput());
  expectUseListsMatchScan(g, values);
}

/// Names by definition: the inputs', constants', nodes' and results'.
llvm::StringSet<> scanNames(const Graph &g) {
  llvm::StringSet<> names;
  for (const Value *v : g.getInputs())
    names.insert(v->getName());
  for (const Value *v : g.getConstants())
    names.insert(v->getName());
  for (const Node *n : g.getNodes()) {
    names.insert(n->getName());
    for (const Value *v : n->getOutputs())
      names.insert(v->getName());
  }
  return names;
}

/// isNameInUse against the scan, for every name the graph has had: those of
/// erased nodes and renamed values must be free again.
void expectNameIndexMatchesScan(const Graph &g, llvm::StringSet<> &everUsed) {
  llvm::StringSet<> live = scanNames(g);
  for (const auto &name : live)
    everUsed.insert(name.getKey());
  for (const auto &name : everUsed)
    EXPECT_EQ(g.isNameInUse(name.getKey()), live.contains(name.getKey())) << name.getKey().str();
}

/// The inputs, the constants and the results of nodes before `n` (all
/// results when `n` is null): what `n` may read.
std::vector<Value *> valuesBefore(const Graph &g, llvm::ArrayRef<Value *> sources,
                                  const Node *n) {
  std::vector<Value *> out(sources.begin(), sources.end());
  for (Node *m : g.getNodes()) {
    if (m == n)
      break;
    out.push_back(m->getOutput());
  }
  return out;
}

TEST(UseLists, MatchAScanThroughRandomRewrites) {
  std::mt19937 rng(7);
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  Graph g;
  std::vector<Value *> sources{g.addInput("x", f32({3})),
                               g.addConstant("c", Tensor(f32({3})))};
  llvm::StringSet<> everUsed;
  for (int step = 0; step < 400; ++step) {
    SCOPED_TRACE(step);
    std::vector<Node *> nodes = g.getNodes();
    unsigned action = nodes.empty() ? 0 : pick(5);
    if (action <= 1) {
      // A new node anywhere after its operands' producers.
      std::vector<Value *> all = valuesBefore(g, sources, nullptr);
      Value *lhs = all[pick(all.size())], *rhs = all[pick(all.size())];
      size_t first = 0;
      for (size_t p = 0; p < nodes.size(); ++p)
        if (nodes[p]->getOutput() == lhs || nodes[p]->getOutput() == rhs)
          first = p + 1;
      size_t at = first + pick(nodes.size() - first + 1);
      add(g, OpKind::Add, "n" + std::to_string(step), {lhs, rhs},
          at < nodes.size() ? nodes[at] : nullptr);
    } else if (action == 2) {
      // One input of a node rewired to a value defined before it.
      Node *n = nodes[pick(nodes.size())];
      std::vector<Value *> earlier = valuesBefore(g, sources, n);
      n->setInput(pick(2), earlier[pick(earlier.size())]);
    } else if (action == 3) {
      // A result renamed after another node, maybe an erased one.
      g.renameValue(nodes[pick(nodes.size())]->getOutput(), "n" + std::to_string(pick(step + 1)));
    } else {
      // A node's result replaced by an earlier value, then the node erased.
      Node *n = nodes[pick(nodes.size())];
      std::vector<Value *> earlier = valuesBefore(g, sources, n);
      g.replaceAllUsesWith(n->getOutput(), earlier[pick(earlier.size())]);
      g.eraseNode(n);
    }
    expectUseListsMatchScan(g, valuesBefore(g, sources, nullptr));
    expectNameIndexMatchesScan(g, everUsed);
  }
}

} // namespace
} // namespace kiln
