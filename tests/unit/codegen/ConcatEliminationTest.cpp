//===- ConcatEliminationTest.cpp - Producers writing into Concat slices ---===//
//
// Each graph is checked for the LIR (no Concat instruction where its inputs
// are contiguous, aligned slices of its output; the Concat kept otherwise)
// and through the JIT against the reference interpreter on the untouched
// graph, with the elimination on and off.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include "compiler/backend/CompileGraph.h"
#include "compiler/lir/LIR.h"
#include "compiler/pipeline/Pipeline.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

lir::Function plannedLIR(const GraphBuilder &build, bool elide,
                         std::unique_ptr<Graph> &g) {
  g = buildGraph(build);
  EXPECT_FALSE(static_cast<bool>(runPipeline(*g, defaultPipeline(), PipelineOptions{})));
  lir::LIROptions opts;
  opts.elideConcat = elide;
  auto f = planGraph(*g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  return std::move(*f);
}

unsigned concatCount(const lir::Function &f) {
  return llvm::count_if(f.instrs, [](const lir::Instr &i) {
    return i.node && i.node->is(OpKind::Concat);
  });
}

void expectMatchesBothWays(const GraphBuilder &build) {
  for (bool elide : {false, true}) {
    SCOPED_TRACE(testing::Message() << "elideConcat=" << elide);
    JitCheck check;
    check.lir.elideConcat = elide;
    EXPECT_TRUE(jitMatchesInterpreter(build, check));
  }
}

/// concat(exp(x), sigmoid(y) * z) along `axis`, then tanh: the inputs of
/// shapes a and b.
GraphBuilder concatOf(Shape a, Shape b, int64_t axis) {
  return [=](Graph &g) {
    Value *x = g.addInput("x", f32(a));
    Value *y = g.addInput("y", f32(b));
    Value *z = g.addInput("z", f32(b));
    Node *e = addNode(g, OpKind::Exp, "exp", {x});
    Node *s = addNode(g, OpKind::Sigmoid, "sig", {y});
    Node *m = addNode(g, OpKind::Mul, "mul", {s->getOutput(), z});
    Node *c = addNode(g, OpKind::Concat, "cat", {e->getOutput(), m->getOutput()},
                      {{"axis", Attr::ofInt(axis)}});
    Node *t = addNode(g, OpKind::Tanh, "tanh", {c->getOutput()});
    g.addOutput("out", t->getOutput());
  };
}

TEST(ConcatElimination, ChannelConcatIsWrittenInPlace) {
  GraphBuilder build = concatOf({1, 2, 4, 4}, {1, 3, 4, 4}, 1);
  std::unique_ptr<Graph> g1, g2;
  lir::Function elided = plannedLIR(build, true, g1);
  lir::Function kept = plannedLIR(build, false, g2);
  EXPECT_EQ(concatCount(elided), 0u);
  EXPECT_EQ(concatCount(kept), 1u);
  EXPECT_LT(elided.scratchSize, kept.scratchSize);
  expectMatchesBothWays(build);
}

TEST(ConcatElimination, OuterAxisNotUnitKeepsTheConcat) {
  // Batch 2: each input is two separate runs of the output.
  GraphBuilder build = concatOf({2, 2, 4, 4}, {2, 3, 4, 4}, 1);
  std::unique_ptr<Graph> g;
  EXPECT_EQ(concatCount(plannedLIR(build, true, g)), 1u);
  expectMatchesBothWays(build);
}

TEST(ConcatElimination, MisalignedSliceKeepsTheConcat) {
  // The second slice would start 12 bytes in.
  GraphBuilder build = concatOf({3}, {5}, 0);
  std::unique_ptr<Graph> g;
  EXPECT_EQ(concatCount(plannedLIR(build, true, g)), 1u);
  expectMatchesBothWays(build);
}

TEST(ConcatElimination, NestedConcatsIntoAGraphOutput) {
  // inner = concat(exp(a), neg(b)); out = concat(inner, relu(c)): every
  // producer writes into the I/O region.
  GraphBuilder build = [](Graph &g) {
    Value *a = g.addInput("a", f32({1, 16}));
    Value *b = g.addInput("b", f32({1, 32}));
    Value *c = g.addInput("c", f32({1, 48}));
    Node *ea = addNode(g, OpKind::Exp, "exp", {a});
    Node *nb = addNode(g, OpKind::Neg, "neg", {b});
    Node *rc = addNode(g, OpKind::Relu, "relu", {c});
    Node *inner = addNode(g, OpKind::Concat, "inner", {ea->getOutput(), nb->getOutput()},
                          {{"axis", Attr::ofInt(1)}});
    Node *outer = addNode(g, OpKind::Concat, "outer", {inner->getOutput(), rc->getOutput()},
                          {{"axis", Attr::ofInt(-1)}});
    g.addOutput("out", outer->getOutput());
  };
  std::unique_ptr<Graph> g;
  lir::Function f = plannedLIR(build, true, g);
  EXPECT_EQ(concatCount(f), 0u);
  EXPECT_EQ(f.scratchSize, 0u);
  expectMatchesBothWays(build);
}

TEST(ConcatElimination, InputsMadeJustBeforeAndReadElsewhereAreSlices) {
  // exp(x) and neg(x), made just before the Concat, are also read by the
  // Add: they become slices, which the Add reads; its result (an operand
  // dying there) must not be written over a slice that the Relu reads next.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 16}));
    Node *e = addNode(g, OpKind::Exp, "exp", {x});
    Node *n = addNode(g, OpKind::Neg, "neg", {x});
    Node *c = addNode(g, OpKind::Concat, "cat", {e->getOutput(), n->getOutput()},
                      {{"axis", Attr::ofInt(1)}});
    Node *s = addNode(g, OpKind::Add, "add", {e->getOutput(), n->getOutput()});
    Node *t = addNode(g, OpKind::Softmax, "softmax", {s->getOutput()});
    Node *r = addNode(g, OpKind::Relu, "relu", {c->getOutput()});
    g.addOutput("cat", r->getOutput());
    g.addOutput("sum", t->getOutput());
  };
  std::unique_ptr<Graph> g;
  EXPECT_EQ(concatCount(plannedLIR(build, true, g)), 0u);
  expectMatchesBothWays(build);
}

TEST(ConcatElimination, InputMadeEarlierAndReadElsewhereKeepsTheConcat) {
  // exp(x), read by the Add too, is made before the Softmax, which makes no
  // input of the Concat (a skip connection): as a slice it would hold the
  // whole output live from there, so the Concat stays.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({1, 16}));
    Node *e = addNode(g, OpKind::Exp, "exp", {x});
    Node *s = addNode(g, OpKind::Softmax, "softmax", {x});
    Node *n = addNode(g, OpKind::Neg, "neg", {x});
    Node *c = addNode(g, OpKind::Concat, "cat", {e->getOutput(), n->getOutput()},
                      {{"axis", Attr::ofInt(1)}});
    Node *a = addNode(g, OpKind::Add, "add", {e->getOutput(), s->getOutput()});
    g.addOutput("cat", c->getOutput());
    g.addOutput("sum", a->getOutput());
  };
  std::unique_ptr<Graph> g;
  EXPECT_EQ(concatCount(plannedLIR(build, true, g)), 1u);
  expectMatchesBothWays(build);
}

} // namespace
} // namespace kiln
