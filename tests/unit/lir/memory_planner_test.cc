// The static memory planner: buffers reused, never overlapping while live,
// and the scratch size never above the sum of the intermediates.

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/lir/LIR.h"
#include "compiler/lir/MemoryPlanner.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/Support/MathExtras.h"
#include "gtest/gtest.h"

#include <algorithm>

namespace kiln {
namespace {

/// Without fusion or in-place results by default: these tests are about the
/// planner's placement of every intermediate.
lir::Function plannedLIR(const Graph &g, bool inPlace = false) {
  lir::LIROptions opts;
  opts.fuseElementwise = false;
  opts.inPlace = inPlace;
  auto f = lir::generateLIR(g, opts);
  EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  lir::planMemory(*f);
  return std::move(*f);
}

/// Bytes that must be live at once at the busiest instruction: a lower bound
/// for any valid plan.
uint64_t peakLiveBytes(const lir::Function &f) {
  std::vector<lir::LiveRange> ranges = lir::computeLiveRanges(f);
  uint64_t peak = 0;
  for (unsigned i = 0; i < f.instrs.size(); ++i) {
    uint64_t live = 0;
    for (auto &b : f.buffers)
      if (b->region == lir::Region::Scratch && ranges[b->id].begin <= i &&
          i <= ranges[b->id].end)
        live += llvm::alignTo(b->size, lir::kBufferAlignment);
    peak = std::max(peak, live);
  }
  return peak;
}

Value *chain(Graph &g, Value *v, int n) {
  for (int i = 0; i < n; ++i) {
    auto node = g.addNode(OpKind::Relu, "relu" + std::to_string(i), {v});
    EXPECT_TRUE(static_cast<bool>(node));
    v = (*node)->getOutput();
  }
  return v;
}

TEST(MemoryPlanner, ChainPingPongsBetweenTwoBuffers) {
  Graph g("chain");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 100}));
  g.addOutput("y", chain(g, x, 10));
  lir::Function f = plannedLIR(g);
  ASSERT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  // 9 intermediates of 400 bytes (448 aligned); at most two live at once.
  EXPECT_EQ(lir::unplannedScratchSize(f), 9u * 448);
  EXPECT_EQ(f.scratchSize, 2u * 448);
}

TEST(MemoryPlanner, InPlaceChainNeedsOneBuffer) {
  Graph g("chain");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 100}));
  g.addOutput("y", chain(g, x, 10));
  lir::Function f = plannedLIR(g, /*inPlace=*/true);
  ASSERT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  // The first Relu cannot overwrite the graph input; each later one
  // overwrites its input, which dies there.
  EXPECT_EQ(lir::unplannedScratchSize(f), 448u);
  EXPECT_EQ(f.scratchSize, 448u);
}

TEST(MemoryPlanner, InPlaceKeepsLiveValuesApart) {
  // a feeds both b's chain and the final Add: b's first Relu must not
  // overwrite it; the Add may overwrite either operand.
  Graph g("branch");
  Value *x = g.addInput("x", TensorType(DType::F32, {64}));
  Value *a = chain(g, x, 1);
  Value *b = chain(g, a, 4);
  auto add = g.addNode(OpKind::Add, "add", {a, b});
  ASSERT_TRUE(static_cast<bool>(add));
  Value *sum = (*add)->getOutput();
  g.addOutput("y", chain(g, sum, 1));
  lir::Function f = plannedLIR(g, /*inPlace=*/true);
  EXPECT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  EXPECT_NE(f.instrs[1].outputs[0], f.instrs[0].outputs[0]);
  EXPECT_EQ(f.instrs[5].outputs[0], f.instrs[5].inputs[0]);
  EXPECT_EQ(f.scratchSize, 2u * 64 * sizeof(float));
}

TEST(MemoryPlanner, BranchesKeepLiveValuesApart) {
  // a feeds both b and the final Add, so it must survive b's whole chain.
  Graph g("branch");
  Value *x = g.addInput("x", TensorType(DType::F32, {64}));
  Value *a = chain(g, x, 1);
  Value *b = chain(g, a, 4);
  auto add = g.addNode(OpKind::Add, "add", {a, b});
  ASSERT_TRUE(static_cast<bool>(add));
  g.addOutput("y", (*add)->getOutput());
  lir::Function f = plannedLIR(g);
  EXPECT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  EXPECT_EQ(f.scratchSize, peakLiveBytes(f));
  EXPECT_LT(f.scratchSize, lir::unplannedScratchSize(f));
}

TEST(MemoryPlanner, ReshapeViewExtendsItsBufferLifetime) {
  Graph g("view");
  Value *x = g.addInput("x", TensorType(DType::F32, {2, 8}));
  Value *a = chain(g, x, 1);
  AttrMap attrs;
  attrs.emplace("shape", Attr::ofInts({16}));
  auto reshape = g.addNode(OpKind::Reshape, "flat", {a}, attrs);
  ASSERT_TRUE(static_cast<bool>(reshape));
  Value *c = chain(g, (*reshape)->getOutput(), 3);
  g.addOutput("y", c);
  // The reshape itself is also an output: copied out, not aliased.
  g.addOutput("flat_out", (*reshape)->getOutput());
  lir::Function f = plannedLIR(g);
  EXPECT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  size_t copies = std::count_if(f.instrs.begin(), f.instrs.end(), [](const lir::Instr &i) {
    return i.kind == lir::Instr::Kind::Copy;
  });
  EXPECT_EQ(copies, 1u);
  // No reshape instruction: it is a view.
  for (const lir::Instr &i : f.instrs)
    if (i.node)
      EXPECT_FALSE(i.node->is(OpKind::Reshape));
}

TEST(MemoryPlanner, VerifierCatchesOverlap) {
  Graph g("broken");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 100}));
  Value *a = chain(g, x, 1);
  Value *b = chain(g, a, 1);
  g.addOutput("y", chain(g, b, 1));
  lir::Function f = plannedLIR(g);
  ASSERT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  // Put b (live with a during the second instruction) on top of a.
  for (auto &buf : f.buffers)
    if (buf->region == lir::Region::Scratch)
      buf->offset = 0;
  llvm::Error err = lir::verifyMemoryPlan(f);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("overlap"), std::string::npos);
}

TEST(MemoryPlanner, ConcatInputsAreSlicesOfItsOutput) {
  // Both Relu results are written into the Concat's output, which is live
  // from the first Relu on; the verifier catches a slice moved off it.
  Graph g("concat");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 16}));
  Value *a = chain(g, x, 1), *b = chain(g, x, 1);
  AttrMap attrs;
  attrs.emplace("axis", Attr::ofInt(1));
  auto concat = g.addNode(OpKind::Concat, "cat", {a, b}, attrs);
  ASSERT_TRUE(static_cast<bool>(concat));
  g.addOutput("y", chain(g, (*concat)->getOutput(), 1));
  lir::Function f = plannedLIR(g);
  ASSERT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  ASSERT_EQ(f.instrs.size(), 3u);
  const lir::Buffer *first = f.instrs[0].outputs[0], *second = f.instrs[1].outputs[0];
  ASSERT_TRUE(first->parent && second->parent);
  EXPECT_EQ(first->parent, f.instrs[2].inputs[0]);
  EXPECT_EQ(second->offset, first->offset + 64);
  EXPECT_EQ(f.scratchSize, 128u);
  for (auto &buf : f.buffers)
    if (buf->parent)
      buf->offset += 64;
  llvm::Error err = lir::verifyMemoryPlan(f);
  ASSERT_TRUE(static_cast<bool>(err));
  EXPECT_NE(llvm::toString(std::move(err)).find("slice"), std::string::npos);
}

/// VWW's first layers: the input's layout copy C, two 18,432-byte results A
/// and B, then the largest, D. Largest-first placement strands A above C;
/// first-use order packs every step into the peak, 55,296 bytes.
lir::Function vwwOpening() {
  lir::Function f;
  auto *in = f.addBuffer("in", lir::Region::IO, 27648);
  auto *out = f.addBuffer("out", lir::Region::IO, 2);
  out->offset = 27648;
  f.ioSize = 27648 + 64;
  f.inputs.push_back({"in", TensorType(DType::I8, {27648}), in});
  f.outputs.push_back({"out", TensorType(DType::I8, {2}), out});
  lir::Buffer *prev = in;
  for (auto [name, size] : {std::pair{"C", 27648}, {"A", 18432}, {"B", 18432}, {"D", 36864}}) {
    lir::Buffer *b = f.addBuffer(name, lir::Region::Scratch, size);
    lir::Instr i;
    i.kind = lir::Instr::Kind::Copy;
    i.inputs.push_back(prev);
    i.outputs.push_back(b);
    f.instrs.push_back(i);
    prev = b;
  }
  lir::Instr last;
  last.kind = lir::Instr::Kind::Copy;
  last.inputs.push_back(prev);
  last.outputs.push_back(out);
  f.instrs.push_back(last);
  return f;
}

TEST(MemoryPlanner, KeepsTheTighterOfTwoOrders) {
  lir::Function f = vwwOpening();
  lir::planMemory(f);
  ASSERT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  EXPECT_EQ(f.scratchSize, 55296u);
  EXPECT_EQ(f.ioSize, 27648u + 64);
}

TEST(MemoryPlanner, OverwriteInputsPlansOneArena) {
  lir::Function f = vwwOpening();
  lir::LIROptions opts;
  opts.overwriteInputs = true;
  lir::planMemory(f, opts);
  ASSERT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
  // The input dies at the copy: the arena is the peak of the intermediates.
  EXPECT_EQ(f.ioSize, 55296u);
  EXPECT_EQ(f.scratchSize, 0u);
  for (auto &b : f.buffers)
    EXPECT_EQ(b->region, lir::Region::IO) << b->name;
}

TEST(MemoryPlanner, ShippedModels) {
  for (const char *name : {"lenet5", "mlp", "ds_cnn_kws", "resnet8_cifar"}) {
    SCOPED_TRACE(name);
    auto g = importOnnxFile(std::string("bundles/models/") + name + ".onnx", {});
    ASSERT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
    ASSERT_FALSE(static_cast<bool>(runPipeline(**g, defaultPipeline(), {})));
    lir::Function f = plannedLIR(**g);
    EXPECT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
    EXPECT_LE(f.scratchSize, lir::unplannedScratchSize(f));
    EXPECT_GE(f.scratchSize, peakLiveBytes(f));
    // Every weights/IO buffer inside its region, every region 64-aligned.
    EXPECT_EQ(f.weightsSize % lir::kBufferAlignment, 0u);
    EXPECT_EQ(f.ioSize % lir::kBufferAlignment, 0u);
  }
}

} // namespace
} // namespace kiln
