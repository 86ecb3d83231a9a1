//===- GatherKernelTest.cpp - Gather, GatherElements, GatherND -------------===//
//
// The gather kernels against the interpreter, with indices known only at run
// time (graph inputs, negative ones included) and as constants, on every
// axis, scalar and multi-dimensional indices, int32 and int64 indices, and
// data of more than one dtype.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include <gtest/gtest.h>

#include <random>

namespace kiln {
namespace {

using namespace test;

/// Indices in [-extent, extent): every position, counted from either end.
Tensor indices(DType dtype, Shape shape, int64_t extent, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> dist(-extent, extent - 1);
  Tensor t(TensorType(dtype, shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setFromDouble(i, double(dist(rng)));
  return t;
}

struct GatherCase {
  const char *name;
  OpKind op;
  Shape data, indices;
  int64_t attr;
  /// The extent indices range over (along the axis, or for GatherND the
  /// smallest of the indexed axes).
  int64_t extent;
  DType dataType = DType::F32, indexType = DType::I64;
};

GraphBuilder gatherGraph(const GatherCase &c, const Tensor *constantIndices) {
  return [=](Graph &g) {
    Value *data = g.addInput("data", TensorType(c.dataType, c.data));
    Value *idx = constantIndices
                     ? g.addConstant("indices", *constantIndices)
                     : g.addInput("indices", TensorType(c.indexType, c.indices));
    const char *attr = c.op == OpKind::GatherND ? "batch_dims" : "axis";
    Node *n = addNode(g, c.op, "gather", {data, idx}, {{attr, Attr::ofInt(c.attr)}});
    g.addOutput("y", n->getOutput());
  };
}

class GatherKernel : public ::testing::TestWithParam<GatherCase> {};

TEST_P(GatherKernel, MatchesTheInterpreterWithRunTimeIndices) {
  const GatherCase &c = GetParam();
  JitCheck check;
  check.inputs = {randomInput(TensorType(c.dataType, c.data), 1),
                  indices(c.indexType, c.indices, c.extent, 2)};
  check.rtol = 0;
  EXPECT_TRUE(jitMatchesInterpreter(gatherGraph(c, nullptr), check));
}

TEST_P(GatherKernel, MatchesTheInterpreterWithConstantIndices) {
  const GatherCase &c = GetParam();
  Tensor idx = indices(c.indexType, c.indices, c.extent, 3);
  JitCheck check;
  check.inputs = {randomInput(TensorType(c.dataType, c.data), 4)};
  check.rtol = 0;
  EXPECT_TRUE(jitMatchesInterpreter(gatherGraph(c, &idx), check));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GatherKernel,
    ::testing::Values(
        GatherCase{"Axis0", OpKind::Gather, {7, 5}, {4}, 0, 7},
        GatherCase{"Axis1", OpKind::Gather, {3, 9, 4}, {2, 3}, 1, 9},
        GatherCase{"LastAxisNegative", OpKind::Gather, {2, 3, 37}, {5}, -1, 37},
        GatherCase{"ScalarIndex", OpKind::Gather, {6, 4}, {}, 0, 6},
        GatherCase{"Int32Indices", OpKind::Gather, {5, 6}, {3, 2}, 1, 6, DType::F32,
                   DType::I32},
        GatherCase{"Int64Data", OpKind::Gather, {8, 3}, {10}, 0, 8, DType::I64},
        GatherCase{"ElementsAxis0", OpKind::GatherElements, {4, 5}, {3, 5}, 0, 4},
        GatherCase{"ElementsAxis1", OpKind::GatherElements, {3, 6, 2}, {3, 4, 2}, 1, 6},
        GatherCase{"ElementsLastAxis", OpKind::GatherElements, {2, 33}, {2, 40}, -1, 33},
        GatherCase{"NDFullIndex", OpKind::GatherND, {4, 4}, {5, 2}, 0, 4},
        GatherCase{"NDPartialIndex", OpKind::GatherND, {5, 5, 3}, {2, 3, 1}, 0, 5},
        GatherCase{"NDBatchDims1", OpKind::GatherND, {2, 6, 6, 3}, {2, 4, 2}, 1, 6}),
    [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace kiln
