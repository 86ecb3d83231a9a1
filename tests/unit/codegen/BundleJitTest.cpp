//===- BundleJitTest.cpp - The JIT itself ----------------------------------===//

#include "compiler/interpreter/Interpreter.h"
#include "compiler/jit/BundleJit.h"
#include "compiler/pipeline/Pipeline.h"
#include "tests/unit/codegen/KernelTestUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

using namespace test;

/// y = Relu(x + w): one weight, one scratch intermediate (the Add result),
/// Relu written straight into the output.
void addRelu(Graph &g) {
  Value *x = g.addInput("x", f32({3, 5}));
  Value *w = randomConstant(g, "w", {5});
  Node *add = addNode(g, OpKind::Add, "add", {x, w});
  Node *relu = addNode(g, OpKind::Relu, "relu", {add->getOutput()});
  g.addOutput("y", relu->getOutput());
}

/// A small CNN: Conv+Relu, MaxPool, Flatten, Gemm, Softmax.
void smallCnn(Graph &g) {
  Value *x = g.addInput("x", f32({1, 3, 8, 8}));
  Node *conv = addNode(g, OpKind::Conv, "conv",
                       {x, randomConstant(g, "w", {4, 3, 3, 3}),
                        randomConstant(g, "b", {4})},
                       {{"pads", Attr::ofInts({1, 1, 1, 1})}});
  Node *relu = addNode(g, OpKind::Relu, "relu", {conv->getOutput()});
  Node *pool = addNode(g, OpKind::MaxPool, "pool", {relu->getOutput()},
                       {{"kernel_shape", Attr::ofInts({2, 2})},
                        {"strides", Attr::ofInts({2, 2})}});
  Node *flat = addNode(g, OpKind::Flatten, "flat", {pool->getOutput()});
  Node *fc = addNode(g, OpKind::Gemm, "fc",
                     {flat->getOutput(), randomConstant(g, "fcw", {10, 64}),
                      randomConstant(g, "fcb", {10})},
                     {{"transB", Attr::ofInt(1)}});
  Node *sm = addNode(g, OpKind::Softmax, "sm", {fc->getOutput()});
  g.addOutput("y", sm->getOutput());
}

std::unique_ptr<JitBundle> compileOrFail(Graph &g) {
  auto bundle = compileGraphForJit(g);
  if (!bundle) {
    ADD_FAILURE() << llvm::toString(bundle.takeError());
    return nullptr;
  }
  return std::move(*bundle);
}

TEST(BundleJit, ReportsTheRegionSizesOfTheMemoryPlan) {
  auto g = buildGraph(addRelu);
  auto bundle = compileOrFail(*g);
  ASSERT_TRUE(bundle);
  // Every buffer is rounded up to 64 bytes: w (20 bytes); x and y (60
  // bytes each) in I/O; the Add result never reaches memory (Add and Relu
  // are one fused loop), so there is no scratch.
  EXPECT_EQ(bundle->weightsSize(), 64u);
  EXPECT_EQ(bundle->ioSize(), 128u);
  EXPECT_EQ(bundle->scratchSize(), 0u);
}

TEST(BundleJit, RejectsInputsThatDoNotMatch) {
  auto g = buildGraph(addRelu);
  auto bundle = compileOrFail(*g);
  ASSERT_TRUE(bundle);
  auto none = bundle->run({});
  ASSERT_FALSE(bool(none));
  EXPECT_EQ(llvm::toString(none.takeError()), "bundle 'jit' takes 1 inputs, got 0");

  Tensor wrongShape(f32({5, 3}));
  auto shape = bundle->run(wrongShape);
  ASSERT_FALSE(bool(shape));
  EXPECT_EQ(llvm::toString(shape.takeError()),
            "input 'x': expected f32[3,5], got f32[5,3]");

  Tensor wrongDType(TensorType(DType::I32, {3, 5}));
  auto dtype = bundle->run(wrongDType);
  ASSERT_FALSE(bool(dtype));
  EXPECT_EQ(llvm::toString(dtype.takeError()),
            "input 'x': expected f32[3,5], got i32[3,5]");
}

TEST(BundleJit, RejectsANameThatIsNotACIdentifier) {
  auto g = buildGraph(addRelu);
  auto bundle = JitBundle::compile(*g, "my-model");
  ASSERT_FALSE(bool(bundle));
  EXPECT_EQ(llvm::toString(bundle.takeError()),
            "bundle name 'my-model' is not a C identifier");
}

TEST(BundleJit, UsesTheGivenBundleName) {
  auto g = buildGraph(addRelu);
  auto bundle = JitBundle::compile(*g, "model_7");
  ASSERT_TRUE(bool(bundle)) << llvm::toString(bundle.takeError());
  auto none = (*bundle)->run({});
  ASSERT_FALSE(bool(none));
  EXPECT_EQ(llvm::toString(none.takeError()),
            "bundle 'model_7' takes 1 inputs, got 0");
}

TEST(BundleJit, RunsRepeatedlyWithTheSameResult) {
  auto g = buildGraph(smallCnn);
  auto bundle = compileOrFail(*g);
  ASSERT_TRUE(bundle);
  Tensor x = randomInput(f32({1, 3, 8, 8}), 7);
  auto first = bundle->run(x), second = bundle->run(x);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_TRUE((*first)[0].bitwiseEqual((*second)[0]));
  // A different input gives a different result: the output is computed.
  auto other = bundle->run(randomInput(f32({1, 3, 8, 8}), 8));
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  EXPECT_FALSE((*first)[0].bitwiseEqual((*other)[0]));
}

TEST(BundleJit, TwoCompilesGiveBitIdenticalResults) {
  auto g1 = buildGraph(smallCnn), g2 = buildGraph(smallCnn);
  auto b1 = compileOrFail(*g1), b2 = compileOrFail(*g2);
  ASSERT_TRUE(b1 && b2);
  Tensor x = randomInput(f32({1, 3, 8, 8}), 3, -4.0f, 4.0f);
  auto y1 = b1->run(x), y2 = b2->run(x);
  ASSERT_TRUE(bool(y1)) << llvm::toString(y1.takeError());
  ASSERT_TRUE(bool(y2)) << llvm::toString(y2.takeError());
  EXPECT_TRUE((*y1)[0].bitwiseEqual((*y2)[0]));
}

TEST(BundleJit, CompileGraphForJitRunsTheDefaultPipeline) {
  auto ref = buildGraph(smallCnn), g = buildGraph(smallCnn);
  auto bundle = compileOrFail(*g);
  ASSERT_TRUE(bundle);
  // Lowered and fused: Gemm became a biased MatMul, Relu went into the Conv.
  EXPECT_EQ(countOps(*g, OpKind::Gemm), 0u);
  EXPECT_EQ(countOps(*g, OpKind::Relu), 0u);
  ASSERT_TRUE(findOnly(*g, OpKind::Conv));
  EXPECT_EQ(findOnly(*g, OpKind::Conv)->getActivation("kiln.activation").getName(), "Relu");
  Tensor x = randomInput(f32({1, 3, 8, 8}), 11);
  auto want = runGraph(*ref, x);
  ASSERT_TRUE(bool(want)) << llvm::toString(want.takeError());
  auto got = bundle->run(x);
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  EXPECT_TRUE(outputsClose(*want, *got, 1e-5));
}

/// Two MatMuls of the same shape and different weights, then a third of
/// another shape.
void threeMatMuls(Graph &g) {
  Value *x = g.addInput("x", f32({4, 32}));
  Node *a = addNode(g, OpKind::MatMul, "a", {x, randomConstant(g, "wa", {32, 32})});
  Node *b = addNode(g, OpKind::MatMul, "b", {a->getOutput(), randomConstant(g, "wb", {32, 32})});
  Node *c = addNode(g, OpKind::MatMul, "c", {b->getOutput(), randomConstant(g, "wc", {32, 8})});
  g.addOutput("y", c->getOutput());
}

/// Layers of the same op, kernel and sizes are one function of their
/// buffers, merged before optimization: the object keeps one kernel symbol
/// for the first two MatMuls, and the bundle still computes all three.
TEST(BundleJit, IdenticalLayersShareOneKernelFunction) {
  auto g = buildGraph(threeMatMuls);
  ASSERT_FALSE(bool(runPipeline(*g, defaultPipeline(), PipelineOptions{})));
  auto target = resolveTarget(testTarget());
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  BackendOptions opts;
  opts.bundleName = "merged";
  auto compiled = compileGraph(*g, *target, opts);
  ASSERT_TRUE(bool(compiled)) << llvm::toString(compiled.takeError());
  EXPECT_EQ(compiled->numKernels, 3u);
  llvm::StringRef bytes(compiled->files.object.data(), compiled->files.object.size());
  auto object = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(bytes, "merged.o"));
  ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
  llvm::SmallVector<std::string, 4> kernels;
  for (const llvm::object::SymbolRef &sym : (*object)->symbols()) {
    auto name = sym.getName();
    ASSERT_TRUE(bool(name)) << llvm::toString(name.takeError());
    if (name->starts_with("kiln."))
      kernels.push_back(name->str());
  }
  llvm::sort(kernels);
  ASSERT_EQ(kernels.size(), 2u) << llvm::join(kernels, ", ");
  EXPECT_TRUE(llvm::StringRef(kernels[0]).starts_with("kiln.0.matmul")) << kernels[0];
  EXPECT_TRUE(llvm::StringRef(kernels[1]).starts_with("kiln.2.matmul")) << kernels[1];

  auto ref = buildGraph(threeMatMuls), jitted = buildGraph(threeMatMuls);
  auto bundle = compileOrFail(*jitted);
  ASSERT_TRUE(bundle);
  Tensor x = randomInput(f32({4, 32}), 5);
  auto want = runGraph(*ref, x);
  ASSERT_TRUE(bool(want)) << llvm::toString(want.takeError());
  auto got = bundle->run(x);
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  EXPECT_TRUE(outputsClose(*want, *got, 1e-5));
}

/// Branches keep several intermediates live at once, so the planner has to
/// place them apart while reusing what is dead; a wrong plan corrupts values.
TEST(BundleJit, AGraphWithReusedScratchMatchesTheInterpreter) {
  GraphBuilder build = [](Graph &g) {
    Value *x = g.addInput("x", f32({4, 33}));
    Node *a = addNode(g, OpKind::Sigmoid, "a", {x});
    Node *b = addNode(g, OpKind::Tanh, "b", {x});
    Node *c = addNode(g, OpKind::Add, "c", {a->getOutput(), b->getOutput()});
    Node *d = addNode(g, OpKind::Mul, "d", {c->getOutput(), a->getOutput()});
    Node *e = addNode(g, OpKind::Sub, "e", {d->getOutput(), b->getOutput()});
    Node *f = addNode(g, OpKind::Relu, "f", {e->getOutput()});
    Node *h = addNode(g, OpKind::Div, "h", {f->getOutput(), c->getOutput()});
    Node *t = addNode(g, OpKind::Transpose, "t", {h->getOutput()});
    Node *s = addNode(g, OpKind::Softmax, "s", {t->getOutput()});
    g.addOutput("y", s->getOutput());
  };
  JitCheck check;
  check.lo = 0.5f;
  check.hi = 3.0f;
  EXPECT_TRUE(jitMatchesInterpreter(build, check));
}

TEST(BundleJit, ANonPrimitiveOpInCodegenIsAnErrorNamingTheNode) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 3, 3}));
    Node *gap = addNode(g, OpKind::GlobalAveragePool, "gap", {x});
    g.addOutput("y", gap->getOutput());
  });
  auto bundle = JitBundle::compile(*g);
  ASSERT_FALSE(bool(bundle));
  EXPECT_EQ(llvm::toString(bundle.takeError()),
            "node 'gap' (GlobalAveragePool): not supported by the code generator");
}

TEST(BundleJit, A1DConvInCodegenIsAnErrorNamingTheNode) {
  auto g = buildGraph([](Graph &g) {
    Value *x = g.addInput("x", f32({1, 2, 9}));
    Node *conv = addNode(g, OpKind::Conv, "conv1d",
                         {x, randomConstant(g, "w", {3, 2, 3})});
    g.addOutput("y", conv->getOutput());
  });
  auto bundle = JitBundle::compile(*g);
  ASSERT_FALSE(bool(bundle));
  std::string msg = llvm::toString(bundle.takeError());
  EXPECT_EQ(msg.rfind("node 'conv1d' (Conv): ", 0), 0u) << msg;
}

} // namespace
} // namespace kiln
