//===- ElementwiseFusionTest.cpp - Fused chains and in-place results ------===//
//
// Elementwise chains compiled as one instruction, and elementwise results
// written over their dying inputs' buffers: each graph is checked twice,
// once for the LIR the strategy should produce (so a test fails when the
// strategy stops applying) and once through the JIT against the reference
// interpreter on the unfused, untouched graph, with the strategies on and
// off.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include "compiler/backend/CompileGraph.h"
#include "compiler/lir/LIR.h"
#include "compiler/lir/MemoryPlanner.h"
#include "compiler/pipeline/Pipeline.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

lir::LIROptions strategies(bool inPlace, bool fuse) {
  lir::LIROptions opts;
  opts.inPlace = inPlace;
  opts.fuseElementwise = fuse;
  return opts;
}

/// The planned LIR of `g` (after optimized()), its plan verified.
lir::Function plannedLIR(const Graph &g, const lir::LIROptions &opts) {
  auto f = planGraph(g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  return std::move(*f);
}

std::unique_ptr<Graph> optimized(const GraphBuilder &build) {
  auto g = buildGraph(build);
  EXPECT_FALSE(static_cast<bool>(runPipeline(*g, defaultPipeline(), PipelineOptions{})));
  return g;
}

/// The JIT matches the interpreter with every combination of the two
/// strategies.
void expectAllStrategiesMatch(const GraphBuilder &build, JitCheck check = {}) {
  for (bool inPlace : {false, true})
    for (bool fuse : {false, true}) {
      SCOPED_TRACE(testing::Message() << "inPlace=" << inPlace << " fuse=" << fuse);
      check.lir = strategies(inPlace, fuse);
      EXPECT_TRUE(jitMatchesInterpreter(build, check));
    }
}

unsigned kernelCount(const lir::Function &f) {
  return llvm::count_if(f.instrs,
                        [](const lir::Instr &i) { return i.kind == lir::Instr::Kind::Kernel; });
}

/// exp(x) * s[c] + t -> sigmoid -> z - . -> tanh: broadcast operands on the
/// way, one per-channel, one scalar, one full-size.
void broadcastChain(Graph &g) {
  Value *x = g.addInput("x", f32({2, 3, 4, 5}));
  Value *z = g.addInput("z", f32({2, 3, 4, 5}));
  Node *e = addNode(g, OpKind::Exp, "exp", {x});
  Node *mul = addNode(g, OpKind::Mul, "mul", {e->getOutput(), randomConstant(g, "s", {3, 1, 1})});
  Node *add = addNode(g, OpKind::Add, "add", {randomConstant(g, "t", {}), mul->getOutput()});
  Node *sig = addNode(g, OpKind::Sigmoid, "sig", {add->getOutput()});
  Node *sub = addNode(g, OpKind::Sub, "sub", {z, sig->getOutput()});
  Node *tanh = addNode(g, OpKind::Tanh, "tanh", {sub->getOutput()});
  g.addOutput("y", tanh->getOutput());
}

TEST(ElementwiseFusion, ChainBecomesOneInstruction) {
  auto g = optimized(broadcastChain);
  lir::Function fused = plannedLIR(*g, strategies(false, true));
  ASSERT_EQ(kernelCount(fused), 1u);
  EXPECT_EQ(fused.instrs[0].fused.size(), 5u);
  EXPECT_EQ(fused.scratchSize, 0u);
  lir::Function unfused = plannedLIR(*g, strategies(false, false));
  EXPECT_EQ(kernelCount(unfused), 6u);
  EXPECT_GT(unfused.scratchSize, 0u);
}

TEST(ElementwiseFusion, BroadcastChainMatchesTheInterpreter) {
  expectAllStrategiesMatch(broadcastChain);
}

TEST(ElementwiseFusion, SameShapeChainMatchesTheInterpreter) {
  // Odd length: the vector loop's remainder too.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({131}));
    Value *w = g.addInput("w", f32({131}));
    Node *a = addNode(g, OpKind::Abs, "abs", {x});
    Node *l = addNode(g, OpKind::LeakyRelu, "lrelu", {a->getOutput()},
                      {{"alpha", Attr::ofFloat(0.2f)}});
    Node *d = addNode(g, OpKind::Div, "div", {w, l->getOutput()});
    Node *c = addNode(g, OpKind::Clip, "clip", {d->getOutput()},
                      {{"min", Attr::ofFloat(-3.0f)}, {"max", Attr::ofFloat(3.0f)}});
    g.addOutput("y", c->getOutput());
  };
  expectAllStrategiesMatch(build);
}

/// A value with two users ends a chain: it must reach memory.
void sharedValue(Graph &g) {
  Value *x = g.addInput("x", f32({4, 33}));
  Node *a = addNode(g, OpKind::Exp, "exp", {x});
  Node *b = addNode(g, OpKind::Sigmoid, "sig", {a->getOutput()});
  Node *c = addNode(g, OpKind::Mul, "mul", {b->getOutput(), a->getOutput()});
  Node *d = addNode(g, OpKind::Neg, "neg", {c->getOutput()});
  g.addOutput("y", d->getOutput());
}

TEST(ElementwiseFusion, SharedValueIsNotFusedThrough) {
  auto g = optimized(sharedValue);
  lir::Function f = plannedLIR(*g, strategies(false, true));
  // exp alone; sig, mul, neg as one.
  ASSERT_EQ(kernelCount(f), 2u);
  EXPECT_TRUE(f.instrs[0].fused.empty());
  EXPECT_EQ(f.instrs[1].fused.size(), 2u);
  expectAllStrategiesMatch(sharedValue);
}

TEST(InPlaceElementwise, DyingInputBufferIsReused) {
  auto g = optimized(sharedValue);
  lir::Function f = plannedLIR(*g, strategies(true, false));
  ASSERT_EQ(kernelCount(f), 4u);
  // sig reads exp's result, which mul reads later: a fresh buffer. Both of
  // mul's operands die there: it writes over one. neg writes the graph
  // output, in the I/O region.
  EXPECT_NE(f.instrs[1].outputs[0], f.instrs[1].inputs[0]);
  EXPECT_TRUE(llvm::is_contained(f.instrs[2].inputs, f.instrs[2].outputs[0]));
  EXPECT_EQ(f.instrs[3].outputs[0]->region, lir::Region::IO);
  lir::Function apart = plannedLIR(*g, strategies(false, false));
  EXPECT_LT(f.scratchSize, apart.scratchSize);
}

TEST(InPlaceElementwise, ChainNeedsOneBuffer) {
  GraphBuilder build = [](Graph &g) {
    Value *v = g.addInput("x", f32({1, 100}));
    for (int i = 0; i < 6; ++i)
      v = addNode(g, i % 2 ? OpKind::Sigmoid : OpKind::Neg, "n" + std::to_string(i), {v})
              ->getOutput();
    g.addOutput("y", v);
  };
  auto g = optimized(build);
  lir::Function f = plannedLIR(*g, strategies(true, false));
  // Five intermediates of 400 bytes in one 448-byte buffer: the first one
  // cannot take over the graph input, the rest take over their input.
  EXPECT_EQ(f.scratchSize, 448u);
  EXPECT_EQ(lir::unplannedScratchSize(f), 448u);
  EXPECT_EQ(plannedLIR(*g, strategies(false, false)).scratchSize, 2u * 448);
  expectAllStrategiesMatch(build);
}

TEST(InPlaceElementwise, ReshapeViewKeepsItsBufferAlive) {
  // r is a view of a; neg(r) must not overwrite a, which sig reads after.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({2, 8}));
    Node *a = addNode(g, OpKind::Exp, "exp", {x});
    Node *r = addNode(g, OpKind::Reshape, "flat", {a->getOutput()},
                      {{"shape", Attr::ofInts({16})}});
    Node *n = addNode(g, OpKind::Neg, "neg", {r->getOutput()});
    Node *s = addNode(g, OpKind::Sigmoid, "sig", {a->getOutput()});
    Node *back = addNode(g, OpKind::Reshape, "back", {n->getOutput()},
                         {{"shape", Attr::ofInts({2, 8})}});
    Node *sum = addNode(g, OpKind::Add, "add", {back->getOutput(), s->getOutput()});
    g.addOutput("y", sum->getOutput());
    g.addOutput("n", n->getOutput());
  };
  expectAllStrategiesMatch(build);
}

TEST(InPlaceElementwise, GraphInputsAndWeightsAreNeverOverwritten) {
  // The inputs die at their only use, but they are the caller's.
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({64}));
    Node *a = addNode(g, OpKind::Add, "add", {x, randomConstant(g, "w", {64})});
    Node *b = addNode(g, OpKind::Relu, "relu", {a->getOutput()});
    g.addOutput("y", b->getOutput());
  };
  auto g = optimized(build);
  lir::Function f = plannedLIR(*g, strategies(true, false));
  ASSERT_EQ(kernelCount(f), 2u);
  EXPECT_EQ(f.instrs[0].outputs[0]->region, lir::Region::Scratch);
  expectAllStrategiesMatch(build);
}

} // namespace
} // namespace kiln
