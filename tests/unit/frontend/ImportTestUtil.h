//===- ImportTestUtil.h - Import a small model and run it -------*- C++ -*-===//
//
// For tests of ops the importer rewrites into others: the imported graph
// runs in the reference interpreter and the test compares it with its own
// computation of the op.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_FRONTEND_IMPORTTESTUTIL_H
#define KILN_TESTS_FRONTEND_IMPORTTESTUTIL_H

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Verifier.h"
#include "compiler/interpreter/Interpreter.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <random>

namespace kiln {
namespace test {

inline std::vector<float> randomData(int64_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float &x : v)
    x = dist(rng);
  return v;
}

inline int64_t product(const Shape &s) {
  return std::accumulate(s.begin(), s.end(), int64_t(1), std::multiplies<>());
}

/// `b` imported and verified; a test failure (and nullptr) when it is not.
inline std::unique_ptr<Graph> importOk(const ModelBuilder &b,
                                       const OnnxImportOptions &opts = {}) {
  auto g = importOnnxBuffer(b.bytes(), "m", opts);
  if (!g) {
    ADD_FAILURE() << llvm::toString(g.takeError());
    return nullptr;
  }
  if (llvm::Error e = verifyGraph(**g)) {
    ADD_FAILURE() << llvm::toString(std::move(e));
    return nullptr;
  }
  return std::move(*g);
}

/// The only node of `g`, which must be of kind `kind`.
inline const Node *singleNode(const Graph &g, OpKind kind) {
  std::vector<Node *> nodes = g.getNodes();
  if (nodes.size() != 1 || !nodes[0]->is(kind)) {
    ADD_FAILURE() << "expected a single " << getOpDef(kind).name
                  << " node, got " << nodes.size() << " nodes";
    return nullptr;
  }
  return nodes[0];
}

/// Runs a one-input, one-output graph on `input` (f32 of `shape`).
inline std::vector<float> runOnInput(const Graph &g, llvm::ArrayRef<int64_t> shape,
                                     llvm::ArrayRef<float> input) {
  auto out = runGraph(g, {Tensor::fromValues<float>(DType::F32, shape, input)});
  if (!out) {
    ADD_FAILURE() << llvm::toString(out.takeError());
    return {};
  }
  llvm::ArrayRef<float> v = (*out)[0].values<float>();
  return std::vector<float>(v.begin(), v.end());
}

inline llvm::Expected<std::vector<Tensor>>
importAndRun(const ModelBuilder &b, std::vector<Tensor> inputs) {
  auto g = importOnnxBuffer(b.bytes(), "m", {});
  if (!g)
    return g.takeError();
  if (llvm::Error err = verifyGraph(**g))
    return std::move(err);
  return runGraph(**g, inputs);
}

inline std::string importError(const ModelBuilder &b, const OnnxImportOptions &opts = {}) {
  auto g = importOnnxBuffer(b.bytes(), "m", opts);
  if (g)
    return "import unexpectedly succeeded";
  return llvm::toString(g.takeError());
}

} // namespace test
} // namespace kiln

#endif
