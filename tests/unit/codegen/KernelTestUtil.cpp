#include "tests/unit/codegen/KernelTestUtil.h"

#include "compiler/interpreter/Interpreter.h"
#include "compiler/jit/BundleJit.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/TargetParser/Host.h"

#include <cstdio>
#include <cstdlib>
#include <random>

#if defined(__x86_64__) && defined(__linux__)
#include <fpu_control.h>
#endif

namespace kiln {
namespace test {

namespace {
/// A test of instructions the host may lack (KILN_TEST_HOST_NEEDS, an LLVM
/// feature name) ends, passing, before any test runs where it lacks them.
[[maybe_unused]] const bool kHostHasNeededFeature = [] {
  const char *needed = std::getenv("KILN_TEST_HOST_NEEDS");
  if (!needed || llvm::sys::getHostCPUFeatures().lookup(needed))
    return true;
  std::printf("skipped: the host has no %s\n", needed);
  std::exit(0);
}();

/// Without SSE, x86-64 computes f32 in x87 registers, by default with a
/// 64-bit mantissa, which breaks the kernels' rounding tricks (adding and
/// subtracting 1.5 * 2^23) that an IEEE single-precision FPU, or soft
/// float, keeps. While it lives, x87 results round to 24 bits, as on those.
class X87SinglePrecision {
public:
#if defined(__x86_64__) && defined(__linux__)
  X87SinglePrecision() {
    _FPU_GETCW(saved_);
    fpu_control_t single = (saved_ & ~_FPU_EXTENDED) | _FPU_SINGLE;
    _FPU_SETCW(single);
  }
  ~X87SinglePrecision() { _FPU_SETCW(saved_); }

private:
  fpu_control_t saved_;
#endif
};
} // namespace

TargetOptions testTarget() {
  TargetOptions target;
  if (const char *cpu = std::getenv("KILN_TEST_CPU"))
    target.cpu = cpu;
  if (const char *features = std::getenv("KILN_TEST_FEATURES"))
    target.features = features;
  return target;
}

Tensor randomInput(const TensorType &type, uint64_t seed, float lo, float hi) {
  if (type.dtype == DType::F32)
    return randomTensor(type, seed, lo, hi);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(-50, 49);
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    int64_t v = dist(rng);
    t.setFromDouble(i, v >= 0 ? v + 1 : v);
  }
  return t;
}

::testing::AssertionResult jitMatchesInterpreter(const GraphBuilder &build,
                                                 const JitCheck &check) {
  auto ref = buildGraph(build), g = buildGraph(build);
  std::vector<Tensor> inputs = check.inputs;
  if (inputs.empty()) {
    uint64_t seed = check.seed;
    for (const Value *v : ref->getInputs())
      inputs.push_back(randomInput(v->getType(), seed++, check.lo, check.hi));
  }
  auto want = runGraph(*ref, inputs);
  if (!want)
    return ::testing::AssertionFailure()
           << "interpreter: " << llvm::toString(want.takeError());

  std::vector<std::string> passes =
      check.passes.empty() ? defaultPipeline() : check.passes;
  if (auto err = runPipeline(*g, passes, PipelineOptions{}))
    return ::testing::AssertionFailure()
           << "passes: " << llvm::toString(std::move(err));
  if (check.expectGraph)
    check.expectGraph(*g);
  auto bundle = JitBundle::compile(*g, "jit", check.lir, testTarget());
  if (!bundle)
    return ::testing::AssertionFailure()
           << "compile: " << llvm::toString(bundle.takeError());
  if (const char *lanes = std::getenv("KILN_TEST_LANES"))
    if ((*bundle)->targetInfo().vectorLanes != std::strtoul(lanes, nullptr, 10))
      return ::testing::AssertionFailure()
             << "compiled for " << (*bundle)->targetInfo().vectorLanes
             << " vector lanes, KILN_TEST_LANES says " << lanes;
  auto got = [&] {
    X87SinglePrecision x87;
    return (*bundle)->run(inputs);
  }();
  if (!got)
    return ::testing::AssertionFailure()
           << "run: " << llvm::toString(got.takeError());
  return outputsClose(*want, *got, check.rtol, check.scale);
}

GraphBuilder singleNode(OpKind kind, std::vector<TensorType> inputTypes,
                        AttrMap attrs) {
  return [=](Graph &g) {
    llvm::SmallVector<Value *, 4> inputs;
    for (size_t i = 0; i < inputTypes.size(); ++i)
      inputs.push_back(g.addInput("x" + std::to_string(i), inputTypes[i]));
    Node *n = addNode(g, kind, "node", inputs, attrs);
    g.addOutput("y", n->getOutput());
  };
}

GraphBuilder weightedNode(OpKind kind, Shape x, Shape w, int64_t biasSize,
                          AttrMap attrs, Weights weights) {
  return [=](Graph &g) {
    llvm::SmallVector<Value *, 3> inputs{
        g.addInput("x", f32(x)), weights == Weights::Constant
                                     ? randomConstant(g, "w", w)
                                     : g.addInput("w", f32(w))};
    if (biasSize)
      inputs.push_back(randomConstant(g, "b", {biasSize}));
    Node *n = addNode(g, kind, "node", inputs, attrs);
    g.addOutput("y", n->getOutput());
  };
}

} // namespace test
} // namespace kiln
