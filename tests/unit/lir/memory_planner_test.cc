// The static memory planner: buffers reused, never overlapping while live,
// and the scratch size never above the sum of the intermediates.

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/lir/LIR.h"
#include "compiler/lir/MemoryPlanner.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/Support/MathExtras.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <string>

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

/// An oracle independent of computeLiveRanges: runs the instructions in
/// order over byte maps of the I/O and scratch regions that record which
/// buffer last wrote each byte, and checks that every read finds the bytes
/// its buffer last wrote (the caller's inputs written before the run, the
/// outputs read after it), and that no instruction writes over its own
/// operands, other than the one buffer an in-place result shares with its
/// input. Returns "" for a sound plan, else the first violation.
std::string simulatePlan(const lir::Function &f) {
  constexpr int kNobody = -1;
  std::vector<int> owner[2] = {std::vector<int>(f.ioSize, kNobody),
                               std::vector<int>(f.scratchSize, kNobody)};
  auto bytes = [&](const lir::Buffer *b) -> llvm::MutableArrayRef<int> {
    std::vector<int> &map = owner[b->region == lir::Region::Scratch];
    if (b->offset + b->size > map.size())
      return {};
    return llvm::MutableArrayRef<int>(map).slice(b->offset, b->size);
  };
  auto skip = [](const lir::Buffer *b) { return !b || b->region == lir::Region::Weights; };
  auto inBounds = [&](const lir::Buffer *b) {
    return bytes(b).size() == b->size;
  };
  auto write = [&](const lir::Buffer *b) {
    for (int &o : bytes(b))
      o = b->root()->id;
  };
  auto intact = [&](const lir::Buffer *b) {
    return llvm::all_of(bytes(b), [&](int o) { return o == int(b->root()->id); });
  };
  auto disjoint = [](const lir::Buffer *a, const lir::Buffer *b) {
    return a->region != b->region || a->root() == b->root() ||
           a->offset + a->size <= b->offset || b->offset + b->size <= a->offset;
  };
  for (const lir::IOTensor &t : f.inputs)
    write(t.buffer);
  for (size_t i = 0; i < f.instrs.size(); ++i) {
    const lir::Instr &in = f.instrs[i];
    std::string at = "instruction " + std::to_string(i) + ": ";
    llvm::SmallVector<const lir::Buffer *, 4> written(in.outputs.begin(), in.outputs.end());
    if (in.temp)
      written.push_back(in.temp);
    for (const lir::Buffer *b : in.inputs) {
      if (skip(b))
        continue;
      if (!inBounds(b))
        return at + "input '" + b->name + "' outside its region";
      if (!intact(b))
        return at + "input '" + b->name + "' was overwritten before this read";
      for (const lir::Buffer *w : written)
        if (w != b && !disjoint(w, b))
          return at + "'" + w->name + "' is written over input '" + b->name + "'";
    }
    for (const lir::Buffer *w : written) {
      if (!inBounds(w))
        return at + "'" + w->name + "' outside its region";
      for (const lir::Buffer *v : written)
        if (v != w && !disjoint(v, w) && (v == in.temp || w == in.temp))
          return at + "temp overlaps '" + (v == in.temp ? w : v)->name + "'";
    }
    // The temp is clobbered, then the results written.
    if (in.temp)
      write(in.temp);
    for (const lir::Buffer *b : in.outputs)
      if (!skip(b))
        write(b);
  }
  for (const lir::IOTensor &t : f.outputs)
    if (!intact(t.buffer))
      return "output '" + t.buffer->name + "' was overwritten after it was written";
  return "";
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

/// The plans kilnc makes of the shipped models, with every LIR option that
/// changes what shares memory: fusion, in-place results, Concat
/// elimination, one arena.
std::vector<std::pair<std::string, lir::Function>> shippedPlans() {
  std::vector<std::pair<std::string, lir::Function>> plans;
  for (const char *name : {"lenet5", "mlp", "ds_cnn_kws", "resnet8_cifar", "fusion_probe"})
    for (bool overwrite : {false, true}) {
      std::string path = std::string(name) == "fusion_probe"
                             ? "tests/e2e/models/fusion_probe.onnx"
                             : std::string("bundles/models/") + name + ".onnx";
      auto g = importOnnxFile(path, {});
      EXPECT_TRUE(static_cast<bool>(g)) << llvm::toString(g.takeError());
      if (!g)
        continue;
      EXPECT_FALSE(static_cast<bool>(runPipeline(**g, defaultPipeline(), {})));
      lir::LIROptions opts;
      opts.overwriteInputs = overwrite;
      auto f = lir::generateLIR(**g, opts);
      EXPECT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
      if (!f)
        continue;
      lir::planMemory(*f, opts);
      plans.emplace_back(std::string(name) + (overwrite ? " (one arena)" : ""),
                         std::move(*f));
    }
  return plans;
}

TEST(MemoryPlanner, PlansOfTheShippedModelsPassAnIndependentSimulation) {
  for (auto &[name, f] : shippedPlans()) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(static_cast<bool>(lir::verifyMemoryPlan(f)));
    EXPECT_EQ(simulatePlan(f), "");
  }
}

/// The verifier's liveness against the simulation: buffers moved at random
/// over the region make plans the verifier accepts or rejects; every plan
/// it accepts must also be sound by the simulation. Both verdicts must
/// occur, or the check proves nothing.
TEST(MemoryPlanner, VerifierAcceptsOnlyPlansTheSimulationFindsSound) {
  std::mt19937_64 rng(7);
  int accepted = 0, rejected = 0;
  for (auto &[name, f] : shippedPlans()) {
    SCOPED_TRACE(name);
    std::vector<lir::Buffer *> movable;
    lir::Region planned = f.scratchSize ? lir::Region::Scratch : lir::Region::IO;
    uint64_t regionSize = f.scratchSize ? f.scratchSize : f.ioSize;
    for (auto &b : f.buffers)
      if (b->region == planned && !b->parent && b->size <= regionSize)
        movable.push_back(b.get());
    if (movable.empty())
      continue;
    for (int trial = 0; trial < 200; ++trial) {
      lir::Buffer *b = movable[rng() % movable.size()];
      uint64_t saved = b->offset;
      uint64_t slots = (regionSize - b->size) / lir::kBufferAlignment + 1;
      b->offset = (rng() % slots) * lir::kBufferAlignment;
      for (auto &s : f.buffers)
        if (s->parent)
          s->offset = s->parent->offset + s->offsetInParent;
      llvm::Error err = lir::verifyMemoryPlan(f);
      if (err) {
        ++rejected;
        llvm::consumeError(std::move(err));
      } else {
        ++accepted;
        EXPECT_EQ(simulatePlan(f), "") << "the verifier accepted '" << b->name
                                       << "' at offset " << b->offset;
      }
      b->offset = saved;
      for (auto &s : f.buffers)
        if (s->parent)
          s->offset = s->parent->offset + s->offsetInParent;
    }
  }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(rejected, 100);
}

/// The simulation itself sees an overwritten value.
TEST(MemoryPlanner, SimulationCatchesAValueOverwrittenBeforeItsRead) {
  Graph g("branches");
  Value *x = g.addInput("x", TensorType(DType::F32, {1, 100}));
  Value *a = chain(g, x, 1);
  Value *b = chain(g, a, 2);
  AttrMap none;
  auto add = g.addNode(OpKind::Add, "add", {a, b}, none);
  ASSERT_TRUE(static_cast<bool>(add));
  g.addOutput("y", (*add)->getOutput());
  lir::Function f = plannedLIR(g);
  ASSERT_EQ(simulatePlan(f), "");
  ASSERT_EQ(f.instrs.size(), 4u);
  // b, written by the third instruction, on top of a, which the Add reads.
  lir::Buffer *aBuf = f.instrs[0].outputs[0], *bBuf = f.instrs[2].outputs[0];
  uint64_t bOffset = bBuf->offset;
  bBuf->offset = aBuf->offset;
  EXPECT_EQ(simulatePlan(f), "instruction 3: input 'relu0' was overwritten before this read");
  // The second Relu's result on top of its own input, a.
  bBuf->offset = bOffset;
  f.instrs[1].outputs[0]->offset = aBuf->offset;
  EXPECT_EQ(simulatePlan(f), "instruction 1: 'relu0_1' is written over input 'relu0'");
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
