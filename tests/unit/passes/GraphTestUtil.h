//===- GraphTestUtil.h - Graphs in pass tests -----------------*- C++ -*-===//
//
// Pass tests build the same graph twice (Graph is not copyable), rewrite
// one copy, and compare both with the reference interpreter on random
// inputs: the unrewritten graph is the oracle.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_UNIT_PASSES_GRAPHTESTUTIL_H
#define KILN_TESTS_UNIT_PASSES_GRAPHTESTUTIL_H

#include "compiler/graph/Graph.h"
#include "compiler/passes/Pass.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln {
namespace test {

using GraphBuilder = std::function<void(Graph &)>;

/// A new graph filled by `build`.
std::unique_ptr<Graph> buildGraph(const GraphBuilder &build);

TensorType f32(llvm::ArrayRef<int64_t> shape);
/// An int8 type quantized per tensor.
TensorType q8(llvm::ArrayRef<int64_t> shape, float scale, int32_t zeroPoint);

/// Graph::addNode, aborting the test binary with the IR's message on error
/// (a builder that cannot build its graph is a broken test).
Node *addNode(Graph &g, OpKind kind, llvm::StringRef name,
              llvm::ArrayRef<Value *> inputs, AttrMap attrs = {});

/// Uniform [lo, hi) f32 data, or for an int8 type codes over [-128, 127],
/// determined by `seed`.
Tensor randomTensor(const TensorType &type, uint64_t seed, float lo = -1.0f,
                    float hi = 1.0f);
/// A constant of random data seeded by its name, so a graph built twice
/// gets the same weights.
Value *randomConstant(Graph &g, llvm::StringRef name,
                      llvm::ArrayRef<int64_t> shape, float lo = -1.0f,
                      float hi = 1.0f);
Value *constantF32(Graph &g, llvm::StringRef name,
                   llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<float> data);

/// GELU of `x` as PyTorch exports it: x * (1 + Erf(x / sqrt(2))) * 0.5 (Div,
/// Erf, Add, Mul, Mul), its nodes and constants named from `prefix`.
Value *addExportedGelu(Graph &g, Value *x, llvm::StringRef prefix);

/// Runs `pass` on `g`; returns whether it changed the graph, failing the
/// test on error.
bool runPass(Pass &pass, Graph &g);

/// How many nodes of `g` are `kind`.
unsigned countOps(const Graph &g, OpKind kind);
/// The single node of `g` of op `kind`, or nullptr if there are zero or
/// several.
Node *findOnly(const Graph &g, OpKind kind);

/// What a relative tolerance is relative to: the largest |ref| of the
/// output (at least 1), or each element's own |ref| (at least 1), for
/// outputs whose magnitudes span many orders (math functions at their edges).
enum class Tolerance { OfOutput, OfElement };

/// Whether every output of `got` is within rtol * max(1, |ref|) of the
/// matching output of `ref`, element by element (NaN matches only NaN, an
/// infinity only itself).
::testing::AssertionResult outputsClose(llvm::ArrayRef<Tensor> ref,
                                        llvm::ArrayRef<Tensor> got,
                                        double rtol,
                                        Tolerance scale = Tolerance::OfOutput);

/// Runs both graphs with the reference interpreter on the same random inputs
/// (seeded by `seed`) and compares their outputs with outputsClose.
::testing::AssertionResult equivalent(const Graph &ref, const Graph &got,
                                      uint64_t seed = 1, double rtol = 1e-5);

} // namespace test
} // namespace kiln

#endif
