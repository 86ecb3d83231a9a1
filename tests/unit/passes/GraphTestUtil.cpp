#include "tests/unit/passes/GraphTestUtil.h"

#include "compiler/interpreter/Interpreter.h"
#include "compiler/graph/Half.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace kiln {
namespace test {

std::unique_ptr<Graph> buildGraph(const GraphBuilder &build) {
  auto g = std::make_unique<Graph>("test");
  build(*g);
  return g;
}

TensorType f32(llvm::ArrayRef<int64_t> shape) {
  return TensorType(DType::F32, shape);
}

TensorType q8(llvm::ArrayRef<int64_t> shape, float scale, int32_t zeroPoint) {
  TensorType t(DType::I8, shape);
  t.quant.scales = {scale};
  t.quant.zeroPoints = {zeroPoint};
  return t;
}

Node *addNode(Graph &g, OpKind kind, llvm::StringRef name,
              llvm::ArrayRef<Value *> inputs, AttrMap attrs) {
  auto n = g.addNode(kind, name, inputs, std::move(attrs));
  if (!n)
    llvm::report_fatal_error(llvm::StringRef(llvm::toString(n.takeError())));
  return *n;
}

Tensor randomTensor(const TensorType &type, uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  Tensor t(type);
  if (type.dtype == DType::I8) {
    std::uniform_int_distribution<int> codes(-128, 127);
    for (int8_t &v : llvm::MutableArrayRef<int8_t>(t.data<int8_t>(), t.numElements()))
      v = int8_t(codes(rng));
    return t;
  }
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float &v :
       llvm::MutableArrayRef<float>(t.data<float>(), t.numElements()))
    v = dist(rng);
  return t;
}

Value *randomConstant(Graph &g, llvm::StringRef name,
                      llvm::ArrayRef<int64_t> shape, float lo, float hi) {
  // FNV-1a: a seed that depends on the name only.
  uint64_t seed = 1469598103934665603ull;
  for (char c : name)
    seed = (seed ^ uint8_t(c)) * 1099511628211ull;
  return g.addConstant(name, randomTensor(f32(shape), seed, lo, hi));
}

Value *constantF32(Graph &g, llvm::StringRef name,
                   llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data) {
  return g.addConstant(name,
                       Tensor::fromValues<float>(DType::F32, shape, data));
}

Value *addExportedGelu(Graph &g, Value *x, llvm::StringRef prefix) {
  std::string p = prefix.str();
  Value *div = addNode(g, OpKind::Div, p + ".div",
                       {x, constantF32(g, p + ".sqrt2", {}, {1.41421354f})})
                   ->getOutput();
  Value *erf = addNode(g, OpKind::Erf, p + ".erf", {div})->getOutput();
  Value *plus = addNode(g, OpKind::Add, p + ".add",
                        {erf, constantF32(g, p + ".one", {}, {1.0f})})
                    ->getOutput();
  Value *mul = addNode(g, OpKind::Mul, p + ".mul", {x, plus})->getOutput();
  return addNode(g, OpKind::Mul, p + ".half",
                 {mul, constantF32(g, p + ".half_c", {}, {0.5f})})
      ->getOutput();
}

bool runPass(Pass &pass, Graph &g) {
  auto changed = pass.run(g);
  if (!changed) {
    ADD_FAILURE() << "pass " << pass.getName().str()
                  << " failed: " << llvm::toString(changed.takeError());
    return false;
  }
  return *changed;
}

unsigned countOps(const Graph &g, OpKind kind) {
  unsigned n = 0;
  for (const Node *node : g.getNodes())
    n += node->is(kind);
  return n;
}

Node *findOnly(const Graph &g, OpKind kind) {
  Node *found = nullptr;
  for (Node *n : g.getNodes())
    if (n->is(kind)) {
      if (found)
        return nullptr;
      found = n;
    }
  return found;
}

namespace {
/// Element i as a double; f16 from its bits (Tensor::getAsDouble has no f16).
double elementValue(const Tensor &t, int64_t i) {
  return t.getDType() == DType::F16 ? halfToFloat(t.data<uint16_t>()[i])
                                    : t.getAsDouble(i);
}
} // namespace

::testing::AssertionResult outputsClose(llvm::ArrayRef<Tensor> ref,
                                        llvm::ArrayRef<Tensor> got,
                                        double rtol, Tolerance scale) {
  if (ref.size() != got.size())
    return ::testing::AssertionFailure()
           << ref.size() << " reference outputs, " << got.size() << " got";
  for (size_t o = 0; o < ref.size(); ++o) {
    // fold-qdq may annotate an int8 output with its quantization; the
    // integers are what is compared.
    if (ref[o].getDType() != got[o].getDType() ||
        ref[o].getShape() != got[o].getShape())
      return ::testing::AssertionFailure()
             << "output " << o << ": type " << got[o].getType().str()
             << ", expected " << ref[o].getType().str();
    double maxAbs = 1.0;
    for (int64_t i = 0; i < ref[o].numElements(); ++i)
      maxAbs = std::max(maxAbs, std::fabs(elementValue(ref[o], i)));
    for (int64_t i = 0; i < ref[o].numElements(); ++i) {
      double want = elementValue(ref[o], i), have = elementValue(got[o], i);
      if ((std::isnan(want) && std::isnan(have)) || want == have)
        continue;
      double tol = rtol * (scale == Tolerance::OfOutput
                               ? maxAbs
                               : std::max(1.0, std::fabs(want)));
      if (!(std::fabs(want - have) <= tol))
        return ::testing::AssertionFailure()
               << "output " << o << " element " << i << ": " << have
               << ", expected " << want << " (tolerance " << tol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult equivalent(const Graph &ref, const Graph &got,
                                      uint64_t seed, double rtol) {
  std::vector<Tensor> inputs;
  for (const Value *v : ref.getInputs())
    inputs.push_back(randomTensor(v->getType(), seed++));
  auto want = runGraph(ref, inputs);
  if (!want)
    return ::testing::AssertionFailure()
           << "reference graph: " << llvm::toString(want.takeError());
  auto have = runGraph(got, inputs);
  if (!have)
    return ::testing::AssertionFailure()
           << "rewritten graph: " << llvm::toString(have.takeError());
  return outputsClose(*want, *have, rtol);
}

} // namespace test
} // namespace kiln
